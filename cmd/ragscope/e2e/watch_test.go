package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
		{[]string{"watch", "--headless", "--once", "--sample", "0", log}, "--sample 0"},
		{[]string{"watch", "--headless", "--once", filepath.Join(t.TempDir(), "typo", "app.jsonl")}, "there is no directory"},
		{[]string{"watch", "--headless", "--alert", "faithfulness below 0.7", log}, "METRIC<X over N"},
		{[]string{"watch", "--headless", "--window", "5s", log}, "--window 5s"},
	} {
		r := runBin(t, env, append(c.args, "--offline", "--db", filepath.Join(t.TempDir(), "x.db"))...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%v: exit %d, stderr %s", c.args, r.code, r.stderr)
		}
	}
}

// A LOG that matches no file yet is said, not followed in silence: with
// --once (cron) nothing is read, and the warning names it.
func TestWatchSaysALogMatchesNoFile(t *testing.T) {
	log := filepath.Join(t.TempDir(), "not-yet.jsonl")
	r := runBin(t, cleanEnv(t), "watch", "--headless", "--once", "--offline", "--db", filepath.Join(t.TempDir(), "x.db"), log)
	if r.code != exitOK || !strings.Contains(r.stderr, "LOG "+log+" matches no file yet") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// watchCount reads a figure of the watcher's last progress line, e.g. "2
// evaluated" or "1 invalid".
func watchCount(t *testing.T, stderr, what string) int {
	t.Helper()
	i := strings.LastIndex(stderr, "ragscope watch: stopped;")
	if i < 0 {
		t.Fatalf("no closing progress line:\n%s", stderr)
	}
	m := regexp.MustCompile(`(\d+) ` + what).FindStringSubmatch(stderr[i:])
	if m == nil {
		t.Fatalf("no %q in the closing progress line:\n%s", what, stderr[i:])
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// Cron passes of watch --once over a log the service is writing: a last
// line without its newline yet is left for the next pass, which evaluates
// it whole; it is never reported invalid nor stepped over.
func TestWatchOnceLeavesUnterminatedLine(t *testing.T) {
	env := cleanEnv(t)
	dir := t.TempDir()
	log, db := filepath.Join(dir, "app.jsonl"), filepath.Join(dir, "w.db")
	rec := func(i int) string {
		return fmt.Sprintf(`{"user_input":"%s question %d?","response":"The sky is blue %d.","retrieved_contexts":["The sky is blue %d."]}`, t.Name(), i, i, i)
	}
	third := rec(2)
	for _, pass := range []struct {
		name      string
		appended  string
		evaluated int
	}{
		{"two records and half a third", rec(0) + "\n" + rec(1) + "\n" + third[:30], 2},
		{"still no newline", third[30:50], 0},
		{"the third completed", third[50:] + "\n", 1},
		{"nothing new", "", 0},
	} {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(pass.appended); err != nil {
			t.Fatal(err)
		}
		f.Close()
		r := runBin(t, env, "watch", "--headless", "--once", "--offline", "--metrics", "faithfulness", "--db", db, log)
		if r.code != exitOK {
			t.Fatalf("%s: exit %d\n%s", pass.name, r.code, r.stderr)
		}
		if got := watchCount(t, r.stderr, "evaluated"); got != pass.evaluated {
			t.Errorf("%s: %d evaluated, want %d\n%s", pass.name, got, pass.evaluated, r.stderr)
		}
		if got := watchCount(t, r.stderr, "invalid"); got != 0 || strings.Contains(r.stderr, "skipped") {
			t.Errorf("%s: %d invalid\n%s", pass.name, got, r.stderr)
		}
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
	seen := map[string]bool{}
	for _, info := range runs {
		_, rs, err := st.Run(info.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range rs {
			seen[res.Question] = true
		}
	}
	for i := range 3 {
		if q := fmt.Sprintf("%s question %d?", t.Name(), i); !seen[q] {
			t.Errorf("record %d was never evaluated (stored: %v)", i, seen)
		}
	}
}

// watch --once waits for the --alert-exec commands its last records
// started (up to --alert-timeout) before it exits, and a command runs
// without the judge's key or any other secret in its environment.
func TestWatchOnceAlertExec(t *testing.T) {
	const secret = "sk-SECRET-alert-0123456789"
	for _, c := range []struct {
		name    string
		exec    string
		timeout string
		check   func(t *testing.T, out []byte, stderr string, took time.Duration)
	}{
		{"a slow command is waited for", "sleep 1; cat > $OUT", "20s", func(t *testing.T, out []byte, stderr string, _ time.Duration) {
			var ev struct {
				Rule string  `json:"rule"`
				Mean float64 `json:"mean"`
			}
			if err := json.Unmarshal(out, &ev); err != nil || ev.Rule != "faithfulness<1.01 over 1" {
				t.Errorf("the alert command wrote %q (%v) by the time watch exited\n%s", out, err, stderr)
			}
		}},
		{"a hanging command is killed at --alert-timeout", "exec sleep 60", "300ms", func(t *testing.T, _ []byte, stderr string, took time.Duration) {
			if !strings.Contains(stderr, "killed after 300ms") || took > 30*time.Second {
				t.Errorf("took %s\n%s", took, stderr)
			}
		}},
		{"a clean environment", "env > $OUT", "20s", func(t *testing.T, out []byte, stderr string, _ time.Duration) {
			env := string(out)
			for _, bad := range []string{secret, "OPENAI_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD"} {
				if strings.Contains(env, bad) {
					t.Errorf("the alert command's environment holds %s:\n%s", bad, env)
				}
			}
			for _, good := range []string{"PATH=", "HOME=", "LANG=C.UTF-8", "RAGSCOPE_ALERT_WEBHOOK=https://hooks.example/x"} {
				if !strings.Contains(env, good) {
					t.Errorf("the alert command's environment lacks %s:\n%s", good, env)
				}
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "alert.out")
			env := cleanEnv(t, "OPENAI_API_KEY="+secret, "GITHUB_TOKEN="+secret, "DB_PASSWORD="+secret, "LANG=C.UTF-8",
				"RAGSCOPE_ALERT_WEBHOOK=https://hooks.example/x", "OUT="+out)
			log := filepath.Join(dir, "app.jsonl")
			if err := os.WriteFile(log, []byte(`{"user_input":"q?","response":"The sky is blue.","retrieved_contexts":["The sky is blue."]}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// The path is written into the command: $OUT may be dropped
			// from a clean environment.
			cmd := strings.ReplaceAll(c.exec, "$OUT", out)
			start := time.Now()
			r := runBin(t, env, "watch", "--headless", "--once", "--offline", "--metrics", "faithfulness", "--db", filepath.Join(dir, "w.db"),
				"--alert", "faithfulness<1.01 over 1", "--alert-exec", cmd, "--alert-timeout", c.timeout, log)
			took := time.Since(start)
			if r.code != exitOK || !strings.Contains(r.stderr, "ALERT faithfulness<1.01 over 1") {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			body, _ := os.ReadFile(out)
			c.check(t, body, r.stderr, took)
		})
	}
}
