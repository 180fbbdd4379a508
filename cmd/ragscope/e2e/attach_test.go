package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/internal/holder"
)

// A server killed while it evaluates a detached run leaves nothing beside
// the run's --out and --junit: their files are created when the run ends.
func TestKilledServeLeavesNoTemporaryReport(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 200 * time.Millisecond })
	defer srv.Close()
	data := smallDataset(t, 20)
	dir := t.TempDir()
	db, out, junit := filepath.Join(dir, "r.db"), filepath.Join(dir, "report.json"), filepath.Join(dir, "junit.xml")
	env := cleanEnv(t, "OPENAI_BASE_URL="+srv.BaseURL())
	server, _ := serveAndDetach(t, env, "k", db, "--concurrency", "2", "--out", out, "--junit", junit, data)
	waitCalls(t, srv, 2, "the detached run sent no call", &server.stderr)
	if err := server.cmd.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	server.cmd.Wait()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") || e.Name() == "report.json" || e.Name() == "junit.xml" {
			t.Errorf("the killed server left %s beside --out", e.Name())
		}
	}
}

// `attach --wait RUN` gives a script the exit code of a detached run, its
// gate included: 4 for a breached gate, 0 for a passed one, and 130 for a
// run stopped before its end.
func TestAttachWaitExitsWithTheRunsCode(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 20 * time.Millisecond })
	defer srv.Close()
	// With the offline judge, faithfulness of gateDataset is 0.75.
	data := gateDataset(t, 8)
	db := filepath.Join(t.TempDir(), "r.db")
	env := cleanEnv(t, "OPENAI_BASE_URL="+srv.BaseURL())
	_, sub := serveAndDetach(t, env, "k", db, "--offline", "--metrics", "faithfulness", "--fail-under", "faithfulness=0.8", data)
	id := strings.TrimSpace(sub.stdout)
	r := runBin(t, env, "attach", "--wait", id, "--db", db)
	if r.code != exitGate || !strings.Contains(r.stderr, "gate FAILED") {
		t.Fatalf("attach --wait of a run whose gate fails: exit %d, want %d\n%s", r.code, exitGate, r.stderr)
	}
	// Waiting for a run that already ended answers at once, the same way.
	if r := runBin(t, env, "attach", "--wait", "latest", "--db", db); r.code != exitGate {
		t.Fatalf("attach --wait latest after the end: exit %d\n%s", r.code, r.stderr)
	}
	sub = runBin(t, append(env, "OPENAI_API_KEY=k"), "run", "--detach", "--db", db, "--offline", "--metrics", "faithfulness", "--fail-under", "faithfulness=0.5", data)
	if sub.code != 0 {
		t.Fatalf("run --detach: exit %d\n%s", sub.code, sub.stderr)
	}
	if r := runBin(t, env, "attach", "--wait", strings.TrimSpace(sub.stdout), "--db", db); r.code != exitOK || !strings.Contains(r.stderr, "gate passed") {
		t.Fatalf("attach --wait of a run whose gate passes: exit %d\n%s", r.code, r.stderr)
	}
	// Input the server refuses is the client's usage error (2), as it is
	// for run --headless, not a failure to carry the run out (1).
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"id":"a","question":"q"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runBin(t, append(env, "OPENAI_API_KEY=k"), "run", "--detach", "--db", db, "--offline", bad); r.code != exitUsage || !strings.Contains(r.stderr, `bad.jsonl:1: field "answer"`) || strings.Contains(r.stderr, "usage error:") {
		t.Fatalf("run --detach of a bad dataset: exit %d, want %d\n%s", r.code, exitUsage, r.stderr)
	}
	// A run stopped with X (Stop) before its end: 130, as an interrupted run.
	srv.Set(func(s *fakejudge.Server) { s.Delay = 300 * time.Millisecond })
	slow := smallDataset(t, 40)
	sub = runBin(t, append(env, "OPENAI_API_KEY=k"), "run", "--detach", "--db", db, "--concurrency", "1", slow)
	id = strings.TrimSpace(sub.stdout)
	waiter := startBin(t, env, "attach", "--wait", id, "--db", db)
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(runBin(t, env, "runs", "--db", db).stdout, "running (pid"); {
		if time.Now().After(deadline) {
			t.Fatal("the slow run is not running")
		}
	}
	stopRun(t, db, id)
	err := waiter.cmd.Wait()
	if code := waiter.cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("attach --wait of a stopped run: exit %d (%v), want %d\n%s", code, err, exitInterrupted, waiter.stderr.String())
	}
}

