package eval

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
		OnResults: func(rs []*Result) error { mu.Lock(); defer mu.Unlock(); stored = append(stored, rs...); return nil }}
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

// countingJudge is nopJudge that counts the samples begun (a statements
// call) and evaluated (a verdicts call).
type countingJudge struct {
	nopJudge
	begun     *atomic.Int64
	evaluated chan struct{} // a send per sample evaluated
	onBegin   func()
}

func (j countingJudge) Statements(ctx context.Context, s *Sample) ([]string, error) {
	j.begun.Add(1)
	j.onBegin()
	return j.nopJudge.Statements(ctx, s)
}

func (j countingJudge) Verdicts(ctx context.Context, s *Sample, st []string) ([]StatementVerdict, error) {
	defer func() { j.evaluated <- struct{}{} }()
	return j.nopJudge.Verdicts(ctx, s, st)
}

// Results wait for the store without holding their workers: while the store
// is stuck, the run starts StoreAhead samples more than its workers and no
// more, announces none of them, and then stores those waiting together.
func TestStoreAhead(t *testing.T) {
	const workers, ahead, n = 2, 4, 20
	var begun, stored atomic.Int64
	var over atomic.Int64 // samples begun beyond the bound, if any
	evaluated := make(chan struct{}, n)
	j := countingJudge{begun: &begun, evaluated: evaluated, onBegin: func() {
		if d := begun.Load() - stored.Load(); d > workers+ahead {
			over.Store(d)
		}
	}}
	release := make(chan struct{})
	var released atomic.Bool
	var (
		mu      sync.Mutex
		batches []int
	)
	r := &Runner{Judge: j, Config: RunnerConfig{Metrics: []Metric{Faithfulness}, Workers: workers, StoreAhead: ahead},
		OnResults: func(rs []*Result) error {
			<-release
			mu.Lock()
			batches = append(batches, len(rs))
			mu.Unlock()
			stored.Add(int64(len(rs)))
			return nil
		}}
	events := make(chan Event, 4*n)
	r.Events = events
	early, finished := make(chan int, n), 0
	go func() {
		for e := range events {
			if e.Kind == EventSampleFinished {
				if !released.Load() {
					early <- e.Sample
				}
				finished++
			}
		}
		close(early)
	}()
	samples := make([]Sample, n)
	for i := range samples {
		samples[i] = Sample{Index: i, Question: "q", Answer: "a", Contexts: []string{"a"}}
	}
	done := make(chan []*Result)
	go func() { done <- r.Run(context.Background(), samples) }()
	deadline := time.After(time.Minute)
	for k := 0; k < workers+ahead; k++ {
		select {
		case <-evaluated:
		case <-deadline:
			close(release)
			t.Fatalf("with the store stuck, %d samples were evaluated, not %d", k, workers+ahead)
		}
	}
	released.Store(true)
	close(release)
	results := <-done
	for i := range early {
		t.Fatalf("sample %d announced before it was stored", i)
	}
	if over.Load() > 0 {
		t.Fatalf("%d samples begun and not stored, over %d workers + %d ahead", over.Load(), workers, ahead)
	}
	if stored.Load() != n || finished != n || len(results) != n {
		t.Fatalf("stored %d, announced %d, returned %d of %d", stored.Load(), finished, len(results), n)
	}
	if slices.Max(batches) < 2 {
		t.Fatalf("batches %v: the results that waited were not stored together", batches)
	}
}

// panicJudge is nopJudge that panics on a sample asking "boom": in its
// verdicts (called in a metric's own step) and in its reference statements
// (called among answer correctness's concurrent calls).
type panicJudge struct{ nopJudge }

func (j panicJudge) Verdicts(ctx context.Context, s *Sample, st []string) ([]StatementVerdict, error) {
	if s.Question == "boom" {
		_ = st[len(st)]
	}
	return j.nopJudge.Verdicts(ctx, s, st)
}

func (j panicJudge) ReferenceStatements(ctx context.Context, s *Sample) ([]string, error) {
	if s.Question == "boom" {
		panic("no reference statements today")
	}
	return []string{"a"}, nil
}

// A judge's panic on one sample fails that sample's metrics with an
// internal error that says where it happened; the run goes on and the
// other samples are scored.
func TestJudgePanicFailsItsSample(t *testing.T) {
	var samples []Sample
	for i, q := range []string{"fine", "boom", "fine"} {
		samples = append(samples, Sample{Index: i, Question: q, Answer: "a", Contexts: []string{"a"}, Reference: "a"})
	}
	r := &Runner{Judge: panicJudge{}, Config: RunnerConfig{Metrics: []Metric{Faithfulness, AnswerCorrectness}, ACWeights: [2]float64{1, 0}, Workers: 2}}
	rs := r.Run(context.Background(), samples)
	if len(rs) != len(samples) {
		t.Fatalf("%d results for %d samples", len(rs), len(samples))
	}
	for _, res := range rs {
		for _, m := range []Metric{Faithfulness, AnswerCorrectness} {
			switch {
			case res.Question != "boom" && res.Status[m] != StatusOK:
				t.Errorf("sample %d %s: %s %q, want ok", res.Index, m, res.Status[m], res.Errors[m])
			case res.Question == "boom" && (res.Status[m] != StatusJudgeError || !strings.Contains(res.Errors[m], "internal error at eval/runner_test.go:")):
				t.Errorf("sample %d %s: %s %q, want an internal error naming where", res.Index, m, res.Status[m], res.Errors[m])
			}
		}
	}
}
