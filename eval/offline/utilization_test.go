package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// Context utilization offline is the chunk verdict of context precision
// with the answer as the target: a chunk is used when it supports a
// statement of the answer, whatever the reference says.
func TestUtilizationVerdictJudgesAgainstTheAnswer(t *testing.T) {
	s := &eval.Sample{
		ID:       "probation",
		Question: "How long is the probation period?",
		Answer:   "The probation period for new employees is six months.",
		Contexts: []string{
			"The cafeteria is open from 7:30 to 13:30.",
			"The probation period for new employees is six months.",
			"During probation the notice period is one week.",
		},
		// The reference would make chunk 3 useful too: utilization must not read it.
		Reference: "The probation period is six months. The notice period during probation is one week.",
	}
	j := New()
	ctx := context.Background()
	for rank, want := range []int{0, 1, 0} {
		cv, err := j.UtilizationVerdict(ctx, s, rank+1)
		if err != nil {
			t.Fatal(err)
		}
		if cv.Rank != rank+1 || cv.Verdict != want || !strings.Contains(cv.Reason, "answer statement") {
			t.Errorf("chunk %d: %+v, want verdict %d with a reason about the answer", rank+1, cv, want)
		}
	}
	res := (&eval.Runner{Judge: j, Config: eval.RunnerConfig{Metrics: []eval.Metric{eval.ContextUtilization}}}).Run(ctx, []eval.Sample{*s})[0]
	// [0,1,0]: precision@2 = 1/2, one useful chunk.
	if v, ok := res.Score(eval.ContextUtilization); !ok || v != 0.5 {
		t.Errorf("context utilization %v (%s), want 0.5", v, res.Status[eval.ContextUtilization])
	}
	if _, err := j.UtilizationVerdict(ctx, &eval.Sample{ID: "x", Answer: " ", Contexts: []string{"c"}}, 1); eval.StatusOf(err) != eval.StatusMissingInput {
		t.Errorf("without an answer: err %v, want missing_input", err)
	}
	for _, rank := range []int{0, 4} {
		if _, err := j.UtilizationVerdict(ctx, s, rank); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("rank %d of 3 chunks: err %v, want out of range", rank, err)
		}
	}
}
