package holder

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/stacks"
)

func TestMain(m *testing.M) {
	if action := os.Getenv("HOLDER_TEST_HELPER"); action != "" {
		helperMain(action, os.Getenv("HOLDER_TEST_SOCK"), os.Getenv("HOLDER_TEST_KEY"))
		return
	}
	// Sockets of long test paths go under the fallback root; keep that
	// out of the real /tmp/ragscope-<uid> and short enough for sun_path.
	root, err := os.MkdirTemp("", "rsh")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fallbackRoot = root
	code := m.Run()
	_ = os.RemoveAll(root)
	os.Exit(code)
}

// helperMain is a client in a process of its own, so that a test can kill
// it with SIGKILL in the middle of a call, as a user's Ctrl-\ or the OOM
// killer would. It says "ready" once the call it blocks in is on its way.
func helperMain(action, sock, key string) {
	if action == "serve" {
		// A holder in a process of its own, so that a test can stop it
		// (kill -STOP) as Ctrl-Z would. sock is the database's path.
		db, err := cache.Open(sock, cache.Options{})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
		if _, err := Serve(db, ServeOptions{Role: "run"}); err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
		fmt.Println("ready")
		select {} // until killed
	}
	cl, err := Dial(sock, 5*time.Second)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	switch action {
	case "hold-claim":
		_, granted, err := cl.Claim(ctx, key)
		fmt.Println("ready", granted, err)
	case "wait-claim":
		fmt.Println("ready")
		_, _, _ = cl.Claim(ctx, key)
	case "watch":
		b, err := cl.LiveUpdates(ctx, key, -1, 0)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
		fmt.Println("ready")
		_, _ = cl.LiveUpdates(ctx, key, b.Seq, 0)
	}
	select {} // until killed
}

// startHelper runs helperMain in a child process and returns once it is
// ready; the test kills it.
func startHelper(t *testing.T, action, sock, key string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HOLDER_TEST_HELPER="+action, "HOLDER_TEST_SOCK="+sock, "HOLDER_TEST_KEY="+key)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ready") {
		t.Fatalf("helper %s: %q, %v", action, line, err)
	}
	if action == "hold-claim" && !strings.HasPrefix(line, "ready true <nil>") {
		t.Fatalf("helper was not granted the claim: %q", line)
	}
	return cmd
}

func newDB(t testing.TB) *cache.DB {
	t.Helper()
	db, err := cache.Open(filepath.Join(t.TempDir(), "h.db"), cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// serveDB serves db until the test ends; the server is closed before the
// database (cleanups run last-in first-out).
func serveDB(t testing.TB, db *cache.DB, opt ServeOptions) *Server {
	t.Helper()
	srv, err := Serve(db, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	return srv
}

func dial(t testing.TB, sock string) *Client {
	t.Helper()
	cl, err := Dial(sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

// waitClients waits, without sleeping, until the server has n clients.
func waitClients(t *testing.T, srv *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for got := srv.Clients(); got != n; got = srv.Clients() {
		if time.Now().After(deadline) {
			t.Fatalf("server has %d clients, want %d", got, n)
		}
		runtime.Gosched()
	}
}

func waitParked(t *testing.T, fn string, n int) { t.Helper(); waitBlocked(t, fn, "select", n) }

func waitBlocked(t *testing.T, fn, state string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for stacks.Blocked(fn, state) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines wait (%s) in %s, want %d", stacks.Blocked(fn, state), state, fn, n)
		}
		runtime.Gosched()
	}
}

func sameJSON(t *testing.T, what string, direct, socket any) {
	t.Helper()
	a, err := json.Marshal(direct)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	b, err := json.Marshal(socket)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if string(a) != string(b) {
		t.Errorf("%s differs through the socket:\ndirect %s\nsocket %s", what, a, b)
	}
}

func score(x float64) *float64 { return &x }

func runInfo(id string, samples int) report.RunInfo {
	started := time.Date(2025, 3, 4, 5, 6, 7, 890, time.UTC)
	return report.RunInfo{
		ID: id, Dataset: "qa.jsonl", DatasetHash: "abc", StartedAt: started,
		Judge:   eval.JudgeInfo{Kind: "llm", Name: "gpt-4o-mini", Model: "gpt-4o-mini"},
		Prompts: map[string]string{"faithfulness_statements.en": "ff"},
		Metrics: []eval.Metric{eval.Faithfulness, eval.AnswerRelevancy},
		Config:  map[string]string{"concurrency": "4"},
		Samples: samples,
	}
}

// result has the nil score gob could not carry.
func result(i int) *eval.Result {
	return &eval.Result{
		Index: i, ID: fmt.Sprintf("q%d", i), Question: "why <b>&</b>?", Answer: "because",
		Contexts: []string{"c1", "c2"},
		Scores:   map[eval.Metric]*float64{eval.Faithfulness: score(0.5 + float64(i)/10), eval.AnswerRelevancy: nil},
		Status:   map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.AnswerRelevancy: eval.StatusParseError},
		Errors:   map[eval.Metric]string{eval.AnswerRelevancy: "no JSON"},
		Calls:    []eval.CallRecord{{Task: "faithfulness_statements", Key: "k", Cached: true}},
	}
}

// Socket is the path the server listens on.
func (s *Server) Socket() string { return s.sock }

// Clients is the number of connected clients.
func (s *Server) Clients() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Hung says whether the holder has left a ping unanswered for HungAfter
// (and has not answered since).
func (c *Client) Hung() bool {
	c.hungMu.Lock()
	defer c.hungMu.Unlock()
	return c.hung
}
