package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

// readJSON reads a JSON array of records, an object holding them under
// "samples" (or promptfoo's "tests") or a column-oriented object of lists.
// The structure is followed here and each value cut out whole, within the
// record limit, for encoding/json: records stream, and errors know their
// line. A syntax error ends the read even under --skip-invalid: past it,
// where the next element starts is unknowable.
func readJSON(c *collector, br *bufio.Reader) error {
	r := &jsonReader{c: c, br: br, line: 1}
	b, err := r.peek()
	if err != nil {
		return r.eof(err, 0)
	}
	switch b {
	case '[':
		r.skip()
		err = r.elements(false)
	case '{':
		r.skip()
		err = r.object()
	default:
		raw, _, err := r.whole(false)
		if err != nil {
			return err
		}
		return &Error{File: c.Name, Msg: fmt.Sprintf(`the file holds %s — expected an array of sample objects `+
			`, an object {"samples": [...]} or a column-oriented object {"user_input": [...], "response": [...]}; for one object per line use JSON Lines (.jsonl)`, read.AKind(read.KindOf(raw)))}
	}
	if err != nil {
		return err
	}
	if _, err := r.peek(); err != io.EOF {
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		return &Error{File: c.Name, Msg: fmt.Sprintf("unexpected data after the JSON value, at line %d — "+
			"a JSON file holds one array; for one object per line name the file .jsonl", r.line)}
	}
	return nil
}

// jsonReader reads a JSON file a value at a time, counting lines.
type jsonReader struct {
	c    *collector
	br   *bufio.Reader
	line int // the line of the next byte
	held []byte
}

// peek skips whitespace and returns the next byte, unread.
func (r *jsonReader) peek() (byte, error) {
	for {
		p, err := r.chunk()
		if err != nil {
			return 0, err
		}
		for i, b := range p {
			switch b {
			case '\n':
				r.line++
			case ' ', '\t', '\r':
			default:
				r.br.Discard(i)
				return b, nil
			}
		}
		r.br.Discard(len(p))
	}
}

// chunk returns what the read buffer holds, reading more when it is empty.
func (r *jsonReader) chunk() ([]byte, error) {
	if _, err := r.br.Peek(1); err != nil {
		return nil, err
	}
	return r.br.Peek(r.br.Buffered())
}

// skip consumes the byte peek returned.
func (r *jsonReader) skip() { r.br.Discard(1) }

// expect consumes the separator want, or reports the byte found instead
// with encoding/json's message for it after the JSON text before.
func (r *jsonReader) expect(want byte, before string, element int) error {
	b, err := r.peek()
	if err != nil {
		return r.eof(err, element)
	}
	if b != want {
		return r.syntaxAt(r.line, element, jsonSyntaxMsg(before, b))
	}
	r.skip()
	return nil
}

// jsonSyntaxMsg is encoding/json's message for byte b, invalid after the
// JSON text before.
func jsonSyntaxMsg(before string, b byte) string {
	return json.Unmarshal(append([]byte(before), b), new(any)).Error()
}

// value reads the next value whole: raw, with the line it starts on, or,
// for a value over the limit, o (measured as it streams by, never held)
// and raw nil. element numbers the value in messages (0 outside the
// records' list).
func (r *jsonReader) value(element int) (raw []byte, start int, o *read.Oversized, err error) {
	first, err := r.peek()
	if err != nil {
		return nil, 0, nil, r.eof(err, element)
	}
	start = r.line
	r.held = r.held[:0]
	// A number or literal (or junk) ends before the next byte none holds;
	// the sizer follows strings and nesting to the end of any other value.
	// Syntax is encoding/json's business.
	scalar := first != '"' && first != '{' && first != '['
	var z read.RecordSizer
	var size int64
	for done := false; !done; {
		p, err := r.chunk()
		if err != nil {
			if err == io.EOF && scalar && size > 0 {
				break // a number or literal ends the file
			}
			if err == io.EOF && size <= r.c.Limit {
				// A stray quote or bracket makes a value run on to the end.
				if err := r.syntax(r.held, start, element, true); err != nil {
					return nil, 0, nil, err
				}
			}
			return nil, 0, nil, r.eof(err, element)
		}
		var n int
		if scalar {
			n = scalarEnd(p, size == 0)
			done = n < len(p)
		} else {
			n, done = z.Scan(p)
		}
		p = p[:n]
		r.line += bytes.Count(p, []byte("\n"))
		if size <= r.c.Limit && size+int64(n) > r.c.Limit {
			// A quote or a bracket too many makes a value run on, and
			// the error is then what to report, at its line; one past
			// the prefix checked goes unseen and the value is refused as
			// too big.
			if err := r.syntax(read.Prefix(r.held, p), start, element, true); err != nil {
				return nil, 0, nil, err
			}
		}
		size += int64(n)
		if size <= r.c.Limit {
			r.held = read.AppendHeld(r.held, p, r.c.Limit)
		}
		r.br.Discard(n)
	}
	if size > r.c.Limit {
		o := read.Oversized{Size: size, Line: start}
		o.Part, o.PartSize = z.Largest()
		return nil, start, &o, nil
	}
	return r.held, start, nil, nil
}

