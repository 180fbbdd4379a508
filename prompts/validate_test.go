package prompts

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// schemaNode is the subset of JSON schema the contracts use.
type schemaNode struct {
	Type                 schemaType             `json:"type"`
	Properties           map[string]*schemaNode `json:"properties"`
	Required             []string               `json:"required"`
	AdditionalProperties *bool                  `json:"additionalProperties"`
	Items                *schemaNode            `json:"items"`
	Enum                 []any                  `json:"enum"` // numbers (float64) or strings
}

// ValidateReply checks that content is exactly one JSON value that follows
// the task's contract, to the letter: no extra key, no string for an
// integer, no 2 for a verdict. The judge reads replies more leniently (see
// eval/llm); the tests hold the worked examples and the fake judge to this.
func ValidateReply(task, content string) error {
	raw, err := Schema(task)
	if err != nil {
		return err
	}
	var s schemaNode
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("prompts: schema of %s: %w", task, err)
	}
	dec := json.NewDecoder(strings.NewReader(content))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("%s reply is not valid JSON: %w", task, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%s reply has text after the JSON value", task)
	}
	if err := validate(v, &s, "reply"); err != nil {
		return fmt.Errorf("%s %w", task, err)
	}
	return nil
}

// schemaType is a type name, or a list of them (["integer","null"]).
type schemaType []string

func (t *schemaType) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*t = schemaType{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*t = many
	return nil
}

func validate(v any, s *schemaNode, path string) error {
	if v == nil && slices.Contains(s.Type, "null") {
		return nil
	}
	typ := ""
	for _, t := range s.Type {
		if t != "null" {
			typ = t
			break
		}
	}
	switch typ {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: expected an object, got %s", path, describe(v))
		}
		for _, k := range s.Required {
			if _, ok := m[k]; !ok {
				return fmt.Errorf("%s: missing key %q", path, k)
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys) // first offending key deterministic
		for _, k := range keys {
			ps, ok := s.Properties[k]
			if !ok {
				if s.AdditionalProperties != nil && !*s.AdditionalProperties {
					return fmt.Errorf("%s: unexpected key %q", path, k)
				}
				continue
			}
			if err := validate(m[k], ps, path+"."+k); err != nil {
				return err
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: expected a list, got %s", path, describe(v))
		}
		for i, x := range a {
			if err := validate(x, s.Items, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: expected a string, got %s", path, describe(v))
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, any(str)) {
			return fmt.Errorf("%s: %q is not one of %s", path, str, joinEnum(s.Enum))
		}
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return fmt.Errorf("%s: expected an integer, got %s", path, describe(v))
		}
		i, err := n.Int64()
		if err != nil {
			return fmt.Errorf("%s: expected an integer, got %s", path, n)
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, any(float64(i))) {
			return fmt.Errorf("%s: %d is not one of %s", path, i, joinEnum(s.Enum))
		}
	}
	return nil
}

func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", v)
	case json.Number:
		return "the number " + v.String()
	case bool:
		return fmt.Sprintf("%t", v)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func joinEnum(xs []any) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
