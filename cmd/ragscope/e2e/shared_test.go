package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/holder"
)

// These tests drive real processes sharing one database: the first one to
// open it holds it and serves it on its socket; the others go through it.

// timedBin runs the binary and says how long it took.
func timedBin(t *testing.T, env []string, args ...string) (result, time.Duration) {
	t.Helper()
	start := time.Now()
	r := runBin(t, env, args...)
	return r, time.Since(start)
}

// duplicates counts chat and embedding requests the judge saw more than
// once. An embedding request is a batch (a sample's question and generated
// questions); two different batches may share a text, which is not the same
// call paid twice.
func duplicates(srv *fakejudge.Server) (chat, embeds int) {
	seen := map[string]bool{}
	for _, r := range srv.Requests() {
		b, _ := json.Marshal([]any{r.Task, r.Messages, r.N, r.Seed})
		if seen[string(b)] {
			chat++
		}
		seen[string(b)] = true
	}
	seenBatch := map[string]bool{}
	for _, batch := range srv.EmbedBatches() {
		k := strings.Join(batch, "\x00")
		if seenBatch[k] {
			embeds++
		}
		seenBatch[k] = true
	}
	return chat, embeds
}

// startBin starts the binary in the background; it is killed, if still
// running, when the test ends.
func startBin(t *testing.T, env []string, args ...string) *bgRun {
	t.Helper()
	needBinary(t)
	b := &bgRun{cmd: exec.Command(binary, args...)}
	b.cmd.Env = env
	b.cmd.Stdout, b.cmd.Stderr = &b.stdout, &b.stderr
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.cmd.Process.Kill(); b.cmd.Wait() })
	return b
}

// serveAndDetach starts `ragscope serve` on db and submits a run to it with
// the key (retrying while the server starts); it fails the test when the
// submission does not succeed within 20 s.
func serveAndDetach(t *testing.T, env []string, key, db string, args ...string) (*bgRun, result) {
	t.Helper()
	server := startBin(t, env, "serve", "--db", db)
	var sub result
	for deadline := time.Now().Add(20 * time.Second); ; {
		sub = runBin(t, append(env, "OPENAI_API_KEY="+key), append([]string{"run", "--detach", "--db", db}, args...)...)
		if sub.code == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // the server is starting
	}
	if sub.code != 0 {
		t.Fatalf("run --detach: exit %d\n%s\nserver: %s", sub.code, sub.stderr, server.stderr.String())
	}
	return server, sub
}

// startServe starts `ragscope serve` on db and returns once it serves.
func startServe(t *testing.T, env []string, db string) *bgRun {
	t.Helper()
	server := startBin(t, env, "serve", "--db", db)
	sock, err := holder.SocketPath(db)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		if cl, err := holder.Dial(sock, time.Second); err == nil {
			cl.Close()
			return server
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server does not serve:\n%s", server.stderr.String())
		}
		time.Sleep(20 * time.Millisecond) // the server is starting
	}
}

// failures lists the failed metrics of a JSON report, for test messages.
func failures(js string) string {
	var rep report.Report
	if json.Unmarshal([]byte(js), &rep) != nil {
		return "(no report)"
	}
	var b strings.Builder
	for _, smp := range rep.Samples {
		for m, e := range smp.Errors {
			fmt.Fprintf(&b, "sample %d %s: %s\n", smp.Index, m, e)
		}
	}
	return b.String()
}

