package prompts

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSchemas(t *testing.T) {
	for _, task := range Tasks {
		raw, err := Schema(task)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(raw) {
			t.Errorf("%s: schema is not valid JSON", task)
		}
	}
	if _, err := Schema("faithfulness"); err == nil || !strings.Contains(err.Error(), "valid tasks") {
		t.Errorf("unknown task: error %v", err)
	}
}

func TestValidateReply(t *testing.T) {
	tests := []struct {
		task, reply, want string // want "" means valid
	}{
		{TaskFaithfulnessStatements, `{"statements": ["a", "b"]}`, ""},
		{TaskFaithfulnessStatements, `{"statements": []}`, ""},
		{TaskFaithfulnessStatements, ` {"statements": ["a"]} ` + "\n", ""},
		{TaskFaithfulnessStatements, `{"statements": "a"}`, `reply.statements: expected a list, got the string "a"`},
		{TaskFaithfulnessStatements, `{"statements": [1]}`, `reply.statements[0]: expected a string, got the number 1`},
		{TaskFaithfulnessStatements, `{}`, `missing key "statements"`},
		{TaskFaithfulnessStatements, `{"statements": [], "extra": 1}`, `unexpected key "extra"`},
		{TaskFaithfulnessStatements, "```json\n{\"statements\": []}\n```", `not valid JSON`},
		{TaskFaithfulnessStatements, `{"statements": []} trailing`, `text after the JSON value`},
		{TaskFaithfulnessStatements, ``, `not valid JSON`},
		{TaskFaithfulnessVerdicts, `{"statements": [{"statement": "s", "chunk": 2, "quote": "q", "reason": "r", "verdict": 1}]}`, ""},
		{TaskFaithfulnessVerdicts, `{"statements": [{"statement": "s", "chunk": null, "quote": "", "reason": "r", "verdict": 0}]}`, ""},
		{TaskFaithfulnessVerdicts, `{"statements": [{"statement": "s", "chunk": 1, "quote": "q", "reason": "r", "verdict": 2}]}`, `reply.statements[0].verdict: 2 is not one of 0, 1`},
		{TaskFaithfulnessVerdicts, `{"statements": [{"statement": "s", "chunk": 1, "quote": "q", "reason": "r", "verdict": "1"}]}`, `expected an integer, got the string "1"`},
		{TaskFaithfulnessVerdicts, `{"statements": [{"statement": "s", "chunk": 1, "quote": "q", "reason": "r", "verdict": 0.5}]}`, `expected an integer, got 0.5`},
		{TaskFaithfulnessVerdicts, `{"statements": [{"statement": "s", "chunk": 1, "quote": "q", "verdict": 1}]}`, `reply.statements[0]: missing key "reason"`},
		// Contract 1's shape: strict validation wants the evidence keys
		// (the judge still reads such a reply, as "no evidence given").
		{TaskFaithfulnessVerdicts, `{"statements": [{"statement": "s", "reason": "r", "verdict": 1}]}`, `reply.statements[0]: missing key "chunk"`},
		{TaskFaithfulnessVerdicts, `{"statements": [{"statement": "s", "chunk": "2", "quote": "q", "reason": "r", "verdict": 1}]}`, `reply.statements[0].chunk: expected an integer, got the string "2"`},
		{TaskFaithfulnessVerdicts, `{"statements": [{"statement": "s", "chunk": 1, "quote": null, "reason": "r", "verdict": 1}]}`, `reply.statements[0].quote: expected a string, got null`},
		{TaskAnswerRelevancyQuestion, `{"question": "q?", "noncommittal": 0}`, ""},
		{TaskAnswerRelevancyQuestion, `{"question": null, "noncommittal": 0}`, `reply.question: expected a string, got null`},
		{TaskAnswerRelevancyQuestion, `{"question": "q?", "noncommittal": true}`, `expected an integer, got true`},
		{TaskContextPrecisionVerdict, `{"reason": "r", "verdict": 0}`, ""},
		{TaskContextPrecisionVerdict, `[{"reason": "r", "verdict": 0}]`, `reply: expected an object, got a list`},
		{TaskContextUtilizationVerdict, `{"reason": "r", "verdict": 1}`, ""},
		{TaskContextUtilizationVerdict, `{"reason": "r", "verdict": 2}`, `reply.verdict: 2 is not one of 0, 1`},
		{TaskContextRecallClassifications, `{"classifications": [{"statement": "s", "chunk": 1, "quote": "q", "reason": "r", "attributed": 1}]}`, ""},
		{TaskContextRecallClassifications, `{"classifications": [{"statement": "s", "chunk": null, "quote": "", "reason": "r", "attributed": 0}]}`, ""},
		{TaskContextRecallClassifications, `{"classifications": [{"statement": "s", "chunk": 1, "quote": "q", "reason": "r", "verdict": 1}]}`, `missing key "attributed"`},
		{TaskEntailmentVerdicts, `{"verdicts": [{"statement": "s", "reason": "r", "verdict": 1}, {"statement": "t", "reason": "r", "verdict": 0}]}`, ""},
		{TaskEntailmentVerdicts, `{"verdicts": []}`, ""},
		{TaskEntailmentVerdicts, `{"verdicts": [{"statement": "s", "reason": "r", "verdict": 2}]}`, `reply.verdicts[0].verdict: 2 is not one of 0, 1`},
		{TaskEntailmentVerdicts, `{"verdicts": [{"statement": "s", "verdict": 1}]}`, `reply.verdicts[0]: missing key "reason"`},
		{TaskEntailmentVerdicts, `{"statements": [{"statement": "s", "reason": "r", "verdict": 1}]}`, `missing key "verdicts"`},
		{"nope", `{}`, `unknown task "nope"`},
	}
	for _, tt := range tests {
		err := ValidateReply(tt.task, tt.reply)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s %s: %v", tt.task, tt.reply, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s %s: error %v, want %q", tt.task, tt.reply, err, tt.want)
		}
	}
}

// OpenAI's strict mode accepts a schema only when every object lists all
// its properties as required and allows no others; "none" must be a null
// in the type, never an optional key.
func TestSchemasAreStrict(t *testing.T) {
	var check func(task, path string, n map[string]any)
	check = func(task, path string, n map[string]any) {
		if props, ok := n["properties"].(map[string]any); ok {
			req := map[string]bool{}
			for _, r := range n["required"].([]any) {
				req[r.(string)] = true
			}
			for k, v := range props {
				if !req[k] {
					t.Errorf("%s %s: property %q is not required", task, path, k)
				}
				check(task, path+"."+k, v.(map[string]any))
			}
			if n["additionalProperties"] != false {
				t.Errorf("%s %s: additionalProperties is not false", task, path)
			}
		}
		if items, ok := n["items"].(map[string]any); ok {
			check(task, path+"[]", items)
		}
	}
	for _, task := range Tasks {
		raw, _ := Schema(task)
		var n map[string]any
		if err := json.Unmarshal(raw, &n); err != nil {
			t.Fatal(err)
		}
		check(task, "reply", n)
	}
	for _, task := range []string{TaskFaithfulnessVerdicts, TaskContextRecallClassifications} {
		raw, _ := Schema(task)
		if !strings.Contains(string(raw), `"chunk":{"type":["integer","null"]},"quote":{"type":"string"},"reason"`) {
			t.Errorf("%s: the evidence must be nullable and come before the reason: %s", task, raw)
		}
	}
}