// stopRun stops a run the server on db evaluates, as X in attach does.
func stopRun(t *testing.T, db, id string) {
	t.Helper()
	sock, err := holder.SocketPath(db)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := holder.Dial(sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.Stop(id); err != nil {
		t.Fatal(err)
	}
}

// `attach` of a run before any of its samples is stored shows what the
// server has in flight: the samples being evaluated as rows and the calls
// sent so far, not "waiting for the first sample" with nothing sent. After
// X the screen shows the samples the stopped run stored.
func TestAttachShowsWhatIsInFlightInTmux(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	// Slow enough that no sample finishes while the screen is read: a
	// sample is a chain of several calls.
	srv.Set(func(s *fakejudge.Server) { s.Delay = 700 * time.Millisecond })
	defer srv.Close()
	data := smallDataset(t, 24)
	db := filepath.Join(t.TempDir(), "r.db")
	env := cleanEnv(t, "OPENAI_BASE_URL="+srv.BaseURL())
	server, sub := serveAndDetach(t, env, "k", db, "--concurrency", "4", data)
	id := strings.TrimSpace(sub.stdout)
	p := startTmux(t, 120, 40, "attach", id, "--db", db)
	inFlight := regexp.MustCompile(`in flight [1-9]`)
	sent := regexp.MustCompile(`calls sent [1-9]`)
	running := regexp.MustCompile(`running [1-9]`)
	screen := p.waitFor("the samples and calls in flight", func(s string) bool {
		return strings.Contains(s, "live run "+id) && running.MatchString(s) && strings.Contains(s, "question 0?") &&
			sent.MatchString(s) && inFlight.MatchString(s)
	})
	if strings.Contains(screen, "waiting for the first sample") {
		t.Fatalf("the attached screen shows rows in flight and waits for the first sample:\n%s", screen)
	}
	// The server stopped (Ctrl-Z in its terminal): the screen says so, and
	// carries on once it goes on.
	if err := server.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer server.cmd.Process.Signal(syscall.SIGCONT)
	p.waitForText("has not answered", "it is stopped")
	if err := server.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	p.waitFor("the note to go", func(s string) bool { return !strings.Contains(s, "has not answered") })
	p.keys("X")
	p.waitForText("Stop run " + id + "?")
	p.keys("y")
	screen = p.waitFor("the stopped run", func(s string) bool { return strings.Contains(s, "finished in") })
	// Every sample is stored: done, or cancelled by the stop (a sample with
	// a metric the stop cut short is not done: --resume evaluates it again).
	counts := regexp.MustCompile(`(\d+)/24(?: cancelled (\d+))?`).FindStringSubmatch(screen)
	stored := 0
	if counts != nil {
		done, _ := strconv.Atoi(counts[1])
		cancelled, _ := strconv.Atoi(counts[2])
		stored = done + cancelled
	}
	if strings.Contains(screen, "no samples") || stored != 24 {
		t.Fatalf("after X the screen does not show the stored samples (done and cancelled: %d of 24):\n%s", stored, screen)
	}
	p.quit()
}

// A run going through a holder that is then stopped (kill -STOP, Ctrl-Z
// in its terminal) says so within seconds instead of sitting silent, and
// goes on to its end once the holder does.
func TestClientOfAStoppedHolderSaysSo(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 20 * time.Millisecond })
	defer srv.Close()
	data := smallDataset(t, 12)
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	env := cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
	server := startServe(t, env, db)
	// The client's stderr goes to a file, read while it runs.
	errPath := filepath.Join(dir, "client.err")
	errFile, err := os.Create(errPath)
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	client := exec.Command(binary, "run", "--headless", "--concurrency", "1", "--db", db, data)
	client.Env, client.Stderr = env, errFile
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Process.Kill(); client.Wait() })
	waitStderr := func(what string) string {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; {
			b, _ := os.ReadFile(errPath)
			if strings.Contains(string(b), what) {
				return string(b)
			}
			if time.Now().After(deadline) {
				t.Fatalf("the client did not say %q within 20 s:\n%s", what, b)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitStderr("this run goes through it")
	waitCalls(t, srv, 2, "the client sent no call", nil)
	if err := server.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stoppedAt := time.Now()
	defer server.cmd.Process.Signal(syscall.SIGCONT)
	said := waitStderr("has not answered")
	if took := time.Since(stoppedAt); took > holder.HungAfter+5*time.Second {
		t.Errorf("the client took %s to say its holder stopped answering", took)
	}
	if !strings.Contains(said, "it is stopped") || !strings.Contains(said, fmt.Sprintf("kill -CONT %d", server.cmd.Process.Pid)) {
		t.Errorf("the client does not say the holder is stopped and how to resume it:\n%s", said)
	}
	if err := server.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitStderr("answers again")
	if err := client.Wait(); err != nil {
		b, _ := os.ReadFile(errPath)
		t.Fatalf("the client did not finish once its holder went on: %v\n%s", err, b)
	}
}