// overlapping writes the first n samples of smallDataset's series plus
// extra ones of its own: two runs of them share n samples' judge calls.
func overlapping(t *testing.T, shared, extra int) (string, string) {
	t.Helper()
	a := smallDataset(t, shared)
	body, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(body)
	for i := 0; i < extra; i++ {
		fmt.Fprintf(&b, `{"id":"x%d","user_input":"extra %s question %d?","response":"extra answer %d.","retrieved_contexts":["extra chunk %d"],"reference":"extra reference %d"}`+"\n", i, t.Name(), i, i, i, i)
	}
	p := filepath.Join(t.TempDir(), "b.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return a, p
}

// While a run holds the database, readers get answers at once and a second
// run evaluates concurrently through the holder's cache and store: the judge
// sees each distinct call once and both runs are stored complete.
func TestSecondProcessGoesThroughTheHolder(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 40 * time.Millisecond })
	defer srv.Close()
	dataA, dataB := overlapping(t, 16, 4)
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	const keyA, keyB = "sk-first-SECRET-0123456789", "sk-second-SECRET-9876543210"
	env := cleanEnv(t, "OPENAI_API_KEY="+keyA, "OPENAI_BASE_URL="+srv.BaseURL())
	envB := cleanEnv(t, "OPENAI_API_KEY="+keyB, "OPENAI_BASE_URL="+srv.BaseURL())
	first := startUntil(t, env, srv, 1, "run", "--headless", "--concurrency", "2", "--db", db, dataA)

	export := filepath.Join(t.TempDir(), "cache.jsonl")
	for _, args := range [][]string{{"runs"}, {"report", "latest"}, {"cache", "stats"}, {"report", "latest", "--format", "md"},
		{"diff", "latest", "latest"}, {"cache", "export", export}, {"prompts", "list"}} {
		if args[0] != "prompts" { // the prompts are files, not in the database
			args = append(args, "--db", db)
		}
		r, took := timedBin(t, env, args...)
		if r.code != 0 {
			t.Fatalf("%v while a run holds the database: exit %d\n%s", args, r.code, r.stderr)
		}
		if took > time.Second {
			t.Errorf("%v took %s while a run holds the database, want under a second", args, took)
		}
		t.Logf("%v while a run holds the database: %s", args, took.Round(time.Millisecond))
		if args[0] == "runs" && !strings.Contains(r.stdout, "running (pid") {
			t.Errorf("runs does not show the run in progress:\n%s", r.stdout)
		}
	}

	second := runBin(t, envB, "run", "--headless", "--concurrency", "2", "--db", db, dataB)
	if second.code != 0 {
		t.Fatalf("second run: exit %d\n%s\n%s", second.code, second.stderr, failures(second.stdout))
	}
	if !strings.Contains(second.stderr, "this run goes through it") {
		t.Errorf("the second run does not say it goes through the holder:\n%s", second.stderr)
	}
	if err := first.cmd.Wait(); err != nil {
		t.Fatalf("first run: %v\n%s", err, first.stderr.String())
	}
	repA, repB := decodeReport(t, first.stdout.String()), decodeReport(t, second.stdout)
	for name, rep := range map[string]*report.Report{"first": repA, "second": repB} {
		if rep.Run.FinishedAt == nil || rep.Summary[eval.Faithfulness].Failed != 0 {
			t.Errorf("%s run incomplete: %+v", name, rep.Summary[eval.Faithfulness])
		}
	}
	if len(repA.Samples) != 16 || len(repB.Samples) != 20 {
		t.Fatalf("samples: %d and %d, want 16 and 20", len(repA.Samples), len(repB.Samples))
	}
	if chat, embeds := duplicates(srv); chat != 0 || embeds != 0 {
		t.Errorf("the judge saw %d chat and %d embedding requests twice; each distinct call must be paid once", chat, embeds)
	}
	// Each process paid for its calls with its own key; neither key reached
	// the other process or the disk.
	byKey := map[string]int{}
	for _, r := range srv.Requests() {
		byKey[r.Header.Get("Authorization")]++
	}
	if byKey["Bearer "+keyA] == 0 || byKey["Bearer "+keyB] == 0 || len(byKey) != 2 {
		t.Errorf("requests by key: %v; want both processes' own keys and nothing else", byKey)
	}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), keyA) || strings.Contains(string(b), keyB) {
				t.Errorf("an API key was written to %s", p)
			}
		}
		return nil
	})
	// Both runs are in the store, complete, once the holder has gone.
	for _, id := range []string{repA.Run.ID, repB.Run.ID} {
		r := runBin(t, env, "report", id, "--db", db)
		if r.code != 0 || len(decodeReport(t, r.stdout).Samples) == 0 {
			t.Fatalf("report %s after both runs: exit %d\n%s", id, r.code, r.stderr)
		}
	}
}

