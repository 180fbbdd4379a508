package dataset

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// jsonRecord is one JSON object of a JSONL or JSON dataset. promptfoo test
// cases keep their inputs under "vars", so names are looked up there too.
type jsonRecord struct {
	obj     map[string]json.RawMessage
	vars    map[string]json.RawMessage
	varsSet bool
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

func (r *jsonRecord) keys() []string {
	out := make([]string, 0, len(r.obj))
	for k := range r.obj {
		out = append(out, k)
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

// find returns the value of field f: the first of its names present with a
// non-null value at the top level, then under "vars". A null is treated as
// absent (exporters write null for a missing reference); nullKey reports
// the first null met, for the message when nothing else is found.
func (c *columns) find(r *jsonRecord, f int) (raw json.RawMessage, key, nullKey string) {
	for _, scope := range []string{"", "vars."} {
		m := r.obj
		if scope != "" {
			if m = r.varsObj(); m == nil {
				break
			}
		}
		for _, name := range c.names[f] {
			v, ok := lookupKey(m, name)
			if !ok {
				continue
			}
			if isNull(v) {
				if nullKey == "" {
					nullKey = scope + name
				}
				continue
			}
			return v, scope + name, ""
		}
	}
	return nil, "", nullKey
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

// knows reports whether rec has a key (or vars key) of any of our fields.
func (c *collector) knows(rec *jsonRecord) bool {
	for f := range nFields {
		if raw, _, nullKey := c.cols.find(rec, f); raw != nil || nullKey != "" {
			return true
		}
	}
	return false
}

// fromRecord turns one parsed JSON object into a sample.
func (c *collector) fromRecord(line int, rec *jsonRecord) error {
	c.records++
	known := c.knows(rec)
	c.known = c.known || known
	if c.firstKeys == nil {
		c.firstKeys = rec.keys()
	}
	s := eval.Sample{Line: line}
	for f := range nFields {
		raw, key, nullKey := c.cols.find(rec, f)
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
			if v, ok := rec.obj["samples"]; c.records == 1 && !known && !c.skip && !(ok && kindOf(v) == "list") {
				// Not one key we know: the file is not in a layout we read.
				return c.layoutError(rec.keys(), "keys")
			}
			msg := c.cols.missingMsg(f, rec.keys(), "key")
			if v, ok := rec.obj["samples"]; ok && kindOf(v) == "list" {
				msg += `; this looks like a JSON file with a "samples" list: pass --format json`
			}
			return c.bad(line, fieldNames[f], msg)
		}
		if c.mapped(f) {
			c.seen[f] = true
		}
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
			return c.bad(line, fieldNames[f], fmt.Sprintf("key %q %v", key, err))
		}
	}
	return c.add(s)
}

// jsonErrText drops the "json: " noise and adds where in the record a
// syntax error is.
func jsonErrText(err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("%s (at byte %d of the record)", strings.TrimPrefix(se.Error(), "json: "), se.Offset)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