// scalarEnd is the length of the number or literal p continues, or
// starts with when first: its first byte is its own, whatever it is.
func scalarEnd(p []byte, first bool) int {
	i := 0
	if first {
		i = 1
	}
	for ; i < len(p); i++ {
		if b := p[i] | 0x20; (b < 'a' || b > 'z') && (p[i] < '0' || p[i] > '9') && p[i] != '.' && p[i] != '-' && p[i] != '+' {
			return i
		}
	}
	return len(p)
}

// syntax reports raw, a value read from line start on, if it is not valid
// JSON: the line of the bad byte, which an editor can jump to. Of part of a
// value, its start, only an error before its end is reported.
func (r *jsonReader) syntax(raw []byte, start, element int, part bool) error {
	if json.Valid(raw) {
		return nil
	}
	var se *json.SyntaxError
	if !errors.As(json.Unmarshal(raw, new(json.RawMessage)), &se) || part && se.Error() == "unexpected end of JSON input" {
		return nil
	}
	if cut := se.Offset >= int64(len(raw)) && (strings.HasPrefix(se.Error(), "invalid character ' '") ||
		se.Error() == "unexpected end of JSON input"); cut {
		// A number or literal cut short: by the end of the file, or by
		// the byte named then.
		next, err := r.br.Peek(1)
		if err != nil {
			return r.eof(err, element)
		}
		errors.As(json.Unmarshal(append(raw[:len(raw):len(raw)], next[0]), new(json.RawMessage)), &se)
	}
	bad := min(max(se.Offset-1, 0), int64(len(raw)))
	return r.syntaxAt(start+bytes.Count(raw[:bad], []byte("\n")), element, se.Error())
}

func (r *jsonReader) syntaxAt(line, element int, msg string) error {
	return &Error{File: r.c.Name, Line: element, Unit: read.UnitElement, Msg: fmt.Sprintf(
		"invalid JSON at line %d: %s — fix the file; a broken JSON file cannot be read past the error", line, msg)}
}

// eof reports the end of the file, or a read error, met inside the JSON.
func (r *jsonReader) eof(err error, element int) error {
	if err == io.EOF {
		return &Error{File: r.c.Name, Line: element, Unit: read.UnitElement,
			Msg: "the JSON ends too early (truncated file?) — complete or re-export the file"}
	}
	return fmt.Errorf("%s: %w", r.c.Name, err)
}

// entries reads the entries of a list or object whose opening bracket was
// read, up to and including the closing one, calling each at the start of
// entry n (from 1) with element, its number in messages: n among records,
// else 0. before is JSON text an entry can end, for expect.
func (r *jsonReader) entries(closing byte, before string, records bool, each func(n, element int) error) error {
	for n := 1; ; n++ {
		element := 0
		if records {
			element = n
		}
		b, err := r.peek()
		if err != nil {
			return r.eof(err, element)
		}
		if b == closing {
			r.skip()
			return nil
		}
		if n > 1 {
			if err := r.expect(',', before, element); err != nil {
				return err
			}
		}
		if err := each(n, element); err != nil {
			return err
		}
	}
}

// list reads the entries of a list whose '[' was read, calling each with
// the entry's number, its raw value (valid JSON) and, for one over the
// limit, o instead.
func (r *jsonReader) list(records bool, each func(n int, raw []byte, o *read.Oversized) error) error {
	return r.entries(']', `[""`, records, func(n, element int) error {
		raw, start, o, err := r.value(element)
		if err != nil {
			return err
		}
		if o == nil {
			if err := r.syntax(raw, start, element, false); err != nil {
				return err
			}
		}
		return each(n, raw, o)
	})
}

// elements reads the records of a list whose '[' was read; in a promptfoo
// tests list a string element is a reference to a tests file.
func (r *jsonReader) elements(tests bool) error {
	c := r.c
	return r.list(true, func(n int, raw []byte, o *read.Oversized) error {
		switch {
		case o != nil:
			return c.TooBigRecord(n, *o)
		case tests && read.KindOf(raw) == "string":
			var spec string
			if err := json.Unmarshal(raw, &spec); err != nil {
				return c.Bad(n, "", "is not a valid JSON string: "+read.JSONErrText(err))
			}
			return c.readTestsRef(refSite{n, read.UnitElement}, spec)
		}
		return c.FromJSON(n, raw)
	})
}

