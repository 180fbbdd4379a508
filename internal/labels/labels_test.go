package labels

import (
	"errors"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/internal/exit"
)

func TestParseLabelsErrorsNameFileAndLine(t *testing.T) {
	good := `{"sample": "s0", "task": "faithfulness_verdicts", "item": "first statement", "label": 1, "note": "n"}`
	for _, tc := range []struct {
		name, line, want string
	}{
		{"label 2", `{"sample": "s0", "task": "faithfulness_verdicts", "item": "x", "label": 2}`, `labels.jsonl:3: "label" must be 0 or 1`},
		{"label true", `{"sample": "s0", "task": "faithfulness_verdicts", "item": "x", "label": true}`, `labels.jsonl:3: "label" must be 0 or 1`},
		{"label string", `{"sample": "s0", "task": "faithfulness_verdicts", "item": "x", "label": "1"}`, `labels.jsonl:3: "label" must be 0 or 1`},
		{"no label", `{"sample": "s0", "task": "faithfulness_verdicts", "item": "x"}`, `labels.jsonl:3: "label" is missing`},
		{"no sample", `{"task": "faithfulness_verdicts", "item": "x", "label": 1}`, `labels.jsonl:3: "sample" is missing`},
		{"no item", `{"sample": "s0", "task": "faithfulness_verdicts", "label": 1}`, `labels.jsonl:3: "item" is missing`},
		{"unknown task", `{"sample": "s0", "task": "faithfulness_statements", "item": "x", "label": 1}`, `labels.jsonl:3: "task": "faithfulness_statements" is not one of`},
		{"no criterion's name", `{"sample": "s0", "task": "Polite", "item": "verdict", "label": 1}`, `labels.jsonl:3: "task": "Polite" is not one of faithfulness_verdicts`},
		{"not json", `{"sample": `, `labels.jsonl:3: not a JSON object`},
		{"note not a string", `{"sample": "s0", "task": "faithfulness_verdicts", "item": "x", "label": 1, "note": 3}`, `labels.jsonl:3: "note" must be a string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("labels.jsonl", strings.NewReader(good+"\n\n"+tc.line+"\n"))
			var ue exit.UsageError
			if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a usage error containing %q", err, tc.want)
			}
		})
	}
	lines, err := Parse("labels.jsonl", strings.NewReader("\ufeff"+good+"\n"+`{"sample": 3, "task": "context_precision_verdict", "item": "2", "label": 0}`+"\n"+
		`{"sample": "s0", "task": "polite", "item": "verdict", "label": 0}`))
	if err != nil || len(lines) != 3 || lines[1].Sample != "3" || lines[1].Line != 2 || lines[0].Note != "n" || lines[2].Task != "polite" {
		t.Fatalf("good lines: %+v, %v", lines, err)
	}
}
