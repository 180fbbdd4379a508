package llm_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/prompts"
)

// BenchmarkRunnerConcurrency runs all four metrics over samples with a fake
// judge that answers after a fixed delay, and reports how close the run
// comes to the ideal calls × delay / C (ratio 1.0 = every request slot busy
// all the time). The acceptance bar is a ratio at most 1.10.
func BenchmarkRunnerConcurrency(b *testing.B) {
	for _, tc := range []struct {
		c     int
		delay time.Duration
	}{{4, 20 * time.Millisecond}, {16, 20 * time.Millisecond}, {4, 50 * time.Millisecond}, {16, 50 * time.Millisecond}} {
		c, delay := tc.c, tc.delay
		b.Run(fmt.Sprintf("C=%d/delay=%s", c, delay), func(b *testing.B) {
			srv := fakejudge.New(fakejudge.Generic)
			srv.Set(func(s *fakejudge.Server) { s.Delay = delay })
			defer srv.Close()
			client, err := endpoint.New(endpoint.Config{BaseURL: srv.BaseURL(), Concurrency: c, MaxRetries: 0})
			if err != nil {
				b.Fatal(err)
			}
			j := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "m", EmbeddingModel: "e", Lang: eval.LangEN}, eval.Instrument(client), prompts.Embedded())
			samples := make([]eval.Sample, 12*c)
			for i := range samples {
				samples[i] = eval.Sample{Index: i, Question: fmt.Sprintf("question %d?", i), Answer: "an answer. another sentence.",
					Contexts: []string{"chunk one", "chunk two", "chunk three"}, Reference: "the reference"}
			}
			var ratio, perSample float64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				before := srv.Count("")
				start := time.Now()
				r := &eval.Runner{Judge: j, Config: eval.RunnerConfig{Workers: 2 * c}}
				res := r.Run(context.Background(), samples)
				el := time.Since(start)
				for _, x := range res {
					for m, st := range x.Status {
						if st != eval.StatusOK {
							b.Fatalf("sample %d %s: %s %s", x.Index, m, st, x.Errors[m])
						}
					}
				}
				calls := srv.Count("") - before
				ideal := time.Duration(calls) * delay / time.Duration(c)
				ratio = float64(el) / float64(ideal)
				perSample = float64(calls) / float64(len(samples))
			}
			b.ReportMetric(ratio, "x-ideal")
			b.ReportMetric(perSample, "calls/sample")
		})
	}
}
