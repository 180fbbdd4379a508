package eval

import "testing"

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
