package dataset

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// jsonRecord is one JSON object of a JSONL or JSON dataset, or a YAML or
// Parquet record turned into one. promptfoo test cases keep their inputs
// under "vars", so names are looked up there too, and then in the vars of
// the config's defaultTest.
type jsonRecord struct {
	obj      map[string]json.RawMessage
	vars     map[string]json.RawMessage
	varsSet  bool
	defaults map[string]json.RawMessage
}

func (r *jsonRecord) varsObj() map[string]json.RawMessage {
	if !r.varsSet {
		r.varsSet = true
		if raw, ok := lookupKey(r.obj, "vars"); ok && kindOf(raw) == "object" {
			_ = json.Unmarshal(raw, &r.vars) // a broken value would have failed the record's parse
		}
	}
	return r.vars
}

// keys are the record's keys, with those of its vars as "vars.<key>": a
// promptfoo test case's inputs are its vars.
func (r *jsonRecord) keys() []string {
	out := make([]string, 0, len(r.obj))
	for k := range r.obj {
		out = append(out, k)
	}
	for k := range r.varsObj() {
		out = append(out, "vars."+k)
	}
	return out
}

// lookupKey finds name in m: exactly, as a dotted path into nested objects,
// then ignoring case (spreadsheet-made data says "Question").
func lookupKey(m map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	if v, ok := m[name]; ok {
		return v, true
	}
	if head, rest, ok := strings.Cut(name, "."); ok {
		if v, ok := lookupKey(m, head); ok && kindOf(v) == "object" {
			var sub map[string]json.RawMessage
			if json.Unmarshal(v, &sub) == nil {
				if v, ok := lookupKey(sub, rest); ok {
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
func (c *columns) find(r *jsonRecord, f int) (raw json.RawMessage, key, nullKey string) {
	scopes := [...]struct {
		prefix string
		m      map[string]json.RawMessage
	}{{"", r.obj}, {scopeVars, r.varsObj()}, {scopeDefaults, r.defaults}}
	for _, scope := range scopes {
		if scope.m == nil {
			continue
		}
		for _, name := range c.names[f] {
			v, ok := lookupKey(scope.m, name)
			if !ok {
				continue
			}
			if isNull(v) {
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
func (r *jsonRecord) description(testCase bool) (json.RawMessage, string) {
	if !testCase && r.varsObj() == nil {
		return nil, ""
	}
	if v, ok := lookupKey(r.obj, "description"); ok && !isNull(v) {
		return v, "description"
	}
	return nil, ""
}

// fromJSON turns one JSON value into a sample, or reports why it cannot.
func (c *collector) fromJSON(line int, b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		msg := fmt.Sprintf("is %s, not an object", aKind(kindOf(b)))
		var v json.RawMessage
		if err := json.Unmarshal(b, &v); err != nil {
			msg = "is not valid JSON: " + jsonErrText(err)
		}
		msg += ` — each record must be an object like {"user_input": ..., "response": ...}`
		if c.unit == unitLine && b[0] == '[' {
			msg += "; a file holding one JSON array must be read as JSON: name it .json or pass --format json"
		}
		return c.bad(line, "", msg)
	}
	rec := &jsonRecord{}
	if err := json.Unmarshal(b, &rec.obj); err != nil {
		return c.bad(line, "", fmt.Sprintf("invalid JSON: %v — fix the record", jsonErrText(err)))
	}
	return c.fromRecord(line, rec)
}

// fromRecord turns one parsed JSON object into a sample.
func (c *collector) fromRecord(line int, rec *jsonRecord) error {
	if rec.defaults == nil {
		rec.defaults = c.defaults
	}
	c.records++
	// Each field's value, looked up once; known: rec has a key (or vars
	// key) of one of our fields.
	var raws [nFields]json.RawMessage
	var keys, nullKeys [nFields]string
	known := false
	for f := range nFields {
		raws[f], keys[f], nullKeys[f] = c.cols.find(rec, f)
		known = known || raws[f] != nil || nullKeys[f] != ""
	}
	c.known = c.known || known
	if c.firstKeys == nil {
		c.firstKeys, c.firstFile = rec.keys(), c.name
	}
	if raws[fQuestion] != nil && isMessages(raws[fQuestion]) {
		if c.mapped(fQuestion) {
			c.seen[fQuestion] = true
		}
		return c.nested(line, rec, keys[fQuestion], raws[fQuestion])
	}
	s := eval.Sample{Line: line}
	idKey := ""
	for f := range nFields {
		raw, key, nullKey := raws[f], keys[f], nullKeys[f]
		if raw == nil && f == fID && !c.mapped(f) {
			raw, key = rec.description(c.testCases)
			idKey = key
		}
		if raw == nil {
			if nullKey != "" && c.mapped(f) {
				c.seen[f] = true
			}
			if !required(f) {
				continue
			}
			if nullKey != "" {
				return c.bad(line, fieldNames[f], fmt.Sprintf("is null (key %q) — give it a string value (an empty answer is \"\")", nullKey))
			}
			v, ok := rec.obj["samples"]
			samplesList := ok && kindOf(v) == "list"
			if c.records == 1 && !known && !c.skip && !samplesList {
				// Not one key we know: the file is not in a layout we read.
				return c.layoutError(rec.keys(), "keys")
			}
			msg := c.cols.missingMsg(f, rec.keys(), "key")
			if samplesList {
				msg += `; this looks like a JSON file with a "samples" list: pass --format json`
			}
			return c.bad(line, fieldNames[f], msg)
		}
		if c.mapped(f) {
			c.seen[f] = true
		}
		if err := setField(&s, f, key, raw); err != nil {
			return c.bad(line, fieldNames[f], fmt.Sprintf("key %q %v", key, err))
		}
	}
	turn, refused, err := c.flatTurn(line, rec, &s)
	switch {
	case refused:
		return err
	case turn:
		return c.addTurn(s, idKey)
	}
	return c.add(s, idKey)
}

// setField decodes the JSON value raw, read from key, into field f of s.
func setField(s *eval.Sample, f int, key string, raw json.RawMessage) error {
	var err error
	switch f {
	case fQuestion:
		s.Question, err = jsonText(raw)
	case fAnswer:
		s.Answer, err = jsonText(raw)
	case fContexts:
		s.Contexts, err = jsonContexts(raw)
	case fReference:
		s.Reference, err = jsonReference(raw)
	case fID:
		s.ID, err = jsonID(raw)
	}
	if err != nil {
		return err
	}
	return fileVar(key, *s, f)
}

// defaultField is field f's value in the promptfoo config's defaultTest
// vars, for a record that has no column of its own for it (a CSV tests
// file); nil when there is none.
func (c *collector) defaultField(f int) (raw json.RawMessage, key string) {
	if c.defaults == nil {
		return nil, ""
	}
	raw, key, _ = c.cols.find(&jsonRecord{obj: map[string]json.RawMessage{}, varsSet: true, defaults: c.defaults}, f)
	return raw, key
}

// fileVar refuses a promptfoo var holding a file:// reference: promptfoo
// would put the file's content there, and judging the reference's text
// instead would score the wrong input without a word.
func fileVar(key string, s eval.Sample, f int) error {
	if !strings.HasPrefix(key, scopeVars) && !strings.HasPrefix(key, scopeDefaults) {
		return nil
	}
	var texts []string
	switch f {
	case fQuestion:
		texts = []string{s.Question}
	case fAnswer:
		texts = []string{s.Answer}
	case fContexts:
		texts = s.Contexts
	case fReference:
		texts = []string{s.Reference}
	}
	for _, t := range texts {
		if strings.HasPrefix(strings.TrimSpace(t), fileScheme) {
			return fmt.Errorf("is a file reference (%.200q) — ragscope does not read files named in vars; put the text itself in the test case", strings.TrimSpace(t))
		}
	}
	return nil
}

// jsonErrText drops the "json: " noise and adds where in the record a
// syntax error is.
func jsonErrText(err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("%s (at byte %d of the record)", strings.TrimPrefix(se.Error(), "json: "), se.Offset)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
