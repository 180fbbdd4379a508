package tui

import (
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// utilizationRun is a reference-free run: faithfulness and context
// utilization, the second of them judged per chunk against the answer.
func utilizationRun() []*eval.Result {
	return []*eval.Result{{
		Index: 0, ID: "leave", Question: "How many days of leave do new staff get?",
		Answer:   "New staff get 10 days in their first year.",
		Contexts: []string{"The cafeteria opens at 7:30.", "Staff in their first year get 10 days of paid leave."},
		Scores:   map[eval.Metric]*float64{eval.Faithfulness: score(1), eval.ContextUtilization: score(0.5)},
		Status:   map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.ContextUtilization: eval.StatusOK},
		Faithfulness: &eval.FaithfulnessTrace{Supported: 1, Statements: []eval.StatementVerdict{
			{Statement: "New staff get 10 days in their first year.", Verdict: 1, Reason: "chunk 2"},
		}},
		ContextUtilization: &eval.ContextPrecisionTrace{
			Chunks:     []eval.ChunkVerdict{{Rank: 1, Verdict: 0, Reason: "the answer says nothing of the cafeteria"}, {Rank: 2, Verdict: 1, Reason: "the 10 days come from it"}},
			Precisions: []float64{0, 0.5},
		},
	}}
}

func TestContextUtilizationInTableAndDetail(t *testing.T) {
	m := newTestModel(t, Options{Dataset: "live.jsonl", Metrics: []eval.Metric{eval.Faithfulness, eval.ContextUtilization},
		Results: utilizationRun(), Started: fixedStart}, 100, 40)
	screen := screenText(m)
	head := lineOf(screen, "question")
	if !strings.Contains(head, "CU") || strings.Contains(head, "CP") || strings.Contains(head, "AR") {
		t.Errorf("the table's columns are not the run's metrics (F, CU):\n%s", head)
	}
	if !strings.Contains(lineOf(screen, "context_utilization"), "mean 0.500") {
		t.Errorf("no context_utilization line with its mean in the header:\n%s", screen)
	}
	applyFilter(m, "cu<0.6")
	if got := shownSamples(m); len(got) != 1 {
		t.Errorf("cu<0.6 shows %v, want sample 0", got)
	}
	press(m, "esc", "enter", "2")
	page := flat(screenText(m))
	for _, want := range []string{"2 context_utilization 0.500", "not useful for the answer", "useful for the answer (precision@2 = 0.500)",
		"the 10 days come from it", "average precision = (0.500) / 1 useful = 0.500"} {
		if !strings.Contains(page, want) {
			t.Errorf("detail page lacks %q:\n%s", want, page)
		}
	}
}

// A run of five metrics jumps to the fifth with 5; a run of four keeps the
// keys and help it always had.
func TestMetricKeysFollowTheRunsMetrics(t *testing.T) {
	four := New(Options{})
	if h := four.keys.Section.Help().Key; h != "1-4" || len(four.keys.Section.Keys()) != 4 {
		t.Errorf("four metrics: %q %v", h, four.keys.Section.Keys())
	}
	five := New(Options{Metrics: eval.AllMetrics[:5]})
	if h := five.keys.Section.Help().Key; h != "1-5" || len(five.keys.Section.Keys()) != 5 {
		t.Errorf("five metrics: %q %v", h, five.keys.Section.Keys())
	}
	seven := New(Options{Metrics: eval.AllMetrics[:7]})
	if h := seven.keys.Section.Help().Key; h != "1-7" || len(seven.keys.Section.Keys()) != 7 {
		t.Errorf("seven metrics: %q %v", h, seven.keys.Section.Keys())
	}
	// Ten metrics: 1-9, then 0 for the tenth.
	ten := New(Options{Metrics: eval.AllMetrics})
	if h, ks := ten.keys.Section.Help().Key, ten.keys.Section.Keys(); h != "1-9,0" || len(ks) != 10 || ks[9] != "0" {
		t.Errorf("ten metrics: %q %v", h, ks)
	}
}