// object reads a top-level object whose '{' was read: the records under
// "samples", promptfoo's test cases under "tests" (with its "defaultTest",
// which must come first: the tests are read as they stream by) or, without
// either, a column-oriented object of lists (see internal/read/columnar.go).
func (r *jsonReader) object() error {
	c := r.c
	var keys []string
	var cols []read.Column
	list := "" // the key the records were read from
	err := r.entries('}', `{"":""`, false, func(int, int) error {
		key, at, err := r.key()
		if err != nil {
			return err
		}
		keys = append(keys, key)
		if err := r.expect(':', `{""`, 0); err != nil {
			return err
		}
		b, err := r.peek()
		if err != nil {
			return r.eof(err, 0)
		}
		switch {
		case key == "defaultTest":
			var raw []byte
			if raw, _, err = r.whole(false); err == nil {
				if list != "" {
					return &Error{File: c.Name, Msg: fmt.Sprintf(`"defaultTest" (line %d) comes after %q — move it above %q: the records are read as they stream by, before it is met`, at.line, list, list)}
				}
				c.Defaults, err = c.defaultVars(at, raw)
			}
		case key == "samples" || key == "tests":
			if list != "" {
				return &Error{File: c.Name, Msg: fmt.Sprintf(`has both %q and %q — keep one list of records`, list, key)}
			}
			list, cols = key, nil
			err = r.records(key, at)
		case b == '[':
			// A list of a column-oriented object: its entries are read one
			// by one, like records; kept only while no records were read.
			r.skip()
			col := read.Column{Key: key}
			err = r.list(false, func(_ int, raw []byte, o *read.Oversized) error {
				if list == "" {
					col.Cells = append(col.Cells, read.Cell{Raw: bytes.Clone(raw), Over: o})
				}
				return nil
			})
			if list == "" {
				cols = append(cols, col)
			}
		default:
			_, _, err = r.whole(false)
		}
		return err
	})
	if err != nil || list != "" {
		return err
	}
	return c.FromColumns(keys, cols)
}

// key reads a key of the top-level object and the line it is on.
func (r *jsonReader) key() (string, refSite, error) {
	if b, err := r.peek(); err != nil {
		return "", refSite{}, r.eof(err, 0)
	} else if b != '"' {
		return "", refSite{}, r.syntaxAt(r.line, 0, jsonSyntaxMsg(`{"":0,`, b))
	}
	raw, start, err := r.whole(true)
	at := refSite{line: start}
	if err != nil {
		return "", at, err
	}
	var key string
	err = json.Unmarshal(raw, &key)
	return key, at, err
}

// whole reads a key of the top-level object or a value other than a list:
// valid JSON within the limit, and the line it starts on.
func (r *jsonReader) whole(key bool) ([]byte, int, error) {
	raw, start, o, err := r.value(0)
	switch {
	case err != nil:
		return nil, start, err
	case o != nil && key:
		return nil, start, &Error{File: r.c.Name, Msg: fmt.Sprintf("a key of the top-level object, at line %d, is %d bytes (%s), over the limit of %s per record — "+
			"is this a dataset? Raise the limit with --max-record-bytes", o.Line, o.Size, read.FmtSize(o.Size), read.FmtSize(r.c.Limit))}
	case o != nil:
		return nil, start, &Error{File: r.c.Name, Msg: fmt.Sprintf("the JSON value at line %d is %d bytes (%s), over the limit of %s per record — "+
			"expected an array of sample objects or {\"samples\": [...]}; raise the limit with --max-record-bytes", o.Line, o.Size, read.FmtSize(o.Size), read.FmtSize(r.c.Limit))}
	}
	return raw, start, r.syntax(raw, start, 0, false)
}

// records reads the value of "samples" or "tests": a list of records or,
// for tests, of test cases and references, or one reference.
func (r *jsonReader) records(key string, at refSite) error {
	c := r.c
	b, _ := r.peek()
	if b == '[' {
		r.skip()
		if key == "samples" {
			return r.elements(false)
		}
		return c.withTestCases(func() error { return r.elements(true) })
	}
	raw, _, err := r.whole(false)
	if err != nil {
		return err
	}
	if key == "samples" {
		return &Error{File: c.Name, Msg: fmt.Sprintf(`"samples" holds %s — it must be a list of sample objects`, read.AKind(read.KindOf(raw)))}
	}
	var spec string
	if json.Unmarshal(raw, &spec) == nil {
		return c.withTestCases(func() error { return c.readTestsRef(at, spec) })
	}
	return &Error{File: c.Name, Msg: fmt.Sprintf(`"tests" holds %s — it must be a list of test cases, a "file://" reference to a tests file, or a list mixing both`, read.AKind(read.KindOf(raw)))}
}