// kill -9 of the holder mid-run: the client takes the database over and
// finishes; a re-run of the killed run's dataset pays only for the calls
// that were in flight.
func TestHolderKilledMidRun(t *testing.T) {
	const conc = 2
	const metrics = "faithfulness,context_precision,context_recall"
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 30 * time.Millisecond })
	defer srv.Close()
	dataA, dataB := overlapping(t, 12, 12)
	db := filepath.Join(t.TempDir(), "r.db")
	// Each process has its own key, so the judge's log says who paid.
	env := cleanEnv(t, "OPENAI_API_KEY=killed", "OPENAI_BASE_URL="+srv.BaseURL())
	envB := cleanEnv(t, "OPENAI_API_KEY=survivor", "OPENAI_BASE_URL="+srv.BaseURL())
	holderRun := startUntil(t, env, srv, 4, "run", "--headless", "--metrics", metrics, "--concurrency", fmt.Sprint(conc), "--db", db, dataA)
	clientRun := startBin(t, envB, "run", "--headless", "--metrics", metrics, "--concurrency", "2", "--db", db, dataB)
	// The client is under way, attached to the holder, once the judge has
	// seen calls it paid: calls of the holder alone would let the kill come
	// before the client attached, and it would then hold the file itself.
	for deadline := time.Now().Add(20 * time.Second); paidBy(srv, "Bearer survivor") < 6; {
		if time.Now().After(deadline) {
			t.Fatalf("the client made no progress:\n%s", clientRun.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Every request recorded by now was sent before the kill.
	atKill := srv.Count("")
	if err := holderRun.cmd.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	holderRun.cmd.Wait()
	if err := clientRun.cmd.Wait(); err != nil {
		t.Fatalf("the client did not survive its holder's kill -9: %v\n%s\n%s", err, clientRun.stderr.String(), failures(clientRun.stdout.String()))
	}
	if !strings.Contains(clientRun.stderr.String(), "went away") {
		t.Errorf("the client does not say its holder went away:\n%s", clientRun.stderr.String())
	}
	rep := decodeReport(t, clientRun.stdout.String())
	if len(rep.Samples) != 24 || rep.Summary[eval.Faithfulness].Scored != 24 {
		t.Fatalf("client report after takeover: %d samples, %+v", len(rep.Samples), rep.Summary[eval.Faithfulness])
	}
	// What the kill can cost: the requests on the wire (conc slots) and the
	// replies received but not yet committed, at most one per slot.
	const lost = 2 * conc
	sent := srv.Count("")
	// The re-run has a key of its own, so that what it pays is told apart
	// from what the killed process paid before it died.
	envRerun := cleanEnv(t, "OPENAI_API_KEY=rerun", "OPENAI_BASE_URL="+srv.BaseURL())
	r := runBin(t, envRerun, "run", "--headless", "--metrics", metrics, "--concurrency", fmt.Sprint(conc), "--db", db, dataA)
	if r.code != 0 {
		t.Fatalf("re-run of the killed run: exit %d\n%s", r.code, r.stderr)
	}
	resent := srv.Count("") - sent
	if resent > lost {
		t.Fatalf("re-running the killed run sent %d calls; at most the %d in flight at the kill were lost", resent, lost)
	}
	// The survivor finished its run, so every call it paid is stored, those
	// it had on the wire while its holder died included: its run again
	// costs nothing.
	before := srv.Count("")
	if r := runBin(t, envRerun, "run", "--headless", "--metrics", metrics, "--concurrency", "2", "--db", db, dataB); r.code != 0 {
		t.Fatalf("re-run of the survivor's run: exit %d\n%s", r.code, r.stderr)
	}
	if n := srv.Count("") - before; n != 0 {
		t.Errorf("re-running the survivor's finished run sent %d calls: replies it paid for were not stored", n)
	}
	// A call is paid twice only when the killed process had it on the wire
	// at the kill and the survivor, having taken over, paid it after the
	// kill; or when the re-run pays one the killed process never saw
	// answered. Nobody pays again for a call the survivor paid, and nobody
	// pays one twice while both processes are alive (claims). The order of
	// the two copies is not asserted: the killed process's last request may
	// be read by the judge after the survivor's.
	type payment struct {
		who string
		at  int
	}
	paid := map[string][]payment{}
	for i, req := range srv.Requests() {
		b, _ := json.Marshal([]any{req.Task, req.Messages, req.N, req.Seed})
		paid[string(b)] = append(paid[string(b)], payment{req.Header.Get("Authorization"), i})
	}
	twice := 0
	for _, ps := range paid {
		if len(ps) < 2 {
			continue
		}
		twice += len(ps) - 1
		by := map[string]int{}
		for _, p := range ps {
			by[p.who]++
			if p.who == "Bearer survivor" && p.at < atKill {
				t.Errorf("a call the survivor paid before the kill (request %d of %d) was paid again: %+v", p.at, atKill, ps)
			}
		}
		switch {
		case by["Bearer killed"] != 1 || len(ps) != 2:
			t.Errorf("a call was paid %d times, %d of them by the killed process; only a call it had in flight may be paid once more: %+v", len(ps), by["Bearer killed"], ps)
		case by["Bearer rerun"] == 0 && by["Bearer survivor"] == 0:
			t.Errorf("a call was paid again by nobody known: %+v", ps)
		}
	}
	t.Logf("after kill -9 of the holder: %d calls it had in flight were paid again by the survivor or the re-run; the re-run sent %d", twice, resent)
}

// serve + run --detach: the run belongs to the server, survives its client,
// and `attach`'s clients can come and go; the API key is never written.
func TestDetachedRunOutlivesItsClient(t *testing.T) {
	const key = "sk-detach-SECRET-0123456789"
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 20 * time.Millisecond })
	defer srv.Close()
	data := smallDataset(t, 12)
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	env := cleanEnv(t, "OPENAI_BASE_URL="+srv.BaseURL())
	server, sub := serveAndDetach(t, env, key, db, "--concurrency", "2", data)
	id := strings.TrimSpace(sub.stdout)
	if !strings.Contains(sub.stderr, "ragscope attach "+id) {
		t.Errorf("detach does not say how to attach:\n%s", sub.stderr)
	}
	// The submitting process is gone; the run goes on to its end.
	var rep *report.Report
	for deadline := time.Now().Add(30 * time.Second); ; {
		r := runBin(t, env, "report", id, "--db", db)
		if r.code == 0 {
			if rep = decodeReport(t, r.stdout); rep.Run.FinishedAt != nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("detached run %s did not finish: %s\nserver: %s", id, r.stderr, server.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if rep.Run.Cancelled || rep.Summary[eval.Faithfulness].Scored != 12 {
		t.Fatalf("detached run: cancelled %v, %+v", rep.Run.Cancelled, rep.Summary[eval.Faithfulness])
	}
	if srv.Count("") == 0 {
		t.Fatal("the judge saw no call")
	}
	for _, r := range srv.Requests() {
		if got := r.Header.Get("Authorization"); got != "Bearer "+key {
			t.Fatalf("the server's judge calls carry %q, not the client's key", got)
		}
	}
	if err := server.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := server.cmd.Wait(); err != nil {
		t.Fatalf("serve did not stop cleanly on SIGINT: %v\n%s", err, server.stderr.String())
	}
	// The key is nowhere on disk or in what the server printed.
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), key) {
				t.Errorf("the API key was written to %s", p)
			}
		}
		return nil
	})
	if strings.Contains(server.stderr.String()+server.stdout.String(), key) {
		t.Error("the server printed the API key")
	}
}

