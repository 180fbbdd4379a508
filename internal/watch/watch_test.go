package watch

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/app"
	"github.com/ragscope/ragscope/internal/store"
)

// watchRig is a watcher over logs in a temporary directory, judged by the
// fake endpoint without the cache: every evaluation is a request in the
// fake judge's log, so one evaluated twice shows there.
type watchRig struct {
	t   *testing.T
	dir string
	db  string
	srv *fakejudge.Server
	st  *store.Shared
	f   *Watcher

	cancel context.CancelFunc
	done   chan error
	clock  func() time.Time
}

func newWatchRig(t *testing.T, srv *fakejudge.Server) *watchRig {
	t.Helper()
	if srv == nil {
		srv = fakejudge.New(fakejudge.Generic)
		t.Cleanup(srv.Close)
	}
	dir := t.TempDir()
	return &watchRig{t: t, dir: dir, db: filepath.Join(dir, "w.db"), srv: srv}
}

func (w *watchRig) config() *app.Config {
	cfg := &app.Config{BaseURL: w.srv.BaseURL(), APIKey: "test-key-123456", APIType: "openai",
		Model: "judge-model", EmbeddingModel: "embed-model", ResponseFormat: "json_schema", EmbedFormat: "float", Strictness: 1,
		Concurrency: 4, Timeout: 10 * time.Second, MaxRetries: 0, Metrics: "faithfulness", Lang: "auto", NoCache: true}
	if err := cfg.Validate(); err != nil {
		w.t.Fatal(err)
	}
	return cfg
}

// start runs a watcher on patterns (relative to the rig's directory).
func (w *watchRig) start(fc Config, patterns ...string) *Watcher {
	w.t.Helper()
	for _, p := range patterns {
		fc.Logs = append(fc.Logs, filepath.Join(w.dir, p))
	}
	if fc.Poll == 0 {
		fc.Poll = 10 * time.Millisecond
	}
	w.st = openShared(w.t, w.db, store.Hold)
	f, err := Prepare(w.config(), fc, w.st, io.Discard)
	if err != nil {
		w.t.Fatal(err)
	}
	w.f = f
	if w.clock != nil {
		f.clock = w.clock
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan error, 1)
	go func() { w.done <- f.Run(ctx) }()
	w.t.Cleanup(w.stop)
	return f
}

// stop ends the watcher and closes the database, as a process exiting would.
func (w *watchRig) stop() {
	if w.cancel == nil {
		return
	}
	w.cancel()
	select {
	case err := <-w.done:
		if err != nil {
			w.t.Errorf("the watcher stopped with: %v", err)
		}
	case <-time.After(30 * time.Second):
		w.t.Fatal("the watcher did not stop within 30 s of its cancellation")
	}
	w.cancel = nil
	w.f.Close()
	w.st.Close()
}

func (w *watchRig) append(name string, lines ...string) {
	w.t.Helper()
	f, err := os.OpenFile(filepath.Join(w.dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			w.t.Fatal(err)
		}
	}
}

