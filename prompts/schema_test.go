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
		{TaskFaithfulnessVerdicts, `{"statements": [{"statement": "s", "reason": "r", "verdict": 1}]}`, ""},
		{TaskFaithfulnessVerdicts, `{"statements": [{"statement": "s", "reason": "r", "verdict": 2}]}`, `reply.statements[0].verdict: 2 is not one of 0, 1`},
		{TaskFaithfulnessVerdicts, `{"statements": [{"statement": "s", "reason": "r", "verdict": "1"}]}`, `expected an integer, got the string "1"`},
		{TaskFaithfulnessVerdicts, `{"statements": [{"statement": "s", "reason": "r", "verdict": 0.5}]}`, `expected an integer, got 0.5`},
		{TaskFaithfulnessVerdicts, `{"statements": [{"statement": "s", "verdict": 1}]}`, `reply.statements[0]: missing key "reason"`},
		{TaskAnswerRelevancyQuestion, `{"question": "q?", "noncommittal": 0}`, ""},
		{TaskAnswerRelevancyQuestion, `{"question": null, "noncommittal": 0}`, `reply.question: expected a string, got null`},
		{TaskAnswerRelevancyQuestion, `{"question": "q?", "noncommittal": true}`, `expected an integer, got true`},
		{TaskContextPrecisionVerdict, `{"reason": "r", "verdict": 0}`, ""},
		{TaskContextPrecisionVerdict, `[{"reason": "r", "verdict": 0}]`, `reply: expected an object, got a list`},
		{TaskContextRecallClassifications, `{"classifications": [{"statement": "s", "reason": "r", "attributed": 1}]}`, ""},
		{TaskContextRecallClassifications, `{"classifications": [{"statement": "s", "reason": "r", "verdict": 1}]}`, `missing key "attributed"`},
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
