package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/store"
)

// BenchmarkHeadlessOffline is `ragscope run --headless --offline` in
// process on tiny samples (those of scripts/scale.sh; BENCH_SAMPLES, 50,000
// by default), its report to a file: the run a profile of the cores'
// scaling reads, and the report's cost after the run (wall/eval: the whole
// over the run's recorded duration). BENCH_DATA names a dataset to run
// instead (scripts/democopies writes demo-sized ones); samples/s then
// counts BENCH_SAMPLES, so set it to the dataset's size.
//
//	GOMAXPROCS=2 go test -run '^$' -bench HeadlessOffline -benchtime 1x \
//	  -cpuprofile cpu.out -mutexprofile mutex.out -blockprofile block.out ./internal/app
func BenchmarkHeadlessOffline(b *testing.B) {
	n := 50_000
	if v, err := strconv.Atoi(os.Getenv("BENCH_SAMPLES")); err == nil && v > 0 {
		n = v
	}
	dir := b.TempDir()
	data := filepath.Join(dir, "data.jsonl")
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, `{"id":"s%d","question":"What is the fee of plan %d?","answer":"Plan %d costs %d yuan a month.","contexts":["Plan %d costs %d yuan a month.","Plans renew on the first day."],"reference":"Plan %d costs %d yuan."}`+"\n", i, i, i, i%97, i, i%97, i, i%97)
	}
	if err := os.WriteFile(data, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	if f := os.Getenv("BENCH_DATA"); f != "" {
		data = f
	}
	var total, eval time.Duration
	for i := 0; i < b.N; i++ {
		st, err := store.Open(filepath.Join(dir, fmt.Sprintf("r%d.db", i)), store.OpenOptions{Mode: store.Hold, Role: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		cfg := &Config{Dataset: data, Offline: true, Lang: "auto", Strictness: 3, Concurrency: 4, Timeout: time.Second, Stream: true,
			Out: filepath.Join(dir, fmt.Sprintf("report%d.json", i))}
		if err := cfg.Validate(); err != nil {
			b.Fatal(err)
		}
		s, err := Prepare(cfg, st, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		code, err := Headless(context.Background(), s, io.Discard, io.Discard)
		total += time.Since(start)
		d, _ := s.Info().Duration()
		eval += d
		s.Close()
		st.Close()
		if err != nil || code != exit.OK {
			b.Fatalf("exit %d, %v", code, err)
		}
	}
	perRun := total.Seconds() / float64(b.N)
	b.ReportMetric(perRun, "s/run")
	b.ReportMetric(float64(n)/perRun, "samples/s")
	b.ReportMetric(eval.Seconds()/float64(b.N), "eval-s/run")
	b.ReportMetric(total.Seconds()/eval.Seconds(), "wall/eval")
}
