package prompts_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/prompts"
)

// The fake judge's generic entailment reply follows the contract: one
// verdict per statement of the rendered prompt, odd-numbered ones (and any
// the premise contains) entailed.
func TestGenericEntailmentReply(t *testing.T) {
	text, err := prompts.Embedded().Render(prompts.TaskEntailmentVerdicts, "en", prompts.Data{
		Text: "The sky is blue.", Statements: []string{"one", "The sky is blue.", "three", "four"}})
	if err != nil {
		t.Fatal(err)
	}
	rep := fakejudge.Generic(&fakejudge.Request{Task: prompts.TaskEntailmentVerdicts, Messages: []fakejudge.Message{{Role: "user", Content: text}}})
	if len(rep.Choices) != 1 {
		t.Fatalf("reply %+v", rep)
	}
	if err := prompts.ValidateReply(prompts.TaskEntailmentVerdicts, rep.Choices[0]); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Verdicts []struct {
			Statement string
			Verdict   int
		}
	}
	if err := json.Unmarshal([]byte(rep.Choices[0]), &got); err != nil {
		t.Fatal(err)
	}
	var verdicts []int
	for _, v := range got.Verdicts {
		verdicts = append(verdicts, v.Verdict)
	}
	if !slices.Equal(verdicts, []int{1, 1, 1, 0}) || got.Verdicts[1].Statement != "The sky is blue." {
		t.Errorf("verdicts %+v", got.Verdicts)
	}
}
