package read

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// JSONRecord is one JSON object of a JSONL or JSON dataset, or a YAML or
// Parquet record turned into one. promptfoo test cases keep their inputs
// under "vars", so names are looked up there too, and then in the vars of
// the config's defaultTest.
type JSONRecord struct {
	Obj      map[string]json.RawMessage
	vars     map[string]json.RawMessage
	varsSet  bool
	defaults map[string]json.RawMessage
}

func (r *JSONRecord) varsObj() map[string]json.RawMessage {
	if !r.varsSet {
		r.varsSet = true
		if raw, ok := LookupKey(r.Obj, "vars"); ok && KindOf(raw) == "object" {
			_ = json.Unmarshal(raw, &r.vars) // a broken value would have failed the record's parse
		}
	}
	return r.vars
}

// keys are the record's keys, with those of its vars as "vars.<key>": a
// promptfoo test case's inputs are its vars.
func (r *JSONRecord) keys() []string {
	out := slices.Collect(maps.Keys(r.Obj))
	for k := range r.varsObj() {
		out = append(out, "vars."+k)
	}
	return out
}

// LookupKey finds name in m: exactly, as a dotted path into nested objects,
// then ignoring case (spreadsheet-made data says "Question").
func LookupKey(m map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	if v, ok := m[name]; ok {
		return v, true
	}
	if head, rest, ok := strings.Cut(name, "."); ok {
		if v, ok := LookupKey(m, head); ok && KindOf(v) == "object" {
			var sub map[string]json.RawMessage
			if json.Unmarshal(v, &sub) == nil {
				if v, ok := LookupKey(sub, rest); ok {
					return v, true
				}
			}
		}
	}
	for k, v := range m {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

// Scopes a field's names are looked up in, in order.
const (
	scopeVars     = "vars."
	scopeDefaults = "defaultTest.vars."
)

// find returns the value of field f: the first of its names present with a
// non-null value at the top level, then under "vars", then in defaultTest's
// vars. A null is treated as absent (exporters write null for a missing
// reference); nullKey reports the first null met, for the message when
// nothing else is found.
func (c *Columns) find(r *JSONRecord, f int) (raw json.RawMessage, key, nullKey string) {
	scopes := [...]struct {
		prefix string
		m      map[string]json.RawMessage
	}{{"", r.Obj}, {scopeVars, r.varsObj()}, {scopeDefaults, r.defaults}}
	for _, scope := range scopes {
		if scope.m == nil {
			continue
		}
		for _, name := range c.Names[f] {
			v, ok := LookupKey(scope.m, name)
			if !ok {
				continue
			}
			if IsNull(v) {
				if nullKey == "" {
					nullKey = scope.prefix + name
				}
				continue
			}
			return v, scope.prefix + name, ""
		}
	}
	return nil, "", nullKey
}

// description is a test case's description, its id when it has none;
// testCase says the record was read as a promptfoo test case.
func (r *JSONRecord) description(testCase bool) (json.RawMessage, string) {
	if !testCase && r.varsObj() == nil {
		return nil, ""
	}
	if v, ok := LookupKey(r.Obj, "description"); ok && !IsNull(v) {
		return v, "description"
	}
	return nil, ""
}

// asJSON is the advice for a JSON document met where records are read a
// line each: the extension picks the reader, and a log is JSON Lines.
func (c *Collector) asJSON(holding string) string {
	if c.FollowLog {
		return "; this looks like a JSON file holding " + holding + ", and a followed log must be JSON Lines: one record per line"
	}
	return "; this looks like a JSON file holding " + holding + ": name it .json so that it is read as one JSON document"
}

// TrimLine is a JSON Lines line as it is read: without spaces around it,
// nor the BOM that opens a line where two exported files were joined.
func TrimLine(b []byte) []byte {
	return bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(b), []byte("\uFEFF")))
}

// FromJSON turns one JSON value into a sample, or reports why it cannot.
func (c *Collector) FromJSON(line int, b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		msg := fmt.Sprintf("is %s, not an object", AKind(KindOf(b)))
		var v json.RawMessage
		if err := json.Unmarshal(b, &v); err != nil {
			msg = "is not valid JSON: " + JSONErrText(err)
		}
		msg += ` — each record must be an object like {"user_input": ..., "response": ...}`
		if c.Unit == UnitLine && len(b) > 0 && b[0] == '[' {
			msg += c.asJSON("one JSON array")
		}
		return c.Bad(line, "", msg)
	}
	rec := &JSONRecord{}
	if err := json.Unmarshal(b, &rec.Obj); err != nil {
		return c.Bad(line, "", fmt.Sprintf("invalid JSON: %v — fix the record", JSONErrText(err)))
	}
	return c.FromRecord(line, rec)
}

