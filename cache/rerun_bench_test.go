package cache_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/prompts"
)

// The acceptance bar: a fully cached re-run of 10,000 samples with all four
// metrics in under 5 s on a 2-core machine.
const rerunSamples = 10_000

// cliConcurrency is the default --concurrency of `ragscope run`; the CLI
// gives the runner twice as many sample workers.
const cliConcurrency = 16

// rerunStack is the LLM judge wired the way `ragscope run` wires it: the
// endpoint client behind the cache, instrumented, under the LLM judge.
type rerunStack struct {
	srv   *fakejudge.Server
	db    *cache.DB
	cc    *cache.Client
	judge *llm.Judge
}

func newRerunStack(b *testing.B) *rerunStack {
	b.Helper()
	srv := fakejudge.New(fakejudge.Generic)
	b.Cleanup(srv.Close)
	client, err := endpoint.New(endpoint.Config{BaseURL: srv.BaseURL(), Concurrency: cliConcurrency, RequestTimeout: time.Minute, MaxRetries: 6})
	if err != nil {
		b.Fatal(err)
	}
	db, err := cache.Open(filepath.Join(b.TempDir(), "ragscope.db"), cache.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	cc := db.Client(client, cache.ReadWrite)
	j := llm.New(llm.Config{
		BaseURL: srv.BaseURL(), Model: "gpt-4o-mini", EmbeddingModel: "text-embedding-3-small",
		ResponseFormat: "json_schema", QuestionTemperature: 0.7, Lang: eval.LangAuto,
	}, eval.Instrument(cc), prompts.Embedded())
	return &rerunStack{srv: srv, db: db, cc: cc, judge: j}
}

// run evaluates the samples as a new recorded run, as `ragscope run` does
// from the run record to its completion, and returns the results and the
// run id.
func (st *rerunStack) run(b *testing.B, samples []eval.Sample) ([]*eval.Result, string) {
	b.Helper()
	info := report.RunInfo{ID: newID(b, st.db), Dataset: "demo x10k", StartedAt: time.Now().UTC(),
		Judge: st.judge.Info(), Metrics: eval.DefaultMetrics, Samples: len(samples)}
	if err := st.db.PutRun(info); err != nil {
		b.Fatal(err)
	}
	r := &eval.Runner{
		Judge:     st.judge,
		Config:    eval.RunnerConfig{Workers: 2 * cliConcurrency},
		OnResults: func(rs []*eval.Result) error { return st.db.PutResults(info.ID, rs) },
	}
	// Drain events as the TUI or the headless progress would, so the event
	// path is part of the figure.
	events := make(chan eval.Event, 256)
	r.Events = events
	saveErrs := make(chan int)
	go func() {
		n := 0
		for e := range events {
			if e.Kind == eval.EventError && e.Metric == "" {
				n++
			}
		}
		saveErrs <- n
	}()
	res := r.Run(context.Background(), samples)
	if n := <-saveErrs; n > 0 {
		b.Fatalf("%d results could not be stored", n)
	}
	fin := time.Now().UTC()
	info.FinishedAt = &fin
	info.Calls, info.Tokens = r.Counts()
	if err := st.db.PutRun(info); err != nil {
		b.Fatal(err)
	}
	return res, info.ID
}

// rerunCopies cycles the demo samples that have every input the four
// metrics need, each copy after the first with its copy number appended to
// every text, so that every sample's calls are distinct requests: a re-run
// of them is 10,000 samples' worth of cache lookups, not 13.
func rerunCopies(b *testing.B, n int) []eval.Sample {
	b.Helper()
	ld, err := dataset.Load(filepath.Join("..", "testdata", "demo.jsonl"), dataset.Options{})
	if err != nil {
		b.Fatalf("loading the demo dataset: %v", err)
	}
	var demo []eval.Sample
	for _, s := range ld.Samples {
		if s.Reference != "" && len(s.Contexts) > 0 {
			demo = append(demo, s)
		}
	}
	if len(demo) == 0 {
		b.Fatal("the demo dataset has no sample with a reference and contexts")
	}
	out := make([]eval.Sample, n)
	for i := range out {
		s := demo[i%len(demo)]
		if c := i / len(demo); c > 0 {
			tag := fmt.Sprintf(" (%d)", c)
			s.ID = fmt.Sprintf("%s-%d", s.ID, c)
			s.Question, s.Answer, s.Reference = s.Question+tag, s.Answer+tag, s.Reference+tag
			ctxs := make([]string, len(s.Contexts))
			for k, x := range s.Contexts {
				ctxs[k] = x + tag
			}
			s.Contexts = ctxs
		}
		s.Index = i
		out[i] = s
	}
	return out
}

// checkAllOK checks that every sample was scored on every metric and that
// the run store holds every result of the run.
func (st *rerunStack) checkAllOK(b *testing.B, res []*eval.Result, runID string) {
	b.Helper()
	stored, err := st.db.Results(runID)
	if err != nil {
		b.Fatal(err)
	}
	if len(res) != rerunSamples || len(stored) != rerunSamples {
		b.Fatalf("run %s: %d results, %d stored, want %d", runID, len(res), len(stored), rerunSamples)
	}
	for _, r := range res {
		if len(r.Status) != len(eval.DefaultMetrics) {
			b.Fatalf("sample %d (%s): %d statuses, want one per metric", r.Index, r.ID, len(r.Status))
		}
		for m, st := range r.Status {
			if st != eval.StatusOK {
				b.Fatalf("sample %d (%s) %s: %s: %s", r.Index, r.ID, m, st, r.Errors[m])
			}
		}
	}
}

// BenchmarkCachedRerun10kRunner is the acceptance figure end to end: the
// runner, the LLM judge with its prompts and reply parsing, the instrumented
// cache client, and every result stored durably in the run store, exactly as
// `ragscope run` re-runs a dataset whose judge calls are all cached. A first
// run (untimed) fills the cache from a loopback fake judge; the timed run is
// a second, identical run under a new run id, which must not reach the
// server at all. Run it with -benchtime 1x and without -race: it times the
// product, and the race detector multiplies the cost of every lookup.
func BenchmarkCachedRerun10kRunner(b *testing.B) {
	st := newRerunStack(b)
	samples := rerunCopies(b, rerunSamples)

	start := time.Now()
	res, runID := st.run(b, samples)
	st.checkAllOK(b, res, runID)
	calls := st.srv.Count("")
	b.Logf("filled the cache: %d samples, %d requests to the fake judge (%.1f per sample) in %s",
		rerunSamples, calls, float64(calls)/rerunSamples, time.Since(start).Round(time.Millisecond))
	var total time.Duration
	hits := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, runID := st.run(b, samples)
		total += time.Since(start)
		b.StopTimer()
		st.checkAllOK(b, res, runID)
		for _, r := range res {
			for _, c := range r.Calls {
				if c.Cached {
					hits++
				}
			}
		}
		if n := st.srv.Count("") - calls; n != 0 {
			b.Fatalf("the re-run sent %d requests to the judge; a fully cached re-run must send none", n)
		}
		b.StartTimer()
	}
	b.StopTimer()
	perRun := total.Seconds() / float64(b.N)
	b.ReportMetric(perRun, "s/10k")
	b.ReportMetric(rerunSamples/perRun, "samples/s")
	b.ReportMetric(float64(hits)/float64(b.N*rerunSamples), "hits/sample")
}

func newID(t testing.TB, db *cache.DB) string {
	id, err := db.NewRunID()
	if err != nil {
		t.Fatal(err)
	}
	return id
}
