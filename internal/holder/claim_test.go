package holder

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

const dbClaim = "cache.(*DB).Claim("

type claimed struct {
	release func()
	granted bool
	err     error
}

func claimAsync(st cache.Store, ctx context.Context, key string) <-chan claimed {
	ch := make(chan claimed, 1)
	go func() {
		r, g, err := st.Claim(ctx, key)
		ch <- claimed{r, g, err}
	}()
	return ch
}

// The second of two callers of one key waits until the first releases it
// and is then told to look again, whoever the two are.
func TestClaimAcrossProcesses(t *testing.T) {
	db := newDB(t)
	srv := serveDB(t, db, ServeOptions{})
	a, b := dial(t, srv.Socket()), dial(t, srv.Socket())
	ctx := context.Background()
	tests := []struct {
		name          string
		first, second cache.Store
	}{
		{"client then client", a, b},
		{"holder then client", db, b},
		{"client then holder", a, db},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := fmt.Sprint("k", i)
			release, granted, err := tc.first.Claim(ctx, key)
			if err != nil || !granted {
				t.Fatalf("first claim: %v %v", granted, err)
			}
			second := claimAsync(tc.second, ctx, key)
			waitParked(t, dbClaim, 1)
			select {
			case r := <-second:
				t.Fatalf("the second caller did not wait: %+v", r)
			default:
			}
			release()
			release() // twice is harmless
			if r := <-second; r.err != nil || r.granted {
				t.Fatalf("second caller after the release: granted %v, %v; want told to look again", r.granted, r.err)
			}
			r, g, err := tc.second.Claim(ctx, key)
			if err != nil || !g {
				t.Fatalf("the key cannot be claimed after its release: %v %v", g, err)
			}
			r()
		})
	}
}

// A client that goes away holding a claim does not block the others.
func TestClaimReleasedWithItsConnection(t *testing.T) {
	db := newDB(t)
	srv := serveDB(t, db, ServeOptions{})
	ctx := context.Background()
	other := dial(t, srv.Socket())

	t.Run("closed", func(t *testing.T) {
		a := dial(t, srv.Socket())
		if _, g, err := a.Claim(ctx, "closed"); err != nil || !g {
			t.Fatal(g, err)
		}
		waiting := claimAsync(other, ctx, "closed")
		waitParked(t, dbClaim, 1)
		_ = a.Close()
		if r := <-waiting; r.err != nil || r.granted {
			t.Fatalf("waiter: %+v, want told to look again", r)
		}
		r, g, err := other.Claim(ctx, "closed")
		if err != nil || !g {
			t.Fatal(g, err)
		}
		r()
	})

	t.Run("killed", func(t *testing.T) {
		helper := startHelper(t, "hold-claim", srv.Socket(), "killed")
		waiting := claimAsync(other, ctx, "killed")
		waitParked(t, dbClaim, 1)
		if err := helper.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		if r := <-waiting; r.err != nil || r.granted {
			t.Fatalf("waiter: %+v, want told to look again", r)
		}
		r, g, err := other.Claim(ctx, "killed")
		if err != nil || !g {
			t.Fatal(g, err)
		}
		r()
	})
}