// FromRecord turns one parsed JSON object into a sample.
func (c *Collector) FromRecord(line int, rec *JSONRecord) error {
	if rec.defaults == nil {
		rec.defaults = c.Defaults
	}
	c.Parsed++
	// Each field's value, looked up once; known: rec has a key (or vars
	// key) of one of our fields.
	var raws [NFields]json.RawMessage
	var keys, nullKeys [NFields]string
	known := false
	for f := range NFields {
		raws[f], keys[f], nullKeys[f] = c.Cols.find(rec, f)
		known = known || raws[f] != nil || nullKeys[f] != ""
	}
	c.known = c.known || known
	if c.FirstKeys == nil {
		c.FirstKeys, c.FirstFile = rec.keys(), c.Name
	}
	if raws[FQuestion] != nil && isMessages(raws[FQuestion]) {
		c.seen[FQuestion] = true
		return c.nested(line, rec, keys[FQuestion], raws[FQuestion])
	}
	s := eval.Sample{Line: line}
	idKey := ""
	for f := range NFields {
		raw, key, nullKey := raws[f], keys[f], nullKeys[f]
		if raw == nil && f == FID && !c.Cols.mapped[f] {
			raw, key = rec.description(c.TestCases)
			idKey = key
		}
		if raw == nil {
			if nullKey != "" {
				c.seen[f] = true
			}
			if !required(f) {
				continue
			}
			if nullKey != "" {
				return c.Bad(line, FieldNames[f], fmt.Sprintf("is null (key %q) — give it a string value (an empty answer is \"\")", nullKey))
			}
			samplesList := KindOf(rec.Obj["samples"]) == "list"
			if c.Parsed == 1 && !known && !c.Skip && !samplesList {
				// Not one key we know: the file is not in a layout we read.
				return c.layoutError(rec.keys(), "keys")
			}
			msg := c.Cols.missingMsg(f, rec.keys(), "key")
			if samplesList {
				msg += c.asJSON(`a "samples" list`)
			}
			return c.Bad(line, FieldNames[f], msg)
		}
		c.seen[f] = true
		if err := setField(&s, f, key, raw); err != nil {
			return c.Bad(line, FieldNames[f], fmt.Sprintf("key %q %v", key, err))
		}
	}
	return c.addFlat(line, rec, s, idKey)
}

// setField decodes the JSON value raw, read from key, into field f of s.
func setField(s *eval.Sample, f int, key string, raw json.RawMessage) error {
	var err error
	var texts []string // the texts a file:// reference may hide in
	switch f {
	case FQuestion:
		s.Question, err = jsonText(raw)
		texts = []string{s.Question}
	case FAnswer:
		s.Answer, err = jsonText(raw)
		texts = []string{s.Answer}
	case FContexts:
		s.Contexts, err = jsonContexts(raw)
		texts = s.Contexts
	case FReference:
		s.Reference, err = jsonReference(raw)
		texts = []string{s.Reference}
	case FID:
		s.ID, err = jsonID(raw)
	}
	if err != nil {
		return err
	}
	return fileVar(key, texts)
}

// defaultField is field f's value in the promptfoo config's defaultTest
// vars, for a record that has no column of its own for it (a CSV tests
// file); nil when there is none.
func (c *Collector) defaultField(f int) (raw json.RawMessage, key string) {
	if c.Defaults == nil {
		return nil, ""
	}
	raw, key, _ = c.Cols.find(&JSONRecord{Obj: map[string]json.RawMessage{}, varsSet: true, defaults: c.Defaults}, f)
	return raw, key
}

// FileScheme starts a promptfoo reference to a file.
const FileScheme = "file://"

// fileVar refuses a promptfoo var holding a file:// reference: promptfoo
// would put the file's content there, and judging the reference's text
// instead would score the wrong input without a word.
func fileVar(key string, texts []string) error {
	if !strings.HasPrefix(key, scopeVars) && !strings.HasPrefix(key, scopeDefaults) {
		return nil
	}
	for _, t := range texts {
		if strings.HasPrefix(strings.TrimSpace(t), FileScheme) {
			return fmt.Errorf("is a file reference (%.200q) — ragscope does not read files named in vars; put the text itself in the test case", strings.TrimSpace(t))
		}
	}
	return nil
}

// JSONErrText drops the "json: " noise and adds where in the record a
// syntax error is.
func JSONErrText(err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("%s (at byte %d of the record)", strings.TrimPrefix(se.Error(), "json: "), se.Offset)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
