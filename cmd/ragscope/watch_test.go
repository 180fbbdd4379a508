package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
)

func watchLog(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"user_input":"%s question %d?","response":"answer %d. more.","retrieved_contexts":["chunk %d"]}`+"\n", t.Name(), i, i, i)
	}
	p := filepath.Join(t.TempDir(), "app.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// kill -9 at a random moment, twice, then a restart that finishes: every
// record has exactly one result in the store, none is missing, and the
// judge was asked again only for what was in flight when it was killed
// (the calls that finished came from the cache).
func TestWatchKill9ExactlyOnce(t *testing.T) {
	const n = 60
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	srv.Set(func(s *fakejudge.Server) { s.Delay = 15 * time.Millisecond })
	log := watchLog(t, n)
	db := filepath.Join(t.TempDir(), "w.db")
	env := cleanEnv(t, "OPENAI_API_KEY=k")
	args := []string{"watch", "--headless", "--db", db, "--base-url", srv.BaseURL(), "--model", "m", "--metrics", "faithfulness",
		"--concurrency", "4", "--poll", "20ms", log}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	const kills = 2
	for k := range kills {
		at := srv.Count("faithfulness_statements") + 3 + rng.IntN(20)
		b := startBin(t, env, args...)
		deadline := time.Now().Add(60 * time.Second)
		for srv.Count("faithfulness_statements") < at && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if err := b.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		b.cmd.Wait()
		t.Logf("kill %d after %d statement requests", k+1, srv.Count("faithfulness_statements"))
	}
	r := runBin(t, env, append([]string{"watch", "--headless", "--once"}, args[2:]...)...)
	if r.code != exitOK {
		t.Fatalf("the last watcher: exit %d\n%s", r.code, r.stderr)
	}

	st, err := cache.Open(db, cache.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs()
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]int{}
	samples := 0
	for _, info := range runs {
		samples += info.Samples
		if info.FinishedAt == nil {
			t.Errorf("run %s is not stamped finished", info.ID)
		}
		_, rs, err := st.Run(info.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range rs {
			results[res.Question]++
			if res.Status[eval.Faithfulness] != eval.StatusOK {
				t.Errorf("%s: %s", res.Question, res.Status[eval.Faithfulness])
			}
		}
	}
	sent := map[string]int{}
	for _, req := range srv.Requests() {
		if req.Task == "faithfulness_statements" {
			for i := range n {
				if q := fmt.Sprintf("%s question %d?", t.Name(), i); strings.Contains(req.Prompt(), q) {
					sent[q]++
				}
			}
		}
	}
	again := 0
	for i := range n {
		q := fmt.Sprintf("%s question %d?", t.Name(), i)
		if results[q] != 1 {
			t.Errorf("record %d: %d results stored, want exactly 1", i, results[q])
		}
		if sent[q] == 0 {
			t.Errorf("record %d: never sent to the judge", i)
		}
		again += sent[q] - 1
	}
	// Re-sent: only statement calls in flight at a kill (8 workers).
	if again > kills*8 {
		t.Errorf("%d statement requests sent again over %d kills", again, kills)
	}
	if samples != n {
		t.Errorf("the runs count %d samples, want %d", samples, n)
	}
	t.Logf("%d runs, %d statement requests for %d records (%d sent again after a kill)", len(runs), srv.Count("faithfulness_statements"), n, again)
}

func TestWatchRefusesBadFlags(t *testing.T) {
	env := cleanEnv(t)
	log := watchLog(t, 1)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"watch", "--headless"}, "give at least one LOG"},
		{[]string{"watch", "--headless", "--sample", "1.5", log}, "--sample 1.5"},
		{[]string{"watch", "--headless", "--alert", "faithfulness below 0.7", log}, "METRIC<X over N"},
		{[]string{"watch", "--headless", "--window", "5s", log}, "--window 5s"},
	} {
		r := runBin(t, env, append(c.args, "--offline", "--db", filepath.Join(t.TempDir(), "x.db"))...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%v: exit %d, stderr %s", c.args, r.code, r.stderr)
		}
	}
}