// A client killed while it waits (in Claim or Watch) leaves nothing
// waiting on the holder, which goes on serving the others.
func TestClientKilledMidCall(t *testing.T) {
	db := newDB(t)
	srv := serveDB(t, db, ServeOptions{})
	other := dial(t, srv.Socket())
	ctx := context.Background()
	if err := db.PutRun(runInfo("r", 1)); err != nil {
		t.Fatal(err)
	}
	release, _, _ := db.Claim(ctx, "held")
	defer release()

	tests := []struct {
		action, key, waitsIn string
	}{
		{"wait-claim", "held", dbClaim},
		{"watch", "r", "cache.(*DB).LiveUpdatesRaw("},
	}
	for _, tc := range tests {
		t.Run(tc.action, func(t *testing.T) {
			waitClients(t, srv, 1)
			helper := startHelper(t, tc.action, srv.Socket(), tc.key)
			waitParked(t, tc.waitsIn, 1)
			if err := helper.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			waitClients(t, srv, 1)
			waitParked(t, tc.waitsIn, 0)
			if _, err := other.Runs(); err != nil {
				t.Fatal(err)
			}
			if err := other.PutResult("r", result(0)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Claim answers "look again" at its bound rather than waiting for ever on
// the holder: a client that lost interest leaves no wait behind for long.
func TestClaimWaitIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skipf("waits %s", maxClaimWait)
	}
	db := newDB(t)
	srv := serveDB(t, db, ServeOptions{})
	cl := dial(t, srv.Socket())
	release, _, _ := db.Claim(context.Background(), "slow")
	defer release()
	start := time.Now()
	_, g, err := cl.Claim(context.Background(), "slow")
	if err != nil || g {
		t.Fatalf("bounded claim: %v %v, want not granted", g, err)
	}
	if d := time.Since(start); d < maxClaimWait {
		t.Fatalf("answered after %s, before the bound", d)
	}
}

// A client that gives up on a claim must not leave it held, even when the
// holder grants it after the client stopped waiting: nobody would fetch.
func TestAbandonedClaimIsReleased(t *testing.T) {
	db := newDB(t)
	srv := serveDB(t, db, ServeOptions{})
	cl := dial(t, srv.Socket())
	waitClients(t, srv, 1)
	ctx := context.Background()
	// claimFree waits until the key is free and leaves it free; it would
	// hang (and the test time out) if an abandoned claim stayed held.
	claimFree := func(t *testing.T, key string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		for {
			r, g, err := db.Claim(ctx, key)
			if err != nil {
				t.Fatalf("key %s stays held: %v", key, err)
			}
			if g {
				r()
				return
			}
		}
	}

	t.Run("abandoned while waiting", func(t *testing.T) {
		release, _, _ := db.Claim(ctx, "waiting")
		cctx, cancel := context.WithCancel(ctx)
		abandoned := claimAsync(cl, cctx, "waiting")
		waitParked(t, dbClaim, 1)
		cancel()
		if r := <-abandoned; !errors.Is(r.err, context.Canceled) {
			t.Fatalf("cancelled claim: %+v", r)
		}
		if _, _, err := cl.Claim(cctx, "waiting"); !errors.Is(err, context.Canceled) {
			t.Fatalf("claim with a cancelled context: %v", err)
		}
		release()
		claimFree(t, "waiting")
	})

	t.Run("granted after it was abandoned", func(t *testing.T) {
		var c *conn
		srv.mu.Lock()
		for c = range srv.conns {
		}
		srv.mu.Unlock()
		// Hold the grant on the holder until the client has given up.
		c.mu.Lock()
		cctx, cancel := context.WithCancel(ctx)
		abandoned := claimAsync(cl, cctx, "late")
		waitBlocked(t, "holder.(*conn).addClaim(", "sync.Mutex.Lock", 1)
		cancel()
		if r := <-abandoned; !errors.Is(r.err, context.Canceled) {
			t.Fatalf("cancelled claim: %+v", r)
		}
		c.mu.Unlock()
		claimFree(t, "late")
	})
}

func TestLiveRuns(t *testing.T) {
	db := newDB(t)
	srv := serveDB(t, db, ServeOptions{Role: "run"})
	a, b := dial(t, srv.Socket()), dial(t, srv.Socket())
	srv.BeginRun("mine")
	if err := a.BeginRun("theirs"); err != nil {
		t.Fatal(err)
	}
	if err := a.BeginRun(""); err == nil {
		t.Fatal("began a run without an id")
	}
	want := map[string]LiveRun{"mine": {os.Getpid(), "run"}, "theirs": {os.Getpid(), clientRole}}
	for name, live := range map[string]func() (map[string]LiveRun, error){
		"holder": func() (map[string]LiveRun, error) { return srv.Live(), nil },
		"client": b.Live,
	} {
		got, err := live()
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s sees %v, %v; want %v", name, got, err, want)
		}
	}
	// Only the one who began a run ends it.
	if err := b.EndRun("theirs"); err != nil {
		t.Fatal(err)
	}
	srv.EndRun("theirs")
	if _, ok := srv.Live()["theirs"]; !ok {
		t.Fatal("another process ended the run")
	}
	_ = a.Close()
	waitClients(t, srv, 1)
	if got := srv.Live(); len(got) != 1 || got["mine"].Role != "run" {
		t.Fatalf("after the client closed: %v", got)
	}
	srv.EndRun("mine")
	if got, err := b.Live(); err != nil || len(got) != 0 {
		t.Fatalf("after EndRun: %v %v", got, err)
	}
}

// The evaluator of a live run tells the holder its progress; any client
// reads it; only the evaluator sets it; it goes with the run.
func TestRunProgress(t *testing.T) {
	srv := serveDB(t, newDB(t), ServeOptions{Role: "run"})
	a, b := dial(t, srv.Socket()), dial(t, srv.Socket())
	if err := a.BeginRun("theirs"); err != nil {
		t.Fatal(err)
	}
	p := Progress{Calls: eval.CallCounts{Chat: 22, CacheHits: 1}, Tokens: eval.Usage{PromptTokens: 900}, InFlight: 4,
		Samples: []StartedSample{{Index: 0, ID: "s0", Question: "why?"}, {Index: 3, Answer: "because"}}}
	if err := a.SetProgress("theirs", p); err != nil {
		t.Fatal(err)
	}
	if err := b.SetProgress("theirs", Progress{InFlight: 99}); err != nil {
		t.Fatal(err)
	}
	got, err := b.Progress("theirs")
	if err != nil || !got.Live || got.Progress == nil {
		t.Fatalf("Progress = %+v, %v", got, err)
	}
	sameJSON(t, "progress", p, *got.Progress)
	srv.BeginRun("mine")
	srv.SetProgress("mine", Progress{InFlight: 2})
	if got, err := a.Progress("mine"); err != nil || got.Progress == nil || got.Progress.InFlight != 2 {
		t.Fatalf("the holder's own run: %+v, %v", got, err)
	}
	_ = a.Close()
	waitClients(t, srv, 1)
	if got, err := b.Progress("theirs"); err != nil || got.Live || got.Progress != nil {
		t.Fatalf("after its evaluator left, the run's progress is %+v, %v", got, err)
	}
}

type fakeRuns struct {
	mu   sync.Mutex
	reqs []SubmitRequest
	err  error
}

func (f *fakeRuns) Submit(req SubmitRequest) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	if f.err != nil {
		return "", f.err
	}
	return "run-1", nil
}

func (f *fakeRuns) Stop(id string) error {
	if id != "run-1" {
		return fmt.Errorf("run %s is not being evaluated by this server", id)
	}
	return nil
}

func (f *fakeRuns) Outcome(ctx context.Context, id string) (RunOutcome, error) {
	if id != "run-1" {
		return RunOutcome{}, nil
	}
	return RunOutcome{Known: true, Done: true, Code: 4, Summary: "gate FAILED"}, nil
}

func TestRunService(t *testing.T) {
	req := SubmitRequest{Config: []byte(`{"dataset":"qa.jsonl"}`), APIKey: "sk-secret-123", Dir: "/work"}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if s := fmt.Sprintf(verb, req); strings.Contains(s, req.APIKey) {
			t.Errorf("%s shows the API key: %s", verb, s)
		}
	}

	t.Run("served", func(t *testing.T) {
		runs := &fakeRuns{}
		srv := serveDB(t, newDB(t), ServeOptions{Role: "serve", Runs: runs})
		cl := dial(t, srv.Socket())
		id, err := cl.Submit(req)
		if err != nil || id != "run-1" {
			t.Fatalf("Submit = %q, %v", id, err)
		}
		if got := runs.reqs[0]; string(got.Config) != string(req.Config) || got.APIKey != req.APIKey || got.Dir != req.Dir {
			t.Fatalf("the service got %+v", got)
		}
		if err := cl.Stop("run-1"); err != nil {
			t.Fatal(err)
		}
		if err := cl.Stop("run-2"); err == nil || !strings.Contains(err.Error(), "run run-2 is not being evaluated") {
			t.Fatalf("Stop of an unknown run: %v", err)
		}
		if o, err := cl.Outcome(context.Background(), "run-1"); err != nil || o != (RunOutcome{Known: true, Done: true, Code: 4, Summary: "gate FAILED"}) {
			t.Fatalf("Outcome = %+v, %v", o, err)
		}
		if o, err := cl.Outcome(context.Background(), "run-2"); err != nil || o.Known {
			t.Fatalf("Outcome of an unknown run = %+v, %v", o, err)
		}
		runs.err = fmt.Errorf("endpoint said: invalid key %s", req.APIKey)
		_, err = cl.Submit(req)
		if err == nil || strings.Contains(err.Error(), req.APIKey) || !strings.Contains(err.Error(), "invalid key [redacted]") {
			t.Fatalf("Submit error %v, want the key redacted", err)
		}
	})

	t.Run("not served", func(t *testing.T) {
		db := newDB(t)
		srv := serveDB(t, db, ServeOptions{Role: "run"})
		cl := dial(t, srv.Socket())
		_, err := cl.Submit(req)
		if !errors.Is(err, ErrNoRunService) {
			t.Fatalf("Submit: %v, want ErrNoRunService", err)
		}
		for _, s := range []string{cl.Path(), fmt.Sprintf("pid %d, role run", os.Getpid()), "ragscope serve --db " + cl.Path()} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%q does not say %q", err, s)
			}
		}
		if strings.Contains(err.Error(), req.APIKey) {
			t.Fatal("the error shows the API key")
		}
		if err := cl.Stop("x"); !errors.Is(err, ErrNoRunService) {
			t.Fatalf("Stop: %v, want ErrNoRunService", err)
		}
	})
}

