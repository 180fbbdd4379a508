package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// readJSON reads a JSON array of records, an object holding them under
// "samples" or a column-oriented object of lists, streaming one element at a time so a large file is never held
// twice in memory. A syntax error ends the read even under --skip-invalid:
// past it, where the next element starts is unknowable.
func readJSON(c *collector, r io.Reader) error {
	g := newJSONGate(c, r)
	lt := &lineTracker{r: g, gate: g}
	dec := json.NewDecoder(lt)
	tok, err := token(dec, lt)
	if err != nil {
		return jsonSyntax(c, lt, 0, err)
	}
	switch tok {
	case json.Delim('['):
		if err := readElements(c, dec, lt, false); err != nil {
			return err
		}
	case json.Delim('{'):
		if err := readSamplesObject(c, dec, lt); err != nil {
			return err
		}
	default:
		return &Error{File: c.name, Msg: fmt.Sprintf(`the file holds %s — expected an array of sample objects `+
			`, an object {"samples": [...]} or a column-oriented object {"user_input": [...], "response": [...]}; for one object per line use JSON Lines (.jsonl)`, aKind(kindOfToken(tok)))}
	}
	if _, err := token(dec, lt); err != io.EOF {
		return &Error{File: c.name, Msg: fmt.Sprintf("unexpected data after the JSON value, at line %d — "+
			"a JSON file holds one array; for one object per line name the file .jsonl", lt.lineAt(dec.InputOffset()))}
	}
	return nil
}

// readSamplesObject reads a top-level object: the records under
// "samples", promptfoo's test cases under "tests" (with its "defaultTest",
// which must come first: the tests are read as they stream by) or, without
// either, a column-oriented object of lists (see columnar.go).
func readSamplesObject(c *collector, dec *json.Decoder, lt *lineTracker) error {
	var keys []string
	var cols []column
	list := "" // the key the records were read from
	for dec.More() {
		tok, err := token(dec, lt)
		if err != nil {
			return jsonSyntax(c, lt, 0, err)
		}
		key, _ := tok.(string)
		keys = append(keys, key)
		if key == "defaultTest" {
			if err := readDefaultTest(c, dec, lt, list); err != nil {
				return err
			}
			continue
		}
		at := refSite{line: lt.lineAt(dec.InputOffset())}
		tok, err = token(dec, lt)
		if err != nil {
			return jsonSyntax(c, lt, 0, err)
		}
		if key == "samples" || key == "tests" {
			if list != "" {
				return &Error{File: c.name, Msg: fmt.Sprintf(`has both %q and %q — keep one list of records`, list, key)}
			}
			list, cols = key, nil
			if err := readRecordsValue(c, dec, lt, key, tok, at); err != nil {
				return err
			}
			continue
		}
		switch tok {
		case json.Delim('['):
			if list != "" {
				err = skipValue(c, dec, lt)
				break
			}
			var cells []cell
			if cells, err = readColumn(c, dec, lt); err == nil {
				cols = append(cols, column{key: key, cells: cells})
			}
		case json.Delim('{'):
			err = skipValue(c, dec, lt)
		}
		if err != nil {
			return err
		}
	}
	if _, err := token(dec, lt); err != nil {
		return jsonSyntax(c, lt, 0, err)
	}
	if list != "" {
		return nil
	}
	return c.fromColumns(keys, cols)
}

// readRecordsValue reads the value of "samples" or "tests", whose first
// token was tok: a list of records or, for tests, of test cases and
// references, or one reference.
func readRecordsValue(c *collector, dec *json.Decoder, lt *lineTracker, key string, tok json.Token, at refSite) error {
	if key == "samples" {
		if tok != json.Delim('[') {
			return &Error{File: c.name, Msg: fmt.Sprintf(`"samples" holds %s — it must be a list of sample objects`, aKind(kindOfToken(tok)))}
		}
		return readElements(c, dec, lt, false)
	}
	return c.withTestCases(func() error {
		switch spec, isString := tok.(string); {
		case tok == json.Delim('['):
			return readElements(c, dec, lt, true)
		case isString:
			return c.readTestsRef(at, spec)
		}
		return &Error{File: c.name, Msg: fmt.Sprintf(`"tests" holds %s — it must be a list of test cases, a "file://" reference to a tests file, or a list mixing both`, aKind(kindOfToken(tok)))}
	})
}

// readDefaultTest reads promptfoo's "defaultTest" into c.defaults; list
// is the key records were read from already, if any.
func readDefaultTest(c *collector, dec *json.Decoder, lt *lineTracker, list string) error {
	at := refSite{line: lt.lineAt(dec.InputOffset())}
	var raw json.RawMessage
	start := dec.InputOffset()
	if err := dec.Decode(&raw); err != nil {
		return jsonSyntax(c, lt, 0, lt.locate(err, start))
	}
	if list != "" {
		return &Error{File: c.name, Msg: fmt.Sprintf(`"defaultTest" (line %d) comes after %q — move it above %q: the records are read as they stream by, before it is met`, at.line, list, list)}
	}
	vars, err := c.defaultVars(at, raw)
	c.defaults = vars
	return err
}

