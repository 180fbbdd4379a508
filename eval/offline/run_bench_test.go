package offline_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset"
	"github.com/ragscope/ragscope/eval/offline"
	"github.com/ragscope/ragscope/eval/report"
)

// The acceptance bar of the offline judge: 10,000 demo-sized samples, all
// four metrics, in under 10 s on a 2-core machine.
const (
	offlineBenchSamples = 10_000
)

// runnerConfig is what `ragscope run` gives the offline judge.
func runnerConfig() eval.RunnerConfig {
	w, ahead := offline.RunnerConfig()
	return eval.RunnerConfig{Workers: w, StoreAhead: ahead}
}

// demoCopies builds n samples by cycling the demo set. Every copy after the
// first ends each of its texts with a word naming the copy, so no per-text
// cache (the judge keeps analysed contexts) can serve a copy from an earlier
// one: every sample costs what a distinct sample of a real dataset costs.
// The word is letters only (a number would feed the number detector) and
// trails the text, so statements, verdicts, chunk verdicts and
// classifications stay the original's (TestDemoCopiesScoreLikeTheDemo).
func demoCopies(tb testing.TB, n int) []eval.Sample {
	tb.Helper()
	ld, err := dataset.Load(filepath.Join("..", "..", "testdata", "demo.jsonl"), dataset.Options{})
	if err != nil {
		tb.Fatalf("loading the demo dataset: %v", err)
	}
	demo := ld.Samples
	if len(demo) == 0 {
		tb.Fatal("the demo dataset is empty")
	}
	out := make([]eval.Sample, n)
	for i := range out {
		s := demo[i%len(demo)]
		if copyNo := i / len(demo); copyNo > 0 {
			word := copyWord(copyNo)
			tag := func(t string) string {
				if t == "" {
					return ""
				}
				return t + " " + word
			}
			s.ID = s.ID + "-" + word
			s.Question, s.Answer, s.Reference = tag(s.Question), tag(s.Answer), tag(s.Reference)
			ctxs := make([]string, len(s.Contexts))
			for k, c := range s.Contexts {
				ctxs[k] = tag(c)
			}
			s.Contexts = ctxs
		}
		s.Index = i
		out[i] = s
	}
	return out
}

// copyWord spells n in base 26 with letters after a "zq" that no demo text
// contains: zqb, zqc, ..., zqba.
func copyWord(n int) string {
	var b []byte
	for ; n > 0; n /= 26 {
		b = append([]byte{byte('a' + n%26)}, b...)
	}
	return "zq" + string(b)
}

// checkNoFailures fails on any status that is a failure of the judge or the
// run; no_statements and missing_input are properties of the data.
func checkNoFailures(tb testing.TB, res []*eval.Result, want int) {
	tb.Helper()
	if len(res) != want {
		tb.Fatalf("%d results for %d samples", len(res), want)
	}
	for _, r := range res {
		if r == nil {
			tb.Fatal("a sample has no result")
		}
		if len(r.Status) != len(eval.DefaultMetrics) {
			tb.Fatalf("sample %d (%s): %d statuses, want one per metric", r.Index, r.ID, len(r.Status))
		}
		for m, st := range r.Status {
			switch {
			case st == eval.StatusOK, st == eval.StatusMissingInput, st == eval.StatusNoStatements:
			case st == eval.StatusUnsupported && m == eval.AnswerRelevancy:
				// Offline, answer relevancy is unsupported: the trace keeps the cosine.
			default:
				tb.Fatalf("sample %d (%s) %s: %s: %s", r.Index, r.ID, m, st, r.Errors[m])
			}
		}
	}
}

