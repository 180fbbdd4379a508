package holder

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
)

// BenchmarkHolderWrites is a run's traffic through the socket (a result
// stored, a judge call looked up) alone and with 20 clients watching the
// run, as TUIs attached to it would: the readers must not slow the writer
// down much.
func BenchmarkHolderWrites(b *testing.B) {
	rates := map[int]float64{}
	for _, readers := range []int{0, 20} {
		b.Run(fmt.Sprintf("readers=%d", readers), func(b *testing.B) {
			db := newDB(b)
			srv := serveDB(b, db, ServeOptions{})
			w := dial(b, srv.Socket())
			if err := w.PutRun(runInfo("bench", b.N)); err != nil {
				b.Fatal(err)
			}
			req := eval.ChatRequest{Model: "m", Messages: []eval.Message{{Role: "user", Content: "q"}}}
			key := req.Key()
			if err := w.PutChat(key, req, eval.ChatResponse{Choices: []string{"a"}}); err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range readers {
				cl := dial(b, srv.Socket())
				wg.Add(1)
				go func() {
					defer wg.Done()
					seq := int64(-1)
					for ctx.Err() == nil {
						if _, err := cl.Runs(); err != nil {
							return
						}
						batch, err := cl.LiveUpdates(ctx, "bench", seq, 100*time.Millisecond)
						if err != nil {
							return
						}
						seq = batch.Seq
					}
				}()
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := w.PutResult("bench", result(i)); err != nil {
					b.Fatal(err)
				}
				if _, ok, err := w.LookupChat(key); err != nil || !ok {
					b.Fatal(ok, err)
				}
			}
			b.StopTimer()
			cancel()
			wg.Wait()
			rate := float64(b.N) / b.Elapsed().Seconds()
			b.ReportMetric(rate, "writes/s")
			rates[readers] = rate
		})
	}
	if rates[0] > 0 && rates[20] > 0 {
		b.Logf("with 20 readers: %.0f writes/s, alone: %.0f writes/s (ratio %.2f)", rates[20], rates[0], rates[20]/rates[0])
	}
}