// readElements reads array elements up to and including the closing ']';
// in a promptfoo tests list a string element is a reference to a tests file.
func readElements(c *collector, dec *json.Decoder, lt *lineTracker, tests bool) error {
	n := 0
	for dec.More() {
		n++
		raw, o, err := nextValue(c, dec, lt, n)
		if err != nil {
			return err
		}
		if o != nil {
			field, msg := c.tooBigField(*o)
			if err := c.bad(n, field, msg); err != nil {
				return err
			}
			continue
		}
		raw = bytes.TrimSpace(raw)
		if tests && kindOf(raw) == "string" {
			var spec string
			if err := json.Unmarshal(raw, &spec); err != nil {
				if err := c.bad(n, "", "is not a valid JSON string: "+jsonErrText(err)); err != nil {
					return err
				}
				continue
			}
			if err := c.readTestsRef(refSite{n, unitElement}, spec); err != nil {
				return err
			}
			continue
		}
		if err := c.fromJSON(n, raw); err != nil {
			return err
		}
	}
	if _, err := token(dec, lt); err != nil {
		return jsonSyntax(c, lt, n+1, err)
	}
	return nil
}

// nextValue decodes the next value of a list; over is set instead for a
// value over the limit, which the gate dropped. element is the value's
// number in messages (0 outside the top-level array).
func nextValue(c *collector, dec *json.Decoder, lt *lineTracker, element int) (raw json.RawMessage, over *oversized, err error) {
	start := dec.InputOffset()
	if err := dec.Decode(&raw); err != nil {
		return nil, nil, jsonSyntax(c, lt, element, lt.locate(err, start))
	}
	end := dec.InputOffset()
	lt.forget(end)
	if o, ok := lt.gate.oversize(end); ok && string(raw) == "{}" {
		if o.truncated {
			return nil, nil, truncatedJSON(c, element)
		}
		return nil, &o, nil
	}
	return raw, nil, nil
}

// token is dec.Token with a syntax error located by lt.
func token(dec *json.Decoder, lt *lineTracker) (json.Token, error) {
	start := dec.InputOffset()
	tok, err := dec.Token()
	return tok, lt.locate(err, start)
}

// jsonSyntax reports a broken JSON file with the line of the error, which
// is what an editor can jump to; element is 0 outside the array.
func jsonSyntax(c *collector, lt *lineTracker, element int, err error) error {
	var de *Error
	if errors.As(err, &de) {
		return de // the gate's: a value over the limit
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
			return truncatedJSON(c, element)
		}
		return fmt.Errorf("%s: %w", c.name, err)
	}
	return &Error{File: c.name, Line: element, Unit: unitElement, Msg: fmt.Sprintf(
		"invalid JSON at line %d: %s — fix the file; a broken JSON file cannot be read past the error",
		lt.lineAt(se.Offset), se.Error())}
}

func truncatedJSON(c *collector, element int) *Error {
	return &Error{File: c.name, Line: element, Unit: unitElement,
		Msg: "the JSON ends too early (truncated file?) — complete or re-export the file"}
}

func kindOfToken(tok json.Token) string {
	switch tok.(type) {
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case json.Delim:
		if tok == json.Delim('{') {
			return "object"
		}
		return "list"
	}
	return "value"
}

// lineTracker keeps what the JSON decoder has read since the start of the
// current element, so that a decoder byte offset can be turned into a line
// number. Bytes before the current element are folded into a line count as
// the read advances, keeping memory flat on large files.
type lineTracker struct {
	r     io.Reader
	gate  *jsonGate // newlines it dropped count too
	base  int       // newlines in the forgotten bytes
	start int64     // offset of data[0]
	data  []byte    // bytes read and not yet forgotten
}

func (t *lineTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.data = append(t.data, p[:n]...)
	return n, err
}

// forget drops the bytes before off.
func (t *lineTracker) forget(off int64) {
	k := int(min(max(off-t.start, 0), int64(len(t.data))))
	t.base += bytes.Count(t.data[:k], []byte("\n"))
	t.data = append(t.data[:0], t.data[k:]...)
	t.start += int64(k)
}

// lineAt is the 1-based line of the byte at off (off not before the last forget).
func (t *lineTracker) lineAt(off int64) int {
	k := int(min(max(off-t.start, 0), int64(len(t.data))))
	return 1 + t.base + bytes.Count(t.data[:k], []byte("\n")) + t.gate.shift(off)
}

// locate gives a syntax error met by a Decode or Token call made at input
// offset start the offset of the bad byte in the input. The decoder's own
// offsets cannot be trusted for that: inside a value they count only the
// bytes the decoder scanned as values, not the separators Token consumed.
// So the value is scanned again, alone, from where it begins.
func (t *lineTracker) locate(err error, start int64) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	p := t.skipSpace(start)
	if i := p - t.start; i >= 0 && i < int64(len(t.data)) && (t.data[i] == ',' || t.data[i] == ':') {
		p = t.skipSpace(p + 1)
	}
	i := p - t.start
	if i < 0 || i > int64(len(t.data)) {
		return err
	}
	var raw json.RawMessage
	var again *json.SyntaxError
	if errors.As(json.NewDecoder(bytes.NewReader(t.data[i:])).Decode(&raw), &again) {
		located := *se
		located.Offset = p + again.Offset - 1
		return &located
	}
	// The value itself is fine: the error is Token's, about what surrounds
	// the value, and Token reports it at its input offset already.
	return err
}

func (t *lineTracker) skipSpace(off int64) int64 {
	for off-t.start >= 0 && off-t.start < int64(len(t.data)) && bytes.IndexByte([]byte(" \t\r\n"), t.data[off-t.start]) >= 0 {
		off++
	}
	return off
}