// TestDemoCopiesScoreLikeTheDemo guards the benchmark's data: a tagged copy
// must do the work of its original and get its verdicts, or the benchmark
// would time something other than the demo set. Answer relevancy is the
// exception: offline it is unsupported, and the cosine of the answer to the
// question its trace keeps moves with the shared copy word.
func TestDemoCopiesScoreLikeTheDemo(t *testing.T) {
	const demoSize = 14
	samples := demoCopies(t, 30*demoSize)
	r := &eval.Runner{Judge: offline.New(), Config: runnerConfig()}
	res := r.Run(context.Background(), samples)
	checkNoFailures(t, res, len(samples))
	// The demo's own samples may share a chunk, as real data does; two
	// copies must share nothing.
	copyOf := map[string]int{}
	for _, c := range res {
		n := c.Index / demoSize
		for _, text := range append([]string{c.Question, c.Answer, c.Reference}, c.Contexts...) {
			if prev, dup := copyOf[text]; dup && text != "" && prev != n {
				t.Fatalf("copies %d and %d share the text %q: a per-text cache would serve one from the other", prev, n, text)
			}
			copyOf[text] = n
		}
	}
	for _, c := range res[demoSize:] {
		o := res[c.Index%demoSize]
		for _, m := range eval.DefaultMetrics {
			if c.Status[m] != o.Status[m] {
				t.Errorf("%s %s: status %s, original %s: %s", c.ID, m, c.Status[m], o.ID, o.Status[m])
			}
			if m == eval.AnswerRelevancy {
				continue
			}
			cs, _ := c.Score(m)
			os, _ := o.Score(m)
			if cs != os {
				t.Errorf("%s %s: %v, original %s: %v", c.ID, m, cs, o.ID, os)
			}
		}
		if got, want := work(c), work(o); got != want {
			t.Errorf("%s: judge work %s, original %s: %s", c.ID, got, o.ID, want)
		}
	}
}

// work counts what the judge produced for a sample.
func work(r *eval.Result) string {
	var st, ch, cl int
	if r.Faithfulness != nil {
		st = len(r.Faithfulness.Statements)
	}
	if r.ContextPrecision != nil {
		ch = len(r.ContextPrecision.Chunks)
	}
	if r.ContextRecall != nil {
		cl = len(r.ContextRecall.Classifications)
	}
	return fmt.Sprintf("%d statements, %d chunk verdicts, %d classifications", st, ch, cl)
}

// BenchmarkOfflineRun10k runs 10,000 demo-sized samples through the runner
// with the offline judge and all four metrics, as `ragscope run --offline`
// does. Sub-benchmark "store" also writes every result durably to a bbolt
// run store, which the CLI always does. Run with -benchtime 1x; not under
// -race (it times the product, not the detector).
func BenchmarkOfflineRun10k(b *testing.B) {
	for _, store := range []bool{false, true} {
		name := "memory"
		if store {
			name = "store"
		}
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				samples := demoCopies(b, offlineBenchSamples)
				r := &eval.Runner{Judge: offline.New(), Config: runnerConfig()}
				var db *cache.DB
				var runID string
				if store {
					var err error
					db, err = cache.Open(filepath.Join(b.TempDir(), "ragscope.db"), cache.Options{})
					if err != nil {
						b.Fatal(err)
					}
					id, err := db.NewRunID()
					if err != nil {
						b.Fatal(err)
					}
					run := report.RunInfo{ID: id, Dataset: "demo x10k", StartedAt: time.Now().UTC(),
						Judge: r.Judge.Info(), Metrics: eval.AllMetrics, Samples: len(samples)}
					if err := db.PutRun(run); err != nil {
						b.Fatal(err)
					}
					runID = run.ID
					r.OnResults = func(rs []*eval.Result) error { return db.PutResults(run.ID, rs) }
				}
				// Drain events as the TUI or the headless progress would, so
				// the event path is part of the figure.
				events := make(chan eval.Event, 256)
				r.Events = events
				var saveErrs int
				drained := make(chan struct{})
				go func() {
					defer close(drained)
					for e := range events {
						if e.Kind == eval.EventError && e.Metric == "" {
							saveErrs++
						}
					}
				}()
				b.StartTimer()
				start := time.Now()
				res := r.Run(context.Background(), samples)
				<-drained
				total += time.Since(start)
				b.StopTimer()
				checkNoFailures(b, res, offlineBenchSamples)
				if saveErrs > 0 {
					b.Fatalf("%d results could not be stored", saveErrs)
				}
				if db != nil {
					_, stored, _, err := db.RunPage(runID, 0, offlineBenchSamples+1)
					if err != nil || len(stored) != offlineBenchSamples {
						b.Fatalf("the run store holds %d results (%v), want %d", len(stored), err, offlineBenchSamples)
					}
					if err := db.Close(); err != nil {
						b.Fatal(err)
					}
				}
			}
			perRun := total.Seconds() / float64(b.N)
			b.ReportMetric(perRun, "s/10k")
			b.ReportMetric(offlineBenchSamples/perRun, "samples/s")
		})
	}
}
