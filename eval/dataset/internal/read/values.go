package read

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// KindOf names the JSON type of a raw value (as users know them).
func KindOf(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '[':
		return "list"
	case '{':
		return "object"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// AKind puts the article in front of a kind for messages.
func AKind(k string) string {
	switch k {
	case "object":
		return "an object"
	case "null", "nothing":
		return k
	}
	return "a " + k
}

func IsNull(raw []byte) bool { return len(raw) == 4 && string(raw) == "null" }

// UTF8Error locates the first invalid byte: the cause is almost always a
// file saved in a legacy encoding, which the message says how to fix.
func UTF8Error(b []byte) error {
	off := InvalidUTF8(b)
	bad := byte(0)
	if off < len(b) {
		bad = b[off]
	}
	return fmt.Errorf("is not valid UTF-8 (byte 0x%02X at offset %d) — the file is probably in another encoding "+
		"(GBK, Latin-1, Windows-1252); convert it to UTF-8, e.g. iconv -f GBK -t UTF-8 in > out", bad, off)
}

// InvalidUTF8 is the offset of the first invalid UTF-8 byte of b, len(b)
// if there is none.
func InvalidUTF8(b []byte) int {
	off := 0
	for off < len(b) {
		r, size := utf8.DecodeRune(b[off:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		off += size
	}
	return off
}

// decodeString decodes a JSON string taken from an already validated
// record; one without escapes is its bytes, which saves a second parse.
func decodeString(raw []byte) (string, error) {
	if !utf8.Valid(raw) {
		return "", UTF8Error(raw)
	}
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("is not a valid JSON string: %v", err)
	}
	return s, nil
}

// jsonText reads the question or the answer: a string and nothing else, as
// a number or a list would be scored as whatever its printing happens to be.
func jsonText(raw []byte) (string, error) {
	if k := KindOf(raw); k != "string" {
		return "", fmt.Errorf("must be a string, got %s — fix the exporter or quote the value", AKind(k))
	}
	return decodeString(raw)
}

// jsonStrings decodes a JSON list whose items must be strings. Null items
// count as empty strings (pandas writes None as null). Read item by item,
// an error says which item is wrong.
func jsonStrings(raw []byte) ([]string, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("is not a valid JSON list: %v", err)
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		if IsNull(it) {
			out = append(out, "")
			continue
		}
		if k := KindOf(it); k != "string" {
			hint := ""
			if k == "object" {
				hint = " (a document object? export its text, e.g. page_content)"
			}
			return nil, fmt.Errorf("item %d of the list is %s, not a string%s — contexts and references must be texts", i+1, AKind(k), hint)
		}
		s, err := decodeString(it)
		if err != nil {
			return nil, fmt.Errorf("item %d %w", i+1, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// nonBlank keeps the chunks that hold text, in their order: empty ones come
// from exporters padding to a fixed top-k or from empty cells, and judging
// them would lower context precision for an artefact of the export.
func nonBlank(chunks []string) []string {
	out := slices.DeleteFunc(chunks, func(c string) bool { return strings.TrimSpace(c) == "" })
	if len(out) == 0 {
		return nil
	}
	return out
}

// jsonContexts accepts a list of strings or one string (one chunk).
func jsonContexts(raw []byte) ([]string, error) {
	switch k := KindOf(raw); k {
	case "string":
		s, err := decodeString(raw)
		if err != nil {
			return nil, err
		}
		return nonBlank([]string{s}), nil
	case "list":
		items, err := jsonStrings(raw)
		if err != nil {
			return nil, err
		}
		return nonBlank(items), nil
	default:
		return nil, fmt.Errorf("must be a list of strings (or one string), got %s — export the retrieved chunks' texts", AKind(k))
	}
}

// jsonReference accepts a string, or a list of strings (RAGAS 0.1's
// ground_truths) joined by newlines. A blank reference is no reference, so
// the metrics that need one report missing_input instead of judging "".
func jsonReference(raw []byte) (string, error) {
	if k := KindOf(raw); k != "string" && k != "list" {
		return "", fmt.Errorf("must be a string (or a list of strings), got %s — export the reference answer as text", AKind(k))
	}
	items, err := jsonContexts(raw)
	return strings.Join(items, "\n"), err
}

// jsonID accepts a string or a number; a number keeps its literal spelling
// so that 0012 or 1e3 in the source stays recognisable in reports.
func jsonID(raw []byte) (string, error) {
	switch k := KindOf(raw); k {
	case "string":
		return decodeString(raw)
	case "number":
		return string(raw), nil
	default:
		return "", fmt.Errorf("must be a string or a number, got %s — give each sample a plain id", AKind(k))
	}
}

// cellContexts reads a CSV cell that may hold a list, a JSON array or the
// Python repr pandas writes for a list column (['a', 'b']), as its items;
// any other cell is one chunk.
func cellContexts(cell string) ([]string, error) {
	items := []string{cell}
	if t := strings.TrimSpace(cell); strings.HasPrefix(t, "[") && json.Valid([]byte(t)) {
		var err error
		if items, err = jsonStrings([]byte(t)); err != nil {
			return nil, err
		}
	} else if py, ok := pyStringList(t); ok {
		items = py
	} else if listLike(t) {
		// Read as one chunk, a list cut short (Excel keeps 32,767
		// characters of a cell) would be judged brackets and all.
		return nil, fmt.Errorf("opens like a list of texts but is neither a valid JSON list nor a Python list (cut short? a spreadsheet keeps at most 32,767 characters of a cell) — fix the cell, or write the chunk without its opening [\"")
	}
	return nonBlank(items), nil
}

// listLike: the cell opens as a list of quoted texts does (["…, ['…);
// a citation ("[1] …") does not.
func listLike(t string) bool {
	rest, ok := strings.CutPrefix(t, "[")
	rest = strings.TrimLeft(rest, pySpace)
	return ok && rest != "" && strings.ContainsRune(`"'`, rune(rest[0]))
}

// cellReference: a list cell's items joined by newlines, as in JSON.
func cellReference(cell string) (string, error) {
	items, err := cellContexts(cell)
	return strings.Join(items, "\n"), err
}

// pyStringList parses a Python list-of-str literal as str(list) writes it
// (['a', "it's"]); ok is false for anything else.
func pyStringList(s string) (items []string, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "[")
	if !ok {
		return nil, false
	}
	items = []string{}
	for {
		rest = strings.TrimLeft(rest, pySpace)
		if tail, ok := strings.CutPrefix(rest, "]"); ok {
			return items, strings.TrimLeft(tail, pySpace) == ""
		}
		item, tail, ok := pyString(rest)
		if !ok {
			return nil, false
		}
		items = append(items, item)
		rest = strings.TrimLeft(tail, pySpace)
		if tail, ok := strings.CutPrefix(rest, ","); ok {
			rest = tail
		} else if !strings.HasPrefix(rest, "]") {
			return nil, false
		}
	}
}

const pySpace = " \t\r\n"

// pyString reads the quoted string s starts with and returns its text and
// what follows it. Of Python's escapes those str() writes are decoded; any
// other is kept verbatim, as Python keeps unknown ones.
func pyString(s string) (text, rest string, ok bool) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", "", false
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); {
		switch c := s[i]; {
		case c == q:
			return b.String(), s[i+1:], true
		case c != '\\' || i+1 == len(s):
			b.WriteByte(c)
			i++
		case s[i+1] == '\'' || s[i+1] == '"':
			b.WriteByte(s[i+1])
			i += 2
		case strings.IndexByte(`\nrtxuU`, s[i+1]) >= 0:
			// \xNN is the character U+00NN, as in Python, not a byte.
			r, _, tail, err := strconv.UnquoteChar(s[i:], q)
			if err != nil {
				return "", "", false
			}
			b.WriteRune(r)
			i = len(s) - len(tail)
		default:
			b.WriteString(s[i : i+2])
			i += 2
		}
	}
	return "", "", false
}

// DecodeObject decodes a JSON object, numbers kept as written, with the
// messages a record gets.
func DecodeObject(b []byte) (map[string]any, error) {
	v, err := DecodeJSON(b)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("is %s, not an object — each record must be a JSON object", AKind(KindOf(b)))
	}
	return m, nil
}

// DecodeJSON decodes one JSON value, numbers kept as written, with the
// messages a record gets.
func DecodeJSON(b []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return nil, fmt.Errorf("invalid JSON: it ends in the middle of a value — the file was cut short (a partial copy, or a collector still writing it); export it again")
		}
		return nil, fmt.Errorf("invalid JSON: %s — fix or re-export the file", JSONErrText(err))
	}
	if dec.More() {
		return nil, fmt.Errorf("invalid JSON: more than one value where one was expected — export one object per line (JSON Lines)")
	}
	return v, nil
}