// Readers do not get in the way of a writer, nor of each other.
func TestConcurrentClients(t *testing.T) {
	db := newDB(t)
	srv := serveDB(t, db, ServeOptions{})
	writer := dial(t, srv.Socket())
	const samples, readers = 50, 20
	if err := writer.PutRun(runInfo("c", samples)); err != nil {
		t.Fatal(err)
	}
	req := eval.ChatRequest{Model: "m", Messages: []eval.Message{{Role: "user", Content: "q"}}}
	if err := writer.PutChat(req.Key(), req, eval.ChatResponse{Choices: []string{"a"}}); err != nil {
		t.Fatal(err)
	}

	done := make(chan struct{})
	errs := make(chan error, readers+1)
	var wg sync.WaitGroup
	for i := 0; i < readers; i++ {
		cl := dial(t, srv.Socket())
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				if n > 0 {
					select {
					case <-done:
						return
					default:
					}
				}
				if _, _, err := cl.Run("c"); err != nil {
					errs <- err
					return
				}
				if _, ok, err := cl.LookupChat(req.Key()); err != nil || !ok {
					errs <- fmt.Errorf("lookup: %v %v", ok, err)
					return
				}
			}
		}()
	}
	for i := 0; i < samples; i++ {
		if err := writer.PutResult("c", result(i)); err != nil {
			errs <- err
			break
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	_, rs, err := db.Run("c")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		if r == nil {
			t.Errorf("sample %d was not stored", i)
		}
	}
}

