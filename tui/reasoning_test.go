package tui

import (
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// A reasoning judge's thinking before the verdicts is shown folded to its
// start under them; a call that failed does not speak for the verdicts.
func TestDetailShowsTheJudgesReasoning(t *testing.T) {
	res := fixtureResults()
	res[0].Calls = []eval.CallRecord{
		{Task: "faithfulness_statements", Key: "k1"},
		{Task: "faithfulness_verdicts", Key: "k2", Error: "parse_error", Reasoning: "a failed attempt"},
		{Task: "faithfulness_verdicts", Key: "k3", Reasoning: "the policy says the number stays the same, so statement 1 is not supported..."},
	}
	res[0].ContextPrecision.Chunks[0].Reasoning = "the chunk says the identification number does not change"
	opts := fixtureOptions()
	opts.Results = res
	m := newTestModel(t, opts, 140, 90)
	press(m, "enter")
	page := flat(screenText(m))
	if !strings.Contains(page, "judge's reasoning (x shows all of it): the policy says the number stays the same") {
		t.Errorf("detail page lacks the judge's reasoning:\n%s", page)
	}
	if !strings.Contains(page, "judge's reasoning (x shows all of it): the chunk says the identification number does not change") {
		t.Errorf("detail page lacks the chunk verdict's reasoning:\n%s", page)
	}
	if strings.Contains(page, "a failed attempt") {
		t.Errorf("the failed call's reasoning is shown:\n%s", page)
	}
}
