package eval

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// A source that fails part way stops the run after the samples it gave
// are finished (not cancelled: their calls are paid for), and Err says why.
func TestStreamStopsWhenTheSourceFails(t *testing.T) {
	samples := []Sample{{Index: 0, Question: "q", Answer: "a"}, {Index: 1, Question: "q", Answer: "a"}}
	var (
		mu     sync.Mutex
		stored []*Result
	)
	r := &Runner{Judge: nopJudge{}, Config: RunnerConfig{Metrics: []Metric{Faithfulness}, Workers: 2},
		OnResult: func(res *Result) error { mu.Lock(); defer mu.Unlock(); stored = append(stored, res); return nil }}
	broken := errors.New("unexpected EOF in line 3")
	r.Stream(context.Background(), func(yield func(Sample) bool) error {
		for _, s := range samples {
			yield(s)
		}
		return broken
	}, 3)
	if !errors.Is(r.Err(), broken) || !strings.Contains(r.Err().Error(), "after 2 samples") {
		t.Fatalf("Err = %v", r.Err())
	}
	if len(stored) != 2 || stored[0].Status[Faithfulness] == StatusCancelled || stored[1].Status[Faithfulness] == StatusCancelled {
		t.Fatalf("stored %d results: %+v", len(stored), stored)
	}
}

// nopJudge finds one statement, always supported.
type nopJudge struct{}

func (nopJudge) Info() JudgeInfo { return JudgeInfo{Kind: "test", Name: "nop"} }
func (nopJudge) Statements(context.Context, *Sample) ([]string, error) {
	return []string{"a"}, nil
}
func (nopJudge) Verdicts(_ context.Context, _ *Sample, st []string) ([]StatementVerdict, error) {
	out := make([]StatementVerdict, len(st))
	for i, s := range st {
		out[i] = StatementVerdict{Statement: s, Verdict: 1}
	}
	return out, nil
}
func (nopJudge) Questions(context.Context, *Sample, int) ([]GeneratedQuestion, error) {
	return nil, nil
}
func (nopJudge) ChunkVerdict(context.Context, *Sample, int) (ChunkVerdict, error) {
	return ChunkVerdict{}, nil
}
func (nopJudge) UtilizationVerdict(context.Context, *Sample, int) (ChunkVerdict, error) {
	return ChunkVerdict{}, nil
}
func (nopJudge) Classify(context.Context, *Sample) ([]Classification, error)    { return nil, nil }
func (nopJudge) ReferenceStatements(context.Context, *Sample) ([]string, error) { return nil, nil }
func (nopJudge) CorrectnessClassify(context.Context, *Sample, []string, []string) (CorrectnessClasses, error) {
	return CorrectnessClasses{}, nil
}
func (nopJudge) Entailment(context.Context, *Sample, string, []string) ([]StatementVerdict, error) {
	return nil, nil
}
func (nopJudge) Entities(context.Context, *Sample, string) ([]string, error) { return nil, nil }
func (nopJudge) Embed(context.Context, *Sample, []string) ([][]float64, error) {
	return nil, nil
}
