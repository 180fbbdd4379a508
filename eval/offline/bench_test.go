package offline

import (
	"context"
	"testing"
)

// BenchmarkOfflineSample does for one demo sample the judge work of all four
// metrics: statements and verdicts, the two embeddings and the noncommittal
// check of answer relevancy, one chunk verdict per chunk, and the reference
// classification. Samples cycle through the demo set; b.N samples/s is
// reported as samples/s.
func BenchmarkOfflineSample(b *testing.B) {
	samples := demoSamples(b)
	ids := make([]string, 0, len(samples))
	for id := range samples {
		ids = append(ids, id)
	}
	j := New()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := samples[ids[i%len(ids)]]
		stmts, _ := j.Statements(ctx, s)
		if _, err := j.Verdicts(ctx, s, stmts); err != nil {
			b.Fatal(err)
		}
		if _, err := j.Embed(ctx, s, []string{s.Question, s.Answer}); err != nil {
			b.Fatal(err)
		}
		j.Noncommittal(s)
		if s.Reference != "" {
			for k := range s.Contexts {
				if _, err := j.ChunkVerdict(ctx, s, k+1); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := j.Classify(ctx, s); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