// Without a server, --detach says what to start; it never starts one itself.
func TestDetachWithoutServer(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	r, took := timedBin(t, cleanEnv(t), "run", "--detach", "--db", db, repoFile("testdata/demo.jsonl"))
	if r.code == 0 || !strings.Contains(r.stderr, "ragscope serve --db "+db) {
		t.Fatalf("detach without a server: exit %d\n%s", r.code, r.stderr)
	}
	if took > 3*time.Second {
		t.Errorf("detach took %s to give up", took)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("detach without a server created the database")
	}
}

// The holder killed while two clients evaluate the same samples: the hand
// over keeps the claims the clients held and the replies they had in
// flight, so no call one client paid for (or was paying for) at the kill
// is paid again by the other. The holder is a server that makes no calls
// of its own, so every request the judge sees twice is one paid twice.
func TestTakeoverPaysNoCallTwice(t *testing.T) {
	// Calls last longer than a takeover takes, so that calls one client
	// has on the wire at the kill are still there when the other comes
	// back asking for them.
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 250 * time.Millisecond })
	defer srv.Close()
	data := smallDataset(t, 24)
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	env := cleanEnv(t, "OPENAI_BASE_URL="+srv.BaseURL())
	server := startServe(t, env, db)
	const metrics = "faithfulness,context_precision,context_recall"
	a := startBin(t, cleanEnv(t, "OPENAI_API_KEY=a", "OPENAI_BASE_URL="+srv.BaseURL()), "run", "--headless", "--metrics", metrics, "--concurrency", "4", "--db", db, data)
	b := startBin(t, cleanEnv(t, "OPENAI_API_KEY=b", "OPENAI_BASE_URL="+srv.BaseURL()), "run", "--headless", "--metrics", metrics, "--concurrency", "4", "--db", db, data)
	waitCalls(t, srv, 20, "the clients made no progress", nil)
	if err := server.cmd.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	server.cmd.Wait()
	for name, c := range map[string]*bgRun{"a": a, "b": b} {
		if err := c.cmd.Wait(); err != nil {
			t.Fatalf("client %s did not survive its holder's kill -9: %v\n%s", name, err, c.stderr.String())
		}
		if rep := decodeReport(t, c.stdout.String()); rep.Summary[eval.Faithfulness].Scored != 24 {
			t.Fatalf("client %s: %+v", name, rep.Summary[eval.Faithfulness])
		}
	}
	chat, embeds := duplicates(srv)
	t.Logf("takeover: %d requests, %d chat and %d embedding requests sent twice", len(srv.Requests()), chat, embeds)
	if chat != 0 || embeds != 0 {
		t.Errorf("after the takeover the judge saw %d chat and %d embedding requests twice; a call is paid once", chat, embeds)
	}
}

// paidBy counts the judge's requests sent with the Authorization header who.
func paidBy(srv *fakejudge.Server, who string) int {
	n := 0
	for _, req := range srv.Requests() {
		if req.Header.Get("Authorization") == who {
			n++
		}
	}
	return n
}
