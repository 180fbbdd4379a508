package prompts

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// The reply contracts as strict JSON schemas (every property required, no
// others allowed), in the form OpenAI-compatible structured outputs accept.
// Written out by hand rather than marshalled from maps because property
// order matters: models fill properties in schema order, and the reason
// must come before the verdict it justifies.
var schemas = map[string]string{
	TaskFaithfulnessStatements: `{"type":"object","properties":{"statements":{"type":"array","items":{"type":"string"}}},"required":["statements"],"additionalProperties":false}`,
	TaskFaithfulnessVerdicts: `{"type":"object","properties":{"statements":{"type":"array","items":{"type":"object","properties":{` +
		`"statement":{"type":"string"},` + evidenceProperties + `,"reason":{"type":"string"},"verdict":{"type":"integer","enum":[0,1]}},` +
		`"required":["statement","chunk","quote","reason","verdict"],"additionalProperties":false}}},"required":["statements"],"additionalProperties":false}`,
	TaskAnswerRelevancyQuestion: `{"type":"object","properties":{"question":{"type":"string"},"noncommittal":{"type":"integer","enum":[0,1]}},` +
		`"required":["question","noncommittal"],"additionalProperties":false}`,
	TaskContextPrecisionVerdict: chunkVerdictSchema,
	// The same reply as context precision's: only the prompt differs.
	TaskContextUtilizationVerdict: chunkVerdictSchema,
	TaskContextRecallClassifications: `{"type":"object","properties":{"classifications":{"type":"array","items":{"type":"object","properties":{` +
		`"statement":{"type":"string"},` + evidenceProperties + `,"reason":{"type":"string"},"attributed":{"type":"integer","enum":[0,1]}},` +
		`"required":["statement","chunk","quote","reason","attributed"],"additionalProperties":false}}},"required":["classifications"],"additionalProperties":false}`,
	TaskAnswerCorrectnessClassifications: `{"type":"object","properties":{"TP":` + correctnessList + `,"FP":` + correctnessList + `,"FN":` + correctnessList +
		`},"required":["TP","FP","FN"],"additionalProperties":false}`,
	TaskContextEntityRecallEntities: `{"type":"object","properties":{"entities":{"type":"array","items":{"type":"string"}}},"required":["entities"],"additionalProperties":false}`,
	// One verdict per numbered statement, reason before verdict; no
	// evidence keys: the premise is one text, so there is no chunk to cite.
	TaskEntailmentVerdicts: `{"type":"object","properties":{"verdicts":{"type":"array","items":{"type":"object","properties":{` +
		`"statement":{"type":"string"},"reason":{"type":"string"},"verdict":{"type":"integer","enum":[0,1]}},` +
		`"required":["statement","reason","verdict"],"additionalProperties":false}}},"required":["verdicts"],"additionalProperties":false}`,
}

const correctnessList = `{"type":"array","items":{"type":"object","properties":{"statement":{"type":"string"},"reason":{"type":"string"}},` +
	`"required":["statement","reason"],"additionalProperties":false}}`

const chunkVerdictSchema = `{"type":"object","properties":{"reason":{"type":"string"},"verdict":{"type":"integer","enum":[0,1]}},` +
	`"required":["reason","verdict"],"additionalProperties":false}`

// ContractVersion is the version of the reply contract. 2 added the
// evidence of faithfulness verdicts and context-recall classifications
// (chunk, quote). A changed schema is part of every json_schema request and
// a changed prompt of every request, so their cache keys change with it;
// a reply cached under an unchanged key (an override of the old text with
// json_object) has no evidence and is read as "no evidence given".
const ContractVersion = 2

// evidenceProperties come before the reason, so that a model fills them
// first: it finds the passage, then argues from it. Strict mode wants every
// property required; "none" is null, not a missing key.
const evidenceProperties = `"chunk":{"type":["integer","null"]},"quote":{"type":"string"}`

// Schema returns the strict JSON schema of the reply to task.
func Schema(task string) (json.RawMessage, error) {
	s, ok := schemas[task]
	if !ok {
		return nil, fmt.Errorf("prompts: unknown task %q (valid tasks: %s)", task, strings.Join(allTasks[:], ", "))
	}
	return json.RawMessage(s), nil
}

// schemaNode is the subset of JSON schema the contracts use.
type schemaNode struct {
	Type                 schemaType             `json:"type"`
	Properties           map[string]*schemaNode `json:"properties"`
	Required             []string               `json:"required"`
	AdditionalProperties *bool                  `json:"additionalProperties"`
	Items                *schemaNode            `json:"items"`
	Enum                 []int64                `json:"enum"`
}

// ValidateReply checks that content is exactly one JSON value that follows
// the task's contract. Endpoints without strict structured outputs (or
// judges that ignore them) do send extra keys, strings for integers or a 2
// for a verdict; such a reply must be retried, not scored.
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
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: expected a string, got %s", path, describe(v))
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
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, i) {
			return fmt.Errorf("%s: %d is not one of %s", path, i, joinInts(s.Enum))
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

func joinInts(xs []int64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ", ")
}
