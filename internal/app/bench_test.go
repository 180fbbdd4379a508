package app

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/internal/live"
	"github.com/ragscope/ragscope/internal/store"
)

// BenchmarkSharedRunWithReaders measures what 20 connected readers cost a
// run: a client evaluates through the holder's socket (every cache lookup,
// claim and stored result is a request the holder serves) against a judge
// answering in 20 or 200 ms, with 0 and then 20 other processes connected to the
// holder, each watching the run live as `ragscope open latest` does. Both are measured
// three times, interleaved, and the best of each is kept: the ratio of
// samples/s with readers to without is the figure (1.00: no harm).
//
//	go test -run '^$' -bench SharedRunWithReaders -benchtime 1x ./internal/app
func BenchmarkSharedRunWithReaders(b *testing.B) {
	// 20 ms is a stress test (about 120 results a second through the
	// socket, each sent on to every watcher); 200 ms is still a fast judge.
	for _, delay := range []time.Duration{20 * time.Millisecond, 200 * time.Millisecond} {
		b.Run(fmt.Sprintf("judge=%s", delay), func(b *testing.B) { benchSharedRun(b, delay) })
	}
}

func benchSharedRun(b *testing.B, delay time.Duration) {
	const samples, readers = 64, 20
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = delay })
	defer srv.Close()
	dir := b.TempDir()
	path := filepath.Join(dir, "r.db")
	holderStore, err := store.Open(path, store.OpenOptions{Mode: store.Hold, Role: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer holderStore.Close()
	client, err := store.Open(path, store.OpenOptions{Mode: store.Hold, Role: "bench-client"})
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	if client.Holding() {
		b.Fatal("the client holds the database")
	}
	round := 0
	measure := func(nReaders int) float64 {
		round++
		data := filepath.Join(dir, fmt.Sprintf("data-%d.jsonl", round))
		var sb strings.Builder
		for i := 0; i < samples; i++ {
			fmt.Fprintf(&sb, `{"user_input":"round %d question %d?","response":"answer %d. more.","retrieved_contexts":["chunk a %d","chunk b %d","chunk c %d"],"reference":"reference %d"}`+"\n",
				round+int(delay/time.Millisecond)*100, i, i, i, i, i, i)
		}
		if err := os.WriteFile(data, []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		s, err := Prepare(parsed(b, &Config{Dataset: data, BaseURL: srv.BaseURL(), APIKey: "k", APIType: "openai", Model: "judge",
			EmbeddingModel: "emb", ResponseFormat: "json_schema", EmbedFormat: "float", Strictness: 3, Concurrency: 16,
			Timeout: 10 * time.Second, MaxRetries: 2, Metrics: "all", Lang: "auto"}), client, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// The readers are processes of their own, connected before the run
		// starts, as analysts' terminals would be; what is timed is the run
		// with them watching it.
		var watchers []*watcherProc
		for i := 0; i < nReaders; i++ {
			watchers = append(watchers, startWatcher(b, path))
		}
		start := time.Now()
		run, err := s.Start(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, w := range watchers {
			fmt.Fprintln(w.stdin, run.ID)
		}
		for range run.Events {
		}
		_, err = run.Wait()
		el := time.Since(start)
		if err != nil {
			b.Fatalf("run: %v", err)
		}
		if _, results, err := s.Store.Run(run.ID); err != nil || len(results) != samples {
			b.Fatalf("run: %d results, %v", len(results), err)
		}
		for _, w := range watchers {
			w.wait(b, samples)
		}
		return float64(samples) / el.Seconds()
	}
	for i := 0; i < b.N; i++ {
		best := map[int]float64{}
		for rep := 0; rep < 3; rep++ {
			for _, n := range []int{0, readers} {
				best[n] = max(best[n], measure(n))
			}
		}
		b.ReportMetric(best[0], "samples/s-0-readers")
		b.ReportMetric(best[readers], "samples/s-20-readers")
		b.ReportMetric(best[readers]/best[0], "ratio")
	}
}

// A watcher process: the test binary run again with RAGSCOPE_BENCH_WATCH
// set. It connects to the database, reads a run id on stdin, follows the
// run to its end and prints how many results it saw.
func TestMain(m *testing.M) {
	if path := os.Getenv("RAGSCOPE_BENCH_WATCH"); path != "" {
		os.Exit(watch(path))
	}
	// A test that names no database uses the default one, and what a run
	// learns of an endpoint is remembered beside it: in a directory of this
	// process's own, never the user's cache, where another process's
	// loopback judge on the same port would have left what it learned.
	dir, err := os.MkdirTemp("", "ragscope-app-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func watch(path string) int {
	st, err := store.Open(path, store.OpenOptions{Mode: store.Read})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	fmt.Println("ready")
	var id string
	if _, err := fmt.Scanln(&id); err != nil {
		return 1
	}
	seen := map[int]bool{}
	for ev := range live.Events(context.Background(), st, id) {
		if ev.Kind == eval.EventSampleFinished {
			seen[ev.Result.Index] = true
		}
	}
	fmt.Println(len(seen))
	return 0
}

type watcherProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

func startWatcher(b *testing.B, path string) *watcherProc {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RAGSCOPE_BENCH_WATCH="+path)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	w := &watcherProc{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	if line, err := w.out.ReadString('\n'); err != nil || strings.TrimSpace(line) != "ready" {
		b.Fatalf("watcher did not connect: %q %v", line, err)
	}
	return w
}

func (w *watcherProc) wait(b *testing.B, want int) {
	line, err := w.out.ReadString('\n')
	w.cmd.Wait()
	if err != nil || strings.TrimSpace(line) != fmt.Sprint(want) {
		b.Fatalf("a watcher saw %q results, want %d (%v)", strings.TrimSpace(line), want, err)
	}
}