// waitFor polls cond until it holds, failing after a deadline generous
// enough for a loaded 2-core machine under -race.
func (w *watchRig) waitFor(what string, cond func(report.WatchStatus) bool) {
	w.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := w.f.Status()
		if cond(st) {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("waited 60 s for %s; status: %s", what, ProgressLine(st))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (w *watchRig) waitEvaluated(n int64) {
	w.t.Helper()
	w.waitFor(fmt.Sprintf("%d records evaluated", n), func(st report.WatchStatus) bool { return st.Evaluated >= n })
}

func openShared(t *testing.T, path string, mode int) *store.Shared {
	t.Helper()
	st, err := store.Open(path, store.OpenOptions{Mode: mode, Role: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// logRecord is record i of a log, unique to the test.
func logRecord(t *testing.T, i int) string {
	return fmt.Sprintf(`{"user_input":"%s question %d?","response":"answer %d. more.","retrieved_contexts":["chunk %d"]}`, t.Name(), i, i, i)
}

// stored counts the stored results of every run by question.
func stored(t *testing.T, st *store.Shared) map[string]int {
	t.Helper()
	runs, err := st.Runs()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range runs {
		for from := 0; from >= 0; {
			var page []*eval.Result
			_, page, from, err = st.RunPage(r.ID, from, 1000)
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range page {
				out[res.Question]++
			}
		}
	}
	return out
}

// sentFor counts statement requests by the question of the record (the
// fake judge's log): one per evaluation.
func sentFor(t *testing.T, srv *fakejudge.Server, n int) []int {
	counts := make([]int, n)
	for _, r := range srv.Requests() {
		if r.Task != "faithfulness_statements" {
			continue
		}
		p := r.Prompt()
		for i := range n {
			if strings.Contains(p, fmt.Sprintf("%s question %d?", t.Name(), i)) {
				counts[i]++
			}
		}
	}
	return counts
}

func checkOnce(t *testing.T, w *watchRig, n int) {
	t.Helper()
	for i, c := range sentFor(t, w.srv, n) {
		if c != 1 {
			t.Errorf("record %d: %d evaluations in the judge's log, want 1", i, c)
		}
	}
	got := stored(t, w.st)
	for i := range n {
		q := fmt.Sprintf("%s question %d?", t.Name(), i)
		if got[q] != 1 {
			t.Errorf("record %d: %d results stored, want 1", i, got[q])
		}
	}
}

// Appending, rotation by rename (the old file still written through its
// descriptor), copytruncate and a gzip'd rotated file: every record is
// evaluated exactly once, and the copies rotation leaves are repeats.
func TestWatchFollowsAppendsAndRotations(t *testing.T) {
	w := newWatchRig(t, nil)
	w.append("app.jsonl", logRecord(t, 0), logRecord(t, 1))
	w.start(Config{}, "app.jsonl*")
	w.waitEvaluated(2)
	w.append("app.jsonl", logRecord(t, 2), "not a record", logRecord(t, 3))
	w.waitEvaluated(4)
	w.waitFor("the bad line counted", func(st report.WatchStatus) bool { return st.Invalid == 1 })

	// Rename: the service writes one more line to the renamed file, then
	// opens a new one.
	if err := os.Rename(filepath.Join(w.dir, "app.jsonl"), filepath.Join(w.dir, "app.jsonl.1")); err != nil {
		t.Fatal(err)
	}
	w.append("app.jsonl.1", logRecord(t, 4))
	w.append("app.jsonl", logRecord(t, 5), logRecord(t, 6))
	w.waitEvaluated(7)

	// copytruncate: the log is copied (a repeat of every record in it) and
	// truncated, then written again.
	b, err := os.ReadFile(filepath.Join(w.dir, "app.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.dir, "app.jsonl.2"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(w.dir, "app.jsonl"), 0); err != nil {
		t.Fatal(err)
	}
	w.append("app.jsonl", logRecord(t, 7))
	w.waitEvaluated(8)
	w.waitFor("the copy's records counted as repeats", func(st report.WatchStatus) bool { return st.Duplicates >= 2 })

	// A compressed rotated file: read once, its new record evaluated.
	var gz strings.Builder
	zw := gzip.NewWriter(&gz)
	fmt.Fprintf(zw, "%s\n%s", logRecord(t, 0), logRecord(t, 8)) // the last line unterminated
	zw.Close()
	if err := os.WriteFile(filepath.Join(w.dir, "app.jsonl.3.gz"), []byte(gz.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	w.waitEvaluated(9)
	w.waitFor("caught up", func(st report.WatchStatus) bool { return st.Behind == 0 && st.BehindBytes == 0 })
	checkOnce(t, w, 9)
	read := w.f.Status().Read
	w.stop()

	// A restart reads nothing again, the compressed file included.
	f := w.start(Config{Once: true}, "app.jsonl*")
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.done <- nil
	if st := f.Status(); st.Read != 0 || st.Evaluated != 0 {
		t.Fatalf("after a restart: %s (the first watcher read %d)", ProgressLine(st), read)
	}
	checkOnce(t, w, 9)
}

// The cron pattern (--once on the live name): a log renamed between two
// passes, with lines the first pass did not see, is read to its end by the
// next; the new file under the name is read too, and nothing twice.
func TestWatchOnceReadsALogRotatedBetweenPasses(t *testing.T) {
	w := newWatchRig(t, nil)
	w.append("app.jsonl", logRecord(t, 0), logRecord(t, 1))
	pass := func() {
		w.stop() // the pass before
		w.start(Config{Once: true}, "app.jsonl")
		if err := <-w.done; err != nil {
			t.Fatal(err)
		}
		w.done <- nil
	}
	pass()
	w.append("app.jsonl", logRecord(t, 2), logRecord(t, 3))
	if err := os.Rename(filepath.Join(w.dir, "app.jsonl"), filepath.Join(w.dir, "app.jsonl.1")); err != nil {
		t.Fatal(err)
	}
	w.append("app.jsonl", logRecord(t, 4))
	pass()
	checkOnce(t, w, 5)
	pass()
	checkOnce(t, w, 5)
}

// A live run's sample count is the records taken so far, also after a
// burst shorter than the second between two updates: runs and report
// read it while the watcher waits for more.
func TestWatchLiveRunCountsItsSamples(t *testing.T) {
	w := newWatchRig(t, nil)
	w.append("app.jsonl", logRecord(t, 0))
	w.start(Config{}, "app.jsonl")
	w.waitEvaluated(1)
	w.append("app.jsonl", logRecord(t, 1), logRecord(t, 2), logRecord(t, 3), logRecord(t, 4), logRecord(t, 5))
	w.waitEvaluated(6)
	runs, err := w.st.Runs()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Samples != 6 {
		t.Fatalf("while the watcher runs, the store says %+v, want one run of 6 samples", runs)
	}
}

// A record logged twice is evaluated once, also across a restart.
func TestWatchDuplicateRecords(t *testing.T) {
	w := newWatchRig(t, nil)
	w.append("app.jsonl", logRecord(t, 0), logRecord(t, 0), logRecord(t, 1))
	w.start(Config{}, "app.jsonl")
	w.waitEvaluated(2)
	w.waitFor("one repeat", func(st report.WatchStatus) bool { return st.Duplicates == 1 })
	w.stop()
	w.append("app.jsonl", logRecord(t, 1), logRecord(t, 2))
	w.start(Config{}, "app.jsonl")
	w.waitEvaluated(1)
	w.waitFor("one repeat", func(st report.WatchStatus) bool { return st.Duplicates == 1 && st.Read == 2 })
	checkOnce(t, w, 3)
}

// --sample keeps the same records in every watcher: the choice is the
// record's content hash, not the order or the time it was read.
func TestWatchSampleIsDeterministic(t *testing.T) {
	const n = 200
	chosen := func(order []int) map[string]bool {
		w := newWatchRig(t, nil)
		for _, i := range order {
			w.append("app.jsonl", logRecord(t, i))
		}
		w.start(Config{Sample: 0.25}, "app.jsonl")
		w.waitFor("all read and evaluated", func(st report.WatchStatus) bool { return st.Evaluated+st.Sampled == n })
		out := map[string]bool{}
		for q := range stored(t, w.st) {
			out[q] = true
		}
		if st := w.f.Status(); st.Evaluated+st.Sampled != n {
			t.Fatalf("%d evaluated + %d sampled out of %d", st.Evaluated, st.Sampled, n)
		}
		return out
	}
	fwd, rev := make([]int, n), make([]int, n)
	for i := range n {
		fwd[i], rev[i] = i, n-1-i
	}
	a, b := chosen(fwd), chosen(rev)
	if len(a) < n/8 || len(a) > n/2 {
		t.Fatalf("--sample 0.25 kept %d of %d", len(a), n)
	}
	if len(a) != len(b) {
		t.Fatalf("the same records, in another order, kept %d then %d", len(a), len(b))
	}
	for q := range a {
		if !b[q] {
			t.Fatalf("%q kept once and not the second time", q)
		}
	}
}

// A judge slower than the log: the watcher reads no further ahead than its
// queue (the log is the buffer) and says how far behind it is.
func TestWatchBackPressure(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	srv.Set(func(s *fakejudge.Server) { s.Delay = 100 * time.Millisecond })
	w := newWatchRig(t, srv)
	var lines []string
	for i := range 300 {
		lines = append(lines, logRecord(t, i))
	}
	w.append("app.jsonl", lines...)
	fc := Config{Queue: 8}
	f := w.start(fc, "app.jsonl")
	w.waitEvaluated(2)
	// Workers: 2 × --concurrency 4 = 8 samples being evaluated, one the
	// runner holds for the next free worker, 8 queued.
	const bound = 8 + 1 + 8
	for range 20 {
		st := f.Status()
		if st.Read > st.Evaluated+bound || st.Behind > bound {
			t.Fatalf("read %d with %d evaluated: the queue does not hold the reading back (%s)", st.Read, st.Evaluated, ProgressLine(st))
		}
		time.Sleep(10 * time.Millisecond)
	}
	st := f.Status()
	if st.BehindBytes <= 0 || st.Behind == 0 || st.OldestUnread <= 0 {
		t.Fatalf("the lag is not reported: %s", ProgressLine(st))
	}
}

// A rule fires once when its rolling mean crosses into breach, stays
// quiet while in it, and fires again only after it left and came back.
func TestAlertFiresOncePerCrossing(t *testing.T) {
	a, err := parseAlerts([]string{"faithfulness<0.5 over 4"}, []eval.Metric{eval.Faithfulness})
	if err != nil {
		t.Fatal(err)
	}
	score := func(x float64) *eval.Result {
		return &eval.Result{Scores: map[eval.Metric]*float64{eval.Faithfulness: &x}, Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}}
	}
	var fired []int
	seq := []float64{1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0}
	for i, x := range seq {
		if evs := a.observe(score(x)); len(evs) > 0 {
			fired = append(fired, i)
		}
	}
	// Breach first when the last 4 are 1,0,0,0 (mean 0.25) at index 4; out
	// at index 10 (0,0,1,1 = 0.5 is not below); in again at index 14.
	if fmt.Sprint(fired) != "[4 14]" {
		t.Fatalf("fired at %v, want [4 14]", fired)
	}
	if st := a.states()[0]; st.Fired != 2 || !st.Firing {
		t.Fatalf("state %+v", st)
	}
	if _, err := parseAlerts([]string{"faithfulness below 0.5"}, []eval.Metric{eval.Faithfulness}); err == nil || !strings.Contains(err.Error(), "METRIC<X over N") {
		t.Fatalf("a bad rule: %v", err)
	}
	if _, err := parseAlerts([]string{"context_recall<0.5 over 4"}, []eval.Metric{eval.Faithfulness}); err == nil {
		t.Fatal("a rule on a metric not evaluated was accepted")
	}
	// A criterion the watcher scores may be alerted on; one it does not score may not.
	if a, err := parseAlerts([]string{"cites_policy_2<0.9 over 10"}, []eval.Metric{eval.Faithfulness, "cites_policy_2"}); err != nil || a.rules[0].st.Metric != "cites_policy_2" {
		t.Fatalf("a rule on a criterion: %v", err)
	}
	if _, err := parseAlerts([]string{"polite<0.9 over 10"}, []eval.Metric{eval.Faithfulness}); err == nil {
		t.Fatal("a rule on a criterion not scored was accepted")
	}
}

// --alert-exec gets the details as JSON on stdin; one that hangs is killed
// and does not hold the watcher up.
func TestAlertExec(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "alert.json")
	var mu sync.Mutex
	var errs strings.Builder
	f := &Watcher{fc: Config{AlertExec: "cat > " + out, AlertTimeout: 5 * time.Second}, stderr: lockedWriter{&mu, &errs}}
	f.fire(alertEvent{Rule: "faithfulness<0.5 over 4", Metric: "faithfulness", Op: "<", Threshold: 0.5, Window: 4, Mean: 0.25, Count: 4, Fired: 1}, "run-1", 7)
	deadline := time.Now().Add(20 * time.Second)
	var got alertEvent
	for {
		b, err := os.ReadFile(out)
		if err == nil && json.Unmarshal(b, &got) == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("--alert-exec wrote nothing: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got.RunID != "run-1" || got.Sample != 7 || got.Mean != 0.25 || got.Rule != "faithfulness<0.5 over 4" {
		t.Fatalf("--alert-exec read %+v", got)
	}
	f.fc.AlertExec, f.fc.AlertTimeout = "sleep 60", 50*time.Millisecond
	start := time.Now()
	f.fire(alertEvent{Rule: "r"}, "run-1", 8)
	if time.Since(start) > time.Second {
		t.Fatal("fire waited for the command")
	}
	for {
		mu.Lock()
		s := errs.String()
		mu.Unlock()
		if strings.Contains(s, "killed after 50ms") {
			break
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("the hanging command was not killed: %s", s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// A watcher that is a client of another process's holder keeps its state
// through the socket: the same exactly-once, and a restart continues.
func TestWatchThroughTheHolder(t *testing.T) {
	w := newWatchRig(t, nil)
	h := openShared(t, w.db, store.Hold)
	if !h.Holding() {
		t.Fatal("the first opener does not hold the database")
	}
	w.append("app.jsonl", logRecord(t, 0), logRecord(t, 1), logRecord(t, 1))
	w.start(Config{}, "app.jsonl")
	if w.st.Holding() {
		t.Fatal("the watcher holds the database: the test would not go through the socket")
	}
	w.waitEvaluated(2)
	w.stop()
	w.append("app.jsonl", logRecord(t, 2))
	w.start(Config{}, "app.jsonl")
	w.waitEvaluated(1)
	w.waitFor("one record read", func(st report.WatchStatus) bool { return st.Read == 1 })
	checkOnce(t, w, 3)
}

// A new window starts a new run and stamps the old one finished; each
// run's sample count is what it took.
func TestWatchWindows(t *testing.T) {
	w := newWatchRig(t, nil)
	var shift atomic.Int64
	w.clock = func() time.Time { return time.Now().Add(time.Duration(shift.Load())) }
	w.append("app.jsonl", logRecord(t, 0), logRecord(t, 1))
	f := w.start(Config{Window: time.Minute}, "app.jsonl")
	w.waitEvaluated(2)
	first := f.Status().RunID
	shift.Store(int64(time.Minute))
	w.append("app.jsonl", logRecord(t, 2), logRecord(t, 3), logRecord(t, 4))
	w.waitEvaluated(5)
	second := f.Status().RunID
	if second == first || second == "" {
		t.Fatalf("runs %q then %q: the new window did not start a new run", first, second)
	}
	info1, _, _, err := w.st.RunPage(first, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if info1.FinishedAt == nil || info1.Samples != 2 || info1.Config["window"] != "1m0s" {
		t.Fatalf("the first window's run: finished %v, %d samples, window %q", info1.FinishedAt, info1.Samples, info1.Config["window"])
	}
	w.stop()
	st := openShared(t, w.db, store.Read)
	info2, rs, _, err := st.RunPage(second, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if info2.FinishedAt == nil || info2.Samples != 3 || len(rs) != 3 || rs[0].Index != 0 || rs[2].Index != 2 {
		t.Fatalf("the second window's run after a stop: finished %v, %d samples, %d results", info2.FinishedAt, info2.Samples, len(rs))
	}
}

// An --alert-exec command's environment: what a shell needs, never a key.
func TestAlertEnv(t *testing.T) {
	for _, c := range []struct {
		kv   string
		kept bool
	}{
		{"PATH=/bin", true},
		{"HOME=/home/u", true},
		{"LANG=zh_CN.UTF-8", true},
		{"LC_ALL=C", true},
		{"TZ=Asia/Shanghai", true},
		{"https_proxy=http://proxy:3128", true},
		{"HTTPS_PROXY=http://proxy:3128", true},
		{"RAGSCOPE_ALERT_WEBHOOK=https://hooks.example/x", true},
		{"OPENAI_API_KEY=sk-x", false},
		{"OPENAI_BASE_URL=http://judge", false},
		{"GITHUB_TOKEN=x", false},
		{"AWS_SECRET_ACCESS_KEY=x", false},
		{"PGPASSWORD=x", false},
		{"path=/bin", false},
		{"RAGSCOPE_DB=/x", false},
		{"NOEQUALS", false},
	} {
		got := alertEnv([]string{c.kv})
		if kept := len(got) == 1; kept != c.kept {
			t.Errorf("%s: kept %v, want %v", c.kv, kept, c.kept)
		}
	}
	if env := alertEnv(nil); env == nil {
		t.Error("an empty environment must be empty, not nil (nil inherits everything)")
	}
}

// A growing flat log of two interleaved conversations: each turn is
// evaluated once, with the turns of its own conversation before it as its
// history, whichever batch they arrived in.
func TestWatchAssemblesConversations(t *testing.T) {
	w := newWatchRig(t, nil)
	turn := func(conv string, n int) string {
		return fmt.Sprintf(`{"conversation_id":"%s","turn":%d,"user_input":"%s %s asks %d?","response":"answer %d.","retrieved_contexts":["chunk %s %d"]}`,
			conv, n, t.Name(), conv, n, n, conv, n)
	}
	w.append("chat.jsonl", turn("a", 1), turn("b", 1), turn("a", 2))
	w.start(Config{}, "chat.jsonl")
	w.waitEvaluated(3)
	w.append("chat.jsonl", turn("b", 2), turn("a", 3))
	w.waitEvaluated(5)
	w.stop()

	w.st = openShared(t, w.db, store.Hold)
	byTurn := map[string]*eval.Result{}
	runs, err := w.st.Runs()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		_, page, _, err := w.st.RunPage(r.ID, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range page {
			byTurn[fmt.Sprintf("%s#%d", res.ConversationID, res.Turn)] = res
		}
	}
	want := map[string][]string{"a#1": nil, "b#1": nil, "a#2": {"a asks 1?"}, "b#2": {"b asks 1?"}, "a#3": {"a asks 1?", "a asks 2?"}}
	for id, hist := range want {
		res := byTurn[id]
		if res == nil {
			t.Errorf("turn %s was not evaluated (stored: %d results)", id, len(byTurn))
			continue
		}
		if len(res.History) != len(hist) {
			t.Errorf("turn %s has history %+v, want %q", id, res.History, hist)
			continue
		}
		for i, h := range hist {
			if !strings.HasSuffix(res.History[i].Question, h) {
				t.Errorf("turn %s: history %d is %q, want one ending %q", id, i, res.History[i].Question, h)
			}
		}
	}
	// The statements of a follow-up were extracted with its history in view.
	seen := false
	for _, r := range w.srv.Requests() {
		if r.Task == "faithfulness_statements" && strings.Contains(r.Prompt(), "a asks 3?") {
			seen = strings.Contains(r.Prompt(), `<user n="2">`+t.Name()+" a asks 2?</user>")
		}
	}
	if !seen {
		t.Error("turn 3's statements were not extracted with turns 1 and 2 in view")
	}
}

// otlpBatch is a line of an OTLP/JSON file export holding one whole trace
// per request i: a chain with its retriever and LLM spans, the question
// unique to the test. broken breaks the first trace: its LLM span's
// parent is not in the line.
func otlpBatch(t *testing.T, broken bool, is ...int) string {
	attr := func(k, v string) map[string]any {
		return map[string]any{"key": k, "value": map[string]any{"stringValue": v}}
	}
	var spans []any
	for n, i := range is {
		trace := fmt.Sprintf("%032x", i+1)
		parent := "0000000000000001"
		if broken && n == 0 {
			parent = "00000000000000ff"
		}
		spans = append(spans,
			map[string]any{"traceId": trace, "spanId": "0000000000000001", "name": "rag", "attributes": []any{
				attr("openinference.span.kind", "CHAIN"), attr("input.value", fmt.Sprintf("%s question %d?", t.Name(), i)), attr("output.value", fmt.Sprintf("answer %d. more.", i))}},
			map[string]any{"traceId": trace, "spanId": "0000000000000002", "parentSpanId": "0000000000000001", "name": "retrieve", "attributes": []any{
				attr("openinference.span.kind", "RETRIEVER"), attr("retrieval.documents.0.document.content", fmt.Sprintf("chunk %d", i))}},
			map[string]any{"traceId": trace, "spanId": "0000000000000003", "parentSpanId": parent, "name": "llm", "attributes": []any{
				attr("openinference.span.kind", "LLM"), attr("output.value", fmt.Sprintf("answer %d. more.", i))}},
		)
	}
	b, err := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{"scopeSpans": []any{map[string]any{"spans": spans}}}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An OTLP/JSON file export is followed like a JSON Lines log: each request
// of a batch evaluated once, also across a restart; a trace not whole in
// its line is counted invalid and the rest of the line still evaluated.
func TestWatchOTLPExport(t *testing.T) {
	w := newWatchRig(t, nil)
	w.append("traces.jsonl", otlpBatch(t, false, 0, 1))
	w.start(Config{}, "traces.jsonl")
	w.waitEvaluated(2)
	w.append("traces.jsonl", otlpBatch(t, true, 9, 2), otlpBatch(t, false, 3))
	w.waitEvaluated(4)
	w.waitFor("the split trace counted", func(st report.WatchStatus) bool { return st.Invalid == 1 })
	checkOnce(t, w, 4)
	w.stop()

	f := w.start(Config{Once: true}, "traces.jsonl")
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.done <- nil
	if st := f.Status(); st.Read != 0 || st.Evaluated != 0 {
		t.Fatalf("after a restart: %s", ProgressLine(st))
	}
	if got := stored(t, w.st)[fmt.Sprintf("%s question 9?", t.Name())]; got != 0 {
		t.Fatalf("the split trace was evaluated %d times", got)
	}
}