// A holder that took over holds new claims back until its predecessor's
// claimers (the pids it left beside the socket) have rejoined, or for
// handoverWait; a client that rejoins holds its claims again, so another
// asking for one waits for its release instead of being granted it.
func TestHandover(t *testing.T) {
	old := handoverWait
	handoverWait = 500 * time.Millisecond
	defer func() { handoverWait = old }()
	// A process that was a claimer of the previous holder and is still
	// alive but does not come back: the wait ends at handoverWait.
	gone := exec.Command("sleep", "60")
	if err := gone.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = gone.Process.Kill(); _ = gone.Wait() }()
	db := newDB(t)
	sock, err := SocketPath(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := ensureSocketDir(filepath.Dir(sock), os.Getuid()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(sock), claimersName), []byte(fmt.Sprintf("%d\n999999999\n", gone.Process.Pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := serveDB(t, db, ServeOptions{})
	a, b := dial(t, srv.Socket()), dial(t, srv.Socket())
	// a held "k" at the previous holder and rejoins with it.
	tokens, err := a.Rejoin([]string{"k"})
	if err != nil || len(tokens) != 1 || tokens[0] == 0 {
		t.Fatalf("Rejoin = %v, %v", tokens, err)
	}
	select {
	case <-srv.HandoverDone():
		t.Fatal("the hand-over ended before the claimer still alive came back or the wait ran out")
	default:
	}
	// A new claim waits for the hand-over, then is granted.
	got := claimAsync(b, context.Background(), "other")
	waitParked(t, "holder.(*handover).wait", 1)
	select {
	case <-srv.HandoverDone():
	case <-time.After(10 * time.Second):
		t.Fatal("the hand-over never ended")
	}
	if c := <-got; c.err != nil || !c.granted {
		t.Fatalf("after the hand-over: %+v", c)
	}
	// "k" is a's: b waits for it, and is not granted it once a releases.
	wait := claimAsync(b, context.Background(), "k")
	waitParked(t, "cache.(*DB).Claim", 1)
	a.Release(tokens[0])()
	if c := <-wait; c.err != nil || c.granted {
		t.Fatalf("claim of a key a rejoined with: %+v, want not granted once a released it", c)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(sock), claimersName)); err != nil {
		t.Errorf("the holder does not keep its claimers for a successor: %v", err)
	}
}
