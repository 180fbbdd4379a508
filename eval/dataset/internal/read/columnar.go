package read

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A column-oriented JSON object (Hugging Face Dataset.to_dict()) has a list
// per field, entry i of each being sample i. Each entry is cut from the
// file like an array element, within the record limit; a sample's entries
// together are checked against the limit once the lists are read, which
// are held until the object ends.

// Column is one list-valued key of the top-level object.
type Column struct {
	Key   string
	Cells []Cell
}

// Cell is one entry of a column; Over is set for an entry over the limit
// that was measured and dropped.
type Cell struct {
	Raw  json.RawMessage
	Over *Oversized
}

// hasColumn reports whether a list feeds field f: one of its names found
// among the lists' keys (exactly or ignoring case, as for a JSON key).
func (c *Collector) hasColumn(f int, keys []string) bool {
	for _, name := range c.Cols.Names[f] {
		// A dotted --map path (vars.query) goes into a list of objects.
		head, _, _ := strings.Cut(name, ".")
		if Index(keys, name) >= 0 || Index(keys, head) >= 0 {
			return true
		}
	}
	return false
}

// FromColumns turns the lists of a top-level object without "samples"
// into samples; keys are all the object's keys, for the message when it
// is not column-oriented either.
func (c *Collector) FromColumns(keys []string, cols []Column) error {
	names := make([]string, len(cols))
	for i, col := range cols {
		names[i] = col.Key
	}
	var found [NFields]bool
	for f := range NFields {
		found[f] = c.hasColumn(f, names)
	}
	if !slices.Contains(found[:], true) {
		return c.layoutError(keys, "keys")
	}
	c.Unit = UnitSample
	for f := range NFields {
		if required(f) && !found[f] {
			return &Error{File: c.Name, Field: FieldNames[f], Msg: c.Cols.missingMsg(f, names, "list") +
				" — in a column-oriented object every field is a list with one entry per sample"}
		}
	}
	n := len(cols[0].Cells)
	for _, col := range cols[1:] {
		if len(col.Cells) != n {
			sorted := slices.Clone(cols)
			sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Key < sorted[j].Key })
			var parts []string
			for i, col := range sorted {
				if i == maxKeysShown {
					parts = append(parts, fmt.Sprintf("and %d more", len(sorted)-i))
					break
				}
				parts = append(parts, fmt.Sprintf("%s has %d", SanitizeKey(col.Key), len(col.Cells)))
			}
			return &Error{File: c.Name, Msg: fmt.Sprintf("the lists of the column-oriented object differ in length (%s) — "+
				"every list needs one entry per sample; fix the export", strings.Join(parts, ", "))}
		}
	}
	for i := range n {
		rec := &JSONRecord{Obj: make(map[string]json.RawMessage, len(cols))}
		var o Oversized
		for j, col := range cols {
			e := col.Cells[i]
			sz := int64(len(e.Raw))
			if e.Over != nil {
				sz = e.Over.Size
			} else {
				rec.Obj[col.Key] = e.Raw
			}
			o.Tally(j, col.Key, sz)
		}
		if o.Size > c.Limit {
			if err := c.Bad(i+1, c.fieldOfKey(o.Part), c.TooBig(o, "list")); err != nil {
				return err
			}
			continue
		}
		if err := c.FromRecord(i+1, rec); err != nil {
			return err
		}
		for _, col := range cols {
			col.Cells[i] = Cell{} // let the sample's raw values go
		}
	}
	return nil
}

// AllLists reports whether obj is a non-empty object of lists only.
func AllLists(obj map[string]json.RawMessage) bool {
	if len(obj) == 0 {
		return false
	}
	for _, v := range obj {
		if KindOf(v) != "list" || isMessages(v) {
			return false
		}
	}
	return true
}

// ListQuestion reports whether obj has a list under a question or answer
// name (--map or default).
func (cols *Columns) ListQuestion(obj map[string]json.RawMessage) bool {
	for _, f := range []int{FQuestion, FAnswer} {
		for _, n := range cols.Names[f] {
			if v, ok := LookupKey(obj, n); ok && KindOf(v) == "list" && !isMessages(v) {
				return true
			}
		}
	}
	return false
}

// StartsColumnar reports whether t (the start of a file, maybe cut short)
// opens an object whose first key is a default question or answer name
// holding a list: a column-oriented object, never a valid JSON Lines record.
func StartsColumnar(t []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(t))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	tok, err := dec.Token()
	key, ok := tok.(string)
	if err != nil || !ok {
		return false
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return false
	}
	if dec.More() {
		// A list of objects is a conversation's messages (conversation.go).
		if tok, err := dec.Token(); err != nil || tok == json.Delim('{') {
			return false
		}
	}
	return Index(defaultNames[FQuestion], key) >= 0 || Index(defaultNames[FAnswer], key) >= 0
}

// layouts are the layouts tried, for the message when none fits.
const layouts = `JSON Lines records (one {"user_input": ..., "response": ...} per line), a JSON array of records, ` +
	`an object {"samples": [...]} or promptfoo's {"tests": [...]}, a column-oriented object ({"user_input": [...], "response": [...], ...}), ` +
	`CSV with a header row, YAML (a list of records, promptfoo's tests: with test cases or file:// references, samples:, or a mapping of lists) ` +
	`and Parquet with a column per field`

// layoutError reports a file that parses but fits none of the layouts;
// found are its keys or columns, what says which ("keys", "columns").
func (c *Collector) layoutError(found []string, what string) *Error {
	one := strings.TrimSuffix(what, "s")
	return &Error{File: c.Name, Msg: fmt.Sprintf("matches no known dataset layout — tried %s; found %s: %s — "+
		"none is a field we know (question: %s; answer: %s); rename them or pass --map question=<%s>,answer=<%s>",
		layouts, what, KeyList(found), OrList(c.Cols.Names[FQuestion]), OrList(c.Cols.Names[FAnswer]), one, one)}
}

const (
	maxKeysShown = 20
	maxKeyRunes  = 40
)

// KeyList shows keys found in a file: sanitised, sorted, deduplicated and capped.
func KeyList(keys []string) string {
	s := make([]string, 0, len(keys))
	for _, k := range keys {
		s = append(s, SanitizeKey(k))
	}
	sort.Strings(s)
	s = slices.Compact(s)
	if len(s) == 0 {
		return "none"
	}
	return capped(s, maxKeysShown)
}

// SanitizeKey makes a key from the file safe to print: invalid UTF-8 and
// control or invisible characters become '?', a long key is cut short, and
// a key that is empty or holds spaces or commas is quoted.
func SanitizeKey(k string) string {
	var b strings.Builder
	n := 0
	for i, r := range k {
		if n == maxKeyRunes {
			b.WriteString("…")
			break
		}
		n++
		if _, size := utf8.DecodeRuneInString(k[i:]); r == utf8.RuneError && size <= 1 {
			r = '?'
		}
		if !unicode.IsGraphic(r) || (unicode.IsSpace(r) && r != ' ') {
			r = '?'
		}
		b.WriteRune(r)
	}
	out := b.String()
	if out == "" || strings.ContainsAny(out, " ,\"") {
		return fmt.Sprintf("%q", out)
	}
	return out
}
