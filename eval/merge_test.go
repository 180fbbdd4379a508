package eval

import (
	"slices"
	"testing"

	"github.com/ragscope/ragscope/eval/criteria"
)

func TestMergeKeepsTheCallsOfTheMetricsItKeeps(t *testing.T) {
	one := 1.0
	base := &Result{Index: 3,
		Scores: map[Metric]*float64{Faithfulness: &one, ContextRecall: &one},
		Status: map[Metric]Status{Faithfulness: StatusOK, ContextRecall: StatusOK},
		Calls: []CallRecord{
			{Task: "faithfulness_statements", Key: "f1"}, {Task: "faithfulness_verdicts", Key: "f2"},
			{Task: "context_recall_classifications", Key: "r1"},
		}}
	update := &Result{Index: 3,
		Scores: map[Metric]*float64{Faithfulness: &one},
		Status: map[Metric]Status{Faithfulness: StatusOK},
		Calls:  []CallRecord{{Task: "faithfulness_verdicts", Key: "f2-new", Cached: false}}}
	tests := []struct {
		name    string
		metrics []Metric
		want    []string
	}{
		{"one metric re-run", []Metric{Faithfulness}, []string{"r1", "f2-new"}},
		{"every metric re-run", []Metric{Faithfulness, ContextRecall}, []string{"f2-new"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Merge(base, update, tt.metrics)
			var keys []string
			for _, c := range got.Calls {
				keys = append(keys, c.Key)
			}
			if len(keys) != len(tt.want) {
				t.Fatalf("calls %v, want %v", keys, tt.want)
			}
			for i := range keys {
				if keys[i] != tt.want[i] {
					t.Fatalf("calls %v, want %v", keys, tt.want)
				}
			}
		})
	}
	for task, want := range map[string]Metric{"embeddings": AnswerRelevancy, "answer_relevancy_question": AnswerRelevancy,
		"context_precision_verdict": ContextPrecision, "unknown": ""} {
		if got := MetricOfTask(task); got != want {
			t.Errorf("MetricOfTask(%q) = %q, want %q", task, got, want)
		}
	}
}

// A re-run of some criteria takes their scores, statuses, errors, traces
// and calls from the update and keeps the parent's of the others, metrics
// and criteria alike; a criterion that failed in the update loses the
// parent's trace with its score.
func TestMergeCriteria(t *testing.T) {
	one, zero := 1.0, 0.0
	level := 3
	base := &Result{Index: 1,
		Scores: map[Metric]*float64{Faithfulness: &one, "polite": &one, "tone": &one, "cites": &zero},
		Status: map[Metric]Status{Faithfulness: StatusOK, "polite": StatusOK, "tone": StatusOK, "cites": StatusOK},
		Criteria: map[string]*criteria.Trace{
			"polite": {Draws: []criteria.Draw{{Verdict: 1, Reason: "old"}}},
			"tone":   {Level: &level, Description: "fine"},
			"cites":  {Reason: "no pattern found in the answer"},
		},
		Calls: []CallRecord{
			{Task: "faithfulness_verdicts", Key: "f"},
			{Task: "criterion_yes_no", Key: "p-old", Metric: "polite"},
			{Task: "criterion_rubric", Key: "t-old", Metric: "tone"},
		}}
	update := &Result{Index: 1,
		Scores: map[Metric]*float64{"polite": &zero},
		Status: map[Metric]Status{"polite": StatusOK, "tone": StatusParseError},
		Errors: map[Metric]string{"tone": "level 9 is not on the scale"},
		Criteria: map[string]*criteria.Trace{
			"polite": {Draws: []criteria.Draw{{Verdict: 0, Reason: "new"}}},
		},
		Calls: []CallRecord{
			{Task: "criterion_yes_no", Key: "p-new", Metric: "polite"},
			{Task: "criterion_rubric", Key: "t-new", Metric: "tone"},
		}}
	tests := []struct {
		name       string
		metrics    []Metric
		polite     float64
		politeWhy  string
		toneStatus Status
		toneTrace  bool
		calls      []string
	}{
		{"the yes_no alone", []Metric{"polite"}, 0, "new", StatusOK, true, []string{"f", "t-old", "p-new", "t-new"}},
		{"both judged criteria", []Metric{"polite", "tone"}, 0, "new", StatusParseError, false, []string{"f", "p-new", "t-new"}},
		{"a metric only", []Metric{Faithfulness}, 1, "old", StatusOK, true, []string{"p-old", "t-old", "p-new", "t-new"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Merge(base, update, tt.metrics)
			if v, _ := got.Score("polite"); v != tt.polite || got.Criteria["polite"].Draws[0].Reason != tt.politeWhy {
				t.Errorf("polite %v with %+v, want %v (%s)", v, got.Criteria["polite"], tt.polite, tt.politeWhy)
			}
			if got.Status["tone"] != tt.toneStatus || (got.Criteria["tone"] != nil) != tt.toneTrace {
				t.Errorf("tone %s, trace %+v", got.Status["tone"], got.Criteria["tone"])
			}
			if tt.toneStatus == StatusParseError && got.Errors["tone"] == "" {
				t.Error("tone's error was not taken")
			}
			if got.Criteria["cites"] == nil || *got.Scores["cites"] != 0 {
				t.Errorf("the exact check not re-run lost its result: %+v", got.Criteria)
			}
			var keys []string
			for _, c := range got.Calls {
				keys = append(keys, c.Key)
			}
			if !slices.Equal(keys, tt.calls) {
				t.Errorf("calls %v, want %v", keys, tt.calls)
			}
		})
	}
	if len(base.Criteria) != 3 || base.Criteria["polite"].Draws[0].Reason != "old" {
		t.Errorf("Merge changed the base: %+v", base.Criteria)
	}
	set := &criteria.Set{Criteria: []*criteria.Criterion{{Name: "polite", Kind: criteria.YesNo}, {Name: "tone", Kind: criteria.Rubric},
		{Name: "cites", Kind: criteria.Regex}, {Name: "concise", Kind: criteria.YesNo}}}
	for task, want := range map[string][]Metric{
		"criterion_yes_no": {"polite", "concise"}, "criterion_rubric": {"tone"}, "criterion_checklist": nil, "faithfulness_verdicts": nil,
	} {
		if got := CriteriaOfTask(task, set); !slices.Equal(got, want) {
			t.Errorf("CriteriaOfTask(%q) = %v, want %v", task, got, want)
		}
	}
}
