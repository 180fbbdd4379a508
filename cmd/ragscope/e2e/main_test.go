// Package e2e holds ragscope's end-to-end tests: they build the binary once
// and drive it as a user does, in a shell, over a socket, in tmux or over
// ssh, against a fake judge. They skip under -short, so that the quick
// check of a package stays quick; CI's go test -race ./... runs them all.
package e2e

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/prompts"
)

// The exit codes the binary's users rely on.
const (
	exitOK          = exit.OK
	exitFatal       = exit.Fatal
	exitUsage       = exit.Usage
	exitFailures    = exit.Failures
	exitGate        = exit.Gate
	exitInterrupted = exit.Interrupted
)

// binary is the ragscope binary built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		// The end-to-end tests skip (needBinary): -short is the quick
		// check of a package, the binary is for CI and a full run.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "ragscope-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "ragscope")
	out, err := exec.Command("go", "build", "-o", binary, "..").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building ragscope: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// repoFile is a path relative to the repository root.
func repoFile(p string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", p)
}

type result struct {
	code   int
	stdout string
	stderr string
}

// cleanEnv is the environment of a user with nothing configured: the
// developer's own OPENAI_* settings must not leak into tests.
func cleanEnv(t *testing.T, extra ...string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir(), "TERM=dumb"}
	return append(env, extra...)
}

// needBinary skips an end-to-end test under -short, where the binary is
// not built.
func needBinary(t testing.TB) {
	t.Helper()
	if binary == "" {
		t.Skip("end to end: skipped under -short")
	}
}

func runBin(t *testing.T, env []string, args ...string) result {
	t.Helper()
	needBinary(t)
	cmd := exec.Command(binary, args...)
	cmd.Env = env
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, so.String(), se.String()}
}

func decodeReport(t *testing.T, s string) *report.Report {
	t.Helper()
	var rep report.Report
	if err := json.Unmarshal([]byte(s), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, s)
	}
	return &rep
}

// bgRun is the binary running in the background.
type bgRun struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

// startUntil starts the binary and returns once the fake judge has seen at
// least calls requests from it, so a test can interrupt it midway. It fails
// the test, instead of hanging, if that does not happen within 20 s.
func startUntil(t *testing.T, env []string, srv *fakejudge.Server, calls int, args ...string) *bgRun {
	t.Helper()
	b := startBin(t, env, args...)
	deadline := time.Now().Add(20 * time.Second)
	for srv.Count("") < calls {
		if time.Now().After(deadline) {
			b.cmd.Process.Kill()
			b.cmd.Wait()
			t.Fatalf("the run sent %d of the %d calls awaited within 20 s; stderr:\n%s", srv.Count(""), calls, b.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return b
}

// waitCalls waits until the fake judge has seen at least n requests; after
// 20 s it fails the test with msg and what stderr says (nil: nothing).
func waitCalls(t *testing.T, srv *fakejudge.Server, n int, msg string, stderr fmt.Stringer) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); srv.Count("") < n; {
		if time.Now().After(deadline) {
			if stderr != nil {
				msg += ":\n" + stderr.String()
			}
			t.Fatal(msg)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// smallDataset writes n samples in RAGAS 0.2 columns; the texts are unique
// to the test, so no two tests' samples share cache entries.
func smallDataset(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	name := t.Name()
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"id":"s%d","user_input":"%s question %d?","response":"answer %d. more.","retrieved_contexts":["chunk a %d","chunk b %d"],"reference":"reference %d"}`+"\n", i, name, i, i, i, i, i)
	}
	p := filepath.Join(t.TempDir(), "data.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHeadlessReportWithLLMJudge(t *testing.T) {
	const key = "sk-test-SECRET-abcdef0123456789"
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	data := smallDataset(t, 3)
	dir := t.TempDir()
	db, out, logf := filepath.Join(dir, "r.db"), filepath.Join(dir, "report.json"), filepath.Join(dir, "log.txt")
	r := runBin(t, cleanEnv(t, "OPENAI_API_KEY="+key, "OPENAI_BASE_URL="+srv.BaseURL()),
		"run", "--headless", "--db", db, "--out", out, "--log", logf, data)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	body, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rep := decodeReport(t, string(body))
	if rep.Version != 1 || len(rep.Samples) != 3 || rep.Run.Judge.Model != "gpt-4o-mini" || rep.Run.Calls.Chat == 0 {
		t.Fatalf("report: version %d, %d samples, judge %+v, calls %+v", rep.Version, len(rep.Samples), rep.Run.Judge, rep.Run.Calls)
	}
	for _, m := range eval.DefaultMetrics {
		s := rep.Summary[m]
		if s.Scored != 3 || s.Mean == nil {
			t.Fatalf("%s summary %+v", m, s)
		}
		// The generic fake judge supports everything; answer relevancy is a
		// cosine of hash embeddings, somewhere in (0, 1].
		if m != eval.AnswerRelevancy && *s.Mean != 1 || *s.Mean <= 0 || *s.Mean > 1 {
			t.Fatalf("%s mean %v", m, *s.Mean)
		}
	}
	if len(rep.Run.Prompts) != 2*len(prompts.Tasks) { // every task in en and zh, used by the run or not
		t.Fatalf("prompt hashes %v", rep.Run.Prompts)
	}
	// The raw JSON carries the contract's field names.
	for _, field := range []string{`"faithfulness"`, `"statements"`, `"verdict"`, `"questions"`, `"noncommittal"`, `"cosine"`, `"chunks"`, `"rank"`, `"classifications"`, `"attributed"`, `"started_at"`, `"finished_at"`} {
		if !strings.Contains(string(body), field) {
			t.Fatalf("report lacks %s", field)
		}
	}
	for _, want := range []string{"faithfulness", "mean", "scored", "calls", "cache hits"} {
		if !strings.Contains(r.stderr, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	// The key is nowhere: report, stderr, stdout, log, database bytes.
	dbBytes, _ := os.ReadFile(db)
	logBytes, _ := os.ReadFile(logf)
	for name, text := range map[string]string{"report": string(body), "stderr": r.stderr, "stdout": r.stdout, "log": string(logBytes), "database": string(dbBytes)} {
		if strings.Contains(text, key) {
			t.Fatalf("API key found in the %s", name)
		}
	}
}

func TestCacheSecondRunSendsNothing(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	data := smallDataset(t, 4)
	db := filepath.Join(t.TempDir(), "r.db")
	env := cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
	first := runBin(t, env, "run", "--headless", "--db", db, data)
	n1 := srv.Count("")
	if first.code != exitOK || n1 == 0 {
		t.Fatalf("first run: exit %d, %d calls\n%s", first.code, n1, first.stderr)
	}
	second := runBin(t, env, "run", "--headless", "--db", db, data)
	if second.code != exitOK {
		t.Fatalf("second run: exit %d\n%s", second.code, second.stderr)
	}
	if n2 := srv.Count("") - n1; n2 != 0 {
		t.Fatalf("an identical second run sent %d calls, want 0", n2)
	}
	rep1, rep2 := decodeReport(t, first.stdout), decodeReport(t, second.stdout)
	if rep2.Run.Calls.CacheHits == 0 || rep2.Run.Calls.Chat != 0 {
		t.Fatalf("second run counts %+v", rep2.Run.Calls)
	}
	if !strings.Contains(second.stderr, "(100%)") {
		t.Fatalf("the run header does not show a 100%% hit rate:\n%s", second.stderr)
	}
	if *rep1.Summary[eval.Faithfulness].Mean != *rep2.Summary[eval.Faithfulness].Mean {
		t.Fatal("replayed scores differ")
	}

	// --cache-only on another dataset: every call is a cache_miss, none sent.
	other := strings.Replace(data, ".jsonl", "-other.jsonl", 1)
	if err := os.WriteFile(other, []byte(`{"user_input":"a question never asked","response":"an answer","retrieved_contexts":["c"],"reference":"r"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := srv.Count("")
	miss := runBin(t, env, "run", "--headless", "--cache-only", "--db", db, other)
	if srv.Count("") != before {
		t.Fatal("--cache-only reached the network")
	}
	if miss.code != exitFailures {
		t.Fatalf("--cache-only with misses: exit %d, want %d", miss.code, exitFailures)
	}
	rep := decodeReport(t, miss.stdout)
	for _, m := range eval.DefaultMetrics {
		if st := rep.Samples[0].Status[m]; st != eval.StatusCacheMiss {
			t.Fatalf("%s: status %s, want cache_miss", m, st)
		}
	}
}

func TestEditingOnePromptResendsOnlyItsCalls(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	data := smallDataset(t, 3)
	dir := t.TempDir()
	db, pdir := filepath.Join(dir, "r.db"), filepath.Join(dir, "prompts")
	env := cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
	if r := runBin(t, env, "prompts", "export", pdir); r.code != 0 {
		t.Fatalf("export: %s", r.stderr)
	}
	if r := runBin(t, env, "run", "--headless", "--db", db, "--prompts", pdir, data); r.code != 0 {
		t.Fatalf("first run: %s", r.stderr)
	}
	before := map[string]int{}
	for _, task := range []string{"faithfulness_statements", "faithfulness_verdicts", "answer_relevancy_question", "context_precision_verdict", "context_recall_classifications", "embeddings"} {
		before[task] = srv.Count(task)
	}
	tmpl := filepath.Join(pdir, "faithfulness_verdicts.en.tmpl")
	src, err := os.ReadFile(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	edited := "Be lenient with paraphrases.\n" + string(src)
	if err := os.WriteFile(tmpl, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, env, "run", "--headless", "--db", db, "--prompts", pdir, data)
	if r.code != 0 {
		t.Fatalf("second run: %s", r.stderr)
	}
	for task, n := range before {
		got := srv.Count(task) - n
		want := 0
		if task == "faithfulness_verdicts" {
			want = 3
		}
		if got != want {
			t.Errorf("%s: %d calls after editing the verdict prompt, want %d", task, got, want)
		}
	}
}

func TestOfflineDefaultBanner(t *testing.T) {
	r := runBin(t, cleanEnv(t), "run", "--headless", repoFile("testdata/demo.jsonl"))
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "offline (lexical)") || !strings.Contains(r.stderr, "OPENAI_API_KEY") {
		t.Fatalf("banner does not name the offline judge and how to configure one:\n%s", r.stderr)
	}
	rep := decodeReport(t, r.stdout)
	if rep.Run.Judge.Name != "offline (lexical)" || len(rep.Samples) < 12 {
		t.Fatalf("judge %q, %d samples", rep.Run.Judge.Name, len(rep.Samples))
	}
	var taxpayer *eval.Result
	for _, s := range rep.Samples {
		if s.ID == "zh-taxpayer-id" {
			taxpayer = s
		}
	}
	if taxpayer == nil {
		t.Fatal("no taxpayer sample in the demo report")
	}
	if v, ok := taxpayer.Score(eval.Faithfulness); !ok || v != 0 {
		t.Fatalf("taxpayer faithfulness %v (%v), want 0", v, ok)
	}
}

func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"user_input":"q","response":"a"}`+"\n"+`{"user_input":"q2"}`+"\n"), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing file", []string{"run", "--headless", filepath.Join(dir, "nope.jsonl")}, exitUsage, "nope.jsonl"},
		{"bad record names line and field", []string{"run", "--headless", bad}, exitUsage, "bad.jsonl:2"},
		{"unknown metric", []string{"run", "--headless", "--metrics", "faithfullness", bad}, exitUsage, "faithfullness"},
		{"no dataset", []string{"run", "--headless"}, exitUsage, "DATASET"},
		{"contradicting cache flags", []string{"run", "--headless", "--no-cache", "--cache-only", bad}, exitUsage, "--no-cache"},
		{"unknown command", []string{"frobnicate"}, exitUsage, "frobnicate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runBin(t, cleanEnv(t), tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d (want %d), stderr lacks %q:\n%s", r.code, tc.code, tc.want, r.stderr)
			}
		})
	}
	// --skip-invalid evaluates the rest and says what was skipped.
	r := runBin(t, cleanEnv(t), "run", "--headless", "--skip-invalid", bad)
	if r.code != exitOK || !strings.Contains(r.stderr, "skipped 1") || !strings.Contains(r.stderr, bad+":2: ") {
		t.Fatalf("--skip-invalid: exit %d, want the skipped record named by file and line:\n%s", r.code, r.stderr)
	}
	if rep := decodeReport(t, r.stdout); len(rep.Samples) != 1 || rep.Run.Skipped != 1 {
		t.Fatalf("%d samples, %d skipped", len(rep.Samples), rep.Run.Skipped)
	}
	// More than the terminal lists: the log (--log) names every one.
	many := filepath.Join(dir, "many.jsonl")
	var b strings.Builder
	for i := range 14 {
		fmt.Fprintf(&b, `{"id":"g%d","user_input":"q?","response":"a.","retrieved_contexts":["c"]}`+"\n", i)
		fmt.Fprintf(&b, `{"id":"b%d","user_input":"q?"}`+"\n", i)
	}
	if err := os.WriteFile(many, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(dir, "run.log")
	r = runBin(t, cleanEnv(t), "run", "--headless", "--skip-invalid", "--log", logFile, many)
	if r.code != exitOK || strings.Count(r.stderr, `field "answer": missing`) != 10 || !strings.Contains(r.stderr, "... and 4 more (--log "+logFile+" lists them all)") {
		t.Fatalf("--skip-invalid of 14: exit %d, want 10 listed and the log named:\n%s", r.code, r.stderr)
	}
	logged, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 14 {
		if !strings.Contains(string(logged), fmt.Sprintf("%s:%d: field \"answer\"", many, 2*i+2)) {
			t.Errorf("the log lacks line %d:\n%s", 2*i+2, logged)
		}
	}
}

func TestRunsAndReportFormats(t *testing.T) {
	env := cleanEnv(t)
	db := filepath.Join(t.TempDir(), "r.db")
	if r := runBin(t, env, "run", "--headless", "--db", db, repoFile("testdata/demo.jsonl")); r.code != 0 {
		t.Fatalf("run: %s", r.stderr)
	}
	runs := runBin(t, env, "runs", "--db", db)
	if runs.code != 0 || !strings.Contains(runs.stdout, "offline (lexical)") || !strings.Contains(runs.stdout, "finished") {
		t.Fatalf("runs:\n%s%s", runs.stdout, runs.stderr)
	}
	for _, tc := range []struct{ format, want string }{
		{"json", `"version": 1`},
		{"csv", "index,id,question,answer,faithfulness"},
		{"md", "worst samples"},
	} {
		r := runBin(t, env, "report", "latest", "--db", db, "--format", tc.format)
		if r.code != 0 || !strings.Contains(r.stdout, tc.want) {
			t.Fatalf("report --format %s: exit %d\n%s%s", tc.format, r.code, r.stdout, r.stderr)
		}
	}
	if r := runBin(t, env, "report", "latest", "--db", db, "--format", "csv"); !strings.Contains(r.stdout, ",offline (lexical)\n") {
		t.Fatalf("the CSV rows do not name the judge:\n%s", r.stdout)
	}
	if r := runBin(t, env, "report", "nosuchrun", "--db", db); r.code == 0 || !strings.Contains(r.stderr, "ragscope runs") {
		t.Fatalf("unknown run: exit %d\n%s", r.code, r.stderr)
	}
}

func TestKilledRunResendsOnlyUnfinishedCalls(t *testing.T) {
	const samples, conc = 24, 4
	// Chat metrics only: every call is one request and one cache entry, so
	// the calls that completed before the kill can be counted in the file.
	const metrics = "faithfulness,context_precision,context_recall"
	data := smallDataset(t, samples)
	clean := fakejudge.New(fakejudge.Generic)
	defer clean.Close()
	if r := runBin(t, cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+clean.BaseURL()),
		"run", "--headless", "--metrics", metrics, "--db", filepath.Join(t.TempDir(), "clean.db"), data); r.code != 0 {
		t.Fatalf("clean run: %s", r.stderr)
	}
	need := clean.Count("")

	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 20 * time.Millisecond })
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "r.db")
	env := cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
	killed := startUntil(t, env, srv, need/2, "run", "--headless", "--metrics", metrics, "--concurrency", fmt.Sprint(conc), "--db", db, data)
	if err := killed.cmd.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	killed.cmd.Wait()
	// Requests the process sent just before dying may still be in the
	// server's hands; they are counted once its connections are closed.
	for deadline := time.Now().Add(10 * time.Second); srv.Connections() > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections of the killed process still open", srv.Connections())
		}
		time.Sleep(5 * time.Millisecond)
	}
	sentBeforeKill := srv.Count("")
	if sentBeforeKill >= need {
		t.Fatalf("the run finished (%d of %d calls) before it was killed", sentBeforeKill, need)
	}
	// The database opens cleanly after kill -9 and holds the completed calls.
	stats := runBin(t, env, "cache", "stats", "--db", db)
	if stats.code != 0 {
		t.Fatalf("cache stats after kill -9: %s", stats.stderr)
	}
	completed := chatEntries(t, stats.stdout)
	if completed == 0 || completed > sentBeforeKill {
		t.Fatalf("%d chat entries after %d calls", completed, sentBeforeKill)
	}

	r := runBin(t, env, "run", "--headless", "--metrics", metrics, "--concurrency", fmt.Sprint(conc), "--db", db, data)
	if r.code != 0 {
		t.Fatalf("re-run after kill -9: exit %d\n%s", r.code, r.stderr)
	}
	resent := srv.Count("") - sentBeforeKill
	if resent != need-completed {
		t.Fatalf("re-run sent %d calls; %d of %d had completed before the kill, so %d were left", resent, completed, need, need-completed)
	}
	if rep := decodeReport(t, r.stdout); len(rep.Samples) != samples || rep.Summary[eval.Faithfulness].Scored != samples {
		t.Fatalf("re-run report: %d samples, %+v", len(rep.Samples), rep.Summary[eval.Faithfulness])
	}
	t.Logf("clean run %d calls; killed run sent %d, %d completed; re-run sent %d", need, sentBeforeKill, completed, resent)
}

// chatEntries reads the chat entry count from `ragscope cache stats`.
func chatEntries(t *testing.T, stats string) int {
	t.Helper()
	for _, line := range strings.Split(stats, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "chat" {
			var n int
			if _, err := fmt.Sscan(f[1], &n); err == nil {
				return n
			}
		}
	}
	t.Fatalf("no chat line in:\n%s", stats)
	return 0
}

// resumeRig is a fake judge answering after delay, a dataset of 16
// samples, a database and the environment a run on them needs.
func resumeRig(t *testing.T, delay time.Duration) (srv *fakejudge.Server, data, db string, env []string) {
	t.Helper()
	srv = fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = delay })
	t.Cleanup(srv.Close)
	return srv, smallDataset(t, 16), filepath.Join(t.TempDir(), "r.db"), cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
}

func TestResumeContinuesTheSameRun(t *testing.T) {
	srv, data, db, env := resumeRig(t, 20*time.Millisecond)
	killed := startUntil(t, env, srv, 40, "run", "--headless", "--concurrency", "2", "--db", db, data)
	killed.cmd.Process.Signal(os.Kill)
	killed.cmd.Wait()
	runs := runBin(t, env, "runs", "--db", db)
	if !strings.Contains(runs.stdout, "interrupted") {
		t.Fatalf("the killed run is not listed as interrupted:\n%s", runs.stdout)
	}
	// Its reports say so, and how to go on: a script can tell it from a live run.
	if md := runBin(t, env, "report", "latest", "--db", db, "--format", "md"); !strings.Contains(md.stdout, "the run was interrupted; continue it with ragscope run --resume") {
		t.Fatalf("the killed run's Markdown report:\n%s%s", md.stdout, md.stderr)
	}
	if js := runBin(t, env, "report", "latest", "--db", db); !decodeReport(t, js.stdout).Run.Interrupted {
		t.Fatalf("the killed run's JSON report does not say it was interrupted")
	}
	// Another judge would mix two judges' scores under one name: refused.
	if other := runBin(t, cleanEnv(t), "run", "--headless", "--resume", "latest", "--db", db); other.code != exitUsage ||
		!strings.Contains(other.stderr, "the run was judged by") || !strings.Contains(other.stderr, "offline (lexical)") {
		t.Fatalf("resume with the offline judge: exit %d\n%s", other.code, other.stderr)
	}
	r := runBin(t, env, "run", "--headless", "--resume", "latest", "--db", db)
	if r.code != 0 || !strings.Contains(r.stderr, "resuming") {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	rep := decodeReport(t, r.stdout)
	if len(rep.Samples) != 16 || rep.Summary[eval.ContextRecall].Scored != 16 {
		t.Fatalf("resumed report: %d samples, %+v", len(rep.Samples), rep.Summary[eval.ContextRecall])
	}
	after := runBin(t, env, "runs", "--db", db)
	if n := strings.Count(after.stdout, "\n"); n != 2 {
		t.Fatalf("resume created a new run record instead of continuing:\n%s", after.stdout)
	}
	if again := runBin(t, env, "run", "--headless", "--resume", "latest", "--db", db); again.code != exitUsage || !strings.Contains(again.stderr, "nothing to resume") {
		t.Fatalf("resuming a finished run: exit %d\n%s", again.code, again.stderr)
	}
}

// A resume keeps what the run was: its metrics without --metrics, and it
// is refused while another process still evaluates the run, or with other
// metrics: the rest would be scored twice, or otherwise.
func TestResumeKeepsTheRunsSettings(t *testing.T) {
	srv, data, db, env := resumeRig(t, 50*time.Millisecond)
	first := startUntil(t, env, srv, 6, "run", "--headless", "--concurrency", "1", "--metrics", "faithfulness", "--db", db, data)
	if live := runBin(t, env, "run", "--headless", "--resume", "latest", "--db", db); live.code != exitUsage || !strings.Contains(live.stderr, "is being evaluated now by pid") {
		t.Errorf("resuming a run another process evaluates: exit %d\n%s", live.code, live.stderr)
	}
	first.cmd.Process.Signal(os.Kill)
	first.cmd.Wait()
	if other := runBin(t, env, "run", "--headless", "--resume", "latest", "--metrics", "context_recall", "--db", db); other.code != exitUsage || !strings.Contains(other.stderr, "the run evaluates faithfulness") {
		t.Fatalf("resume with other metrics: exit %d\n%s", other.code, other.stderr)
	}
	r := runBin(t, env, "run", "--headless", "--resume", "latest", "--db", db)
	if r.code != exitOK {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	rep := decodeReport(t, r.stdout)
	if len(rep.Run.Metrics) != 1 || rep.Run.Metrics[0] != eval.Faithfulness || rep.Summary[eval.Faithfulness].Scored != 16 {
		t.Fatalf("resumed run: metrics %v, faithfulness %+v", rep.Run.Metrics, rep.Summary[eval.Faithfulness])
	}
	for _, s := range rep.Samples {
		if _, ok := s.Status[eval.ContextRecall]; ok {
			t.Fatalf("sample %s has context recall: the resume evaluated other metrics", s.ID)
		}
	}
}

func TestSeparateEmbeddingEndpoint(t *testing.T) {
	chat := fakejudge.New(fakejudge.Generic)
	defer chat.Close()
	emb := fakejudge.New(fakejudge.Generic)
	defer emb.Close()
	data := smallDataset(t, 2)
	r := runBin(t, cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+chat.BaseURL()),
		"run", "--headless", "--db", filepath.Join(t.TempDir(), "r.db"), "--embedding-base-url", emb.BaseURL(), data)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if chat.Count("embeddings") != 0 || emb.Count("embeddings") != 2 || emb.Count("") != 2 {
		t.Fatalf("chat endpoint got %d embedding requests, embedding endpoint %d of %d", chat.Count("embeddings"), emb.Count("embeddings"), emb.Count(""))
	}
	if rep := decodeReport(t, r.stdout); rep.Summary[eval.AnswerRelevancy].Scored != 2 {
		t.Fatalf("answer relevancy %+v", rep.Summary[eval.AnswerRelevancy])
	}
}

func TestInterruptKeepsFinishedSamples(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 20 * time.Millisecond })
	defer srv.Close()
	data := smallDataset(t, 40)
	db := filepath.Join(t.TempDir(), "r.db")
	run := startUntil(t, cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL()), srv, 60,
		"run", "--headless", "--concurrency", "2", "--db", db, data)
	if err := run.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := run.cmd.Wait()
	so, se := &run.stdout, &run.stderr
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want %d\n%s", err, exitInterrupted, se.String())
	}
	if !strings.Contains(se.String(), "--resume") {
		t.Fatalf("stderr does not say how to continue:\n%s", se.String())
	}
	rep := decodeReport(t, so.String())
	ok2, cancelled := 0, 0
	for _, s := range rep.Samples {
		for _, st := range s.Status {
			switch st {
			case eval.StatusOK:
				ok2++
			case eval.StatusCancelled:
				cancelled++
			default:
				t.Fatalf("sample %d: status %s: %v", s.Index, st, s.Errors)
			}
		}
	}
	if len(rep.Samples) != 40 || ok2 == 0 || cancelled == 0 || !rep.Run.Cancelled {
		t.Fatalf("%d samples, %d ok and %d cancelled metrics, run cancelled %v", len(rep.Samples), ok2, cancelled, rep.Run.Cancelled)
	}
}

func TestCacheMaintenanceCommands(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	data := smallDataset(t, 3)
	dir := t.TempDir()
	db, other, export := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db"), filepath.Join(dir, "cache.jsonl")
	env := cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
	if r := runBin(t, env, "run", "--headless", "--db", db, data); r.code != 0 {
		t.Fatal(r.stderr)
	}
	sent := srv.Count("")
	stats := runBin(t, env, "cache", "stats", "--db", db)
	if stats.code != 0 || chatEntries(t, stats.stdout) == 0 || !strings.Contains(stats.stdout, "hit rate") {
		t.Fatalf("stats:\n%s%s", stats.stdout, stats.stderr)
	}
	if r := runBin(t, env, "cache", "export", "--db", db, export); r.code != 0 || !strings.Contains(r.stdout, "exported") {
		t.Fatalf("export: %s%s", r.stdout, r.stderr)
	}
	if r := runBin(t, env, "cache", "import", "--db", other, export); r.code != 0 || !strings.Contains(r.stdout, "imported") {
		t.Fatalf("import: %s%s", r.stdout, r.stderr)
	}
	// Another machine with the imported cache pays nothing.
	if r := runBin(t, env, "run", "--headless", "--db", other, data); r.code != 0 || srv.Count("") != sent {
		t.Fatalf("run on the imported cache sent %d calls\n%s", srv.Count("")-sent, r.stderr)
	}
	if r := runBin(t, env, "cache", "clear", "--db", db); r.code != 0 || !strings.Contains(r.stdout, "removed") {
		t.Fatalf("clear: %s%s", r.stdout, r.stderr)
	}
	if r := runBin(t, env, "cache", "compact", "--db", db); r.code != 0 || !strings.Contains(r.stdout, "compacted") {
		t.Fatalf("compact: %s%s", r.stdout, r.stderr)
	}
	if r := runBin(t, env, "cache", "stats", "--db", db); chatEntries(t, r.stdout) != 0 {
		t.Fatalf("entries left after clear:\n%s", r.stdout)
	}
	if r := runBin(t, env, "cache", "clear", "--older-than", "soon", "--db", db); r.code != exitUsage || !strings.Contains(r.stderr, "--older-than") {
		t.Fatalf("bad --older-than: %d %s", r.code, r.stderr)
	}
	if r := runBin(t, env, "cache", "import", "--db", db, data); r.code == 0 {
		t.Fatalf("importing a dataset as a cache succeeded:\n%s", r.stdout)
	}
}

func TestSettingsFile(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	data := smallDataset(t, 1)
	dir := t.TempDir()
	pdir := filepath.Join(dir, "prompts")
	if r := runBin(t, cleanEnv(t), "prompts", "export", pdir); r.code != 0 {
		t.Fatal(r.stderr)
	}
	write := func(body string) string {
		p := filepath.Join(dir, "config.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg := write(fmt.Sprintf(`{"base_url": %q, "model": "from-settings", "prompts_dir": %q, "db": %q, "concurrency": 3}`,
		srv.BaseURL(), pdir, filepath.Join(dir, "r.db")))
	env := cleanEnv(t, "OPENAI_API_KEY=k", "RAGSCOPE_CONFIG="+cfg)
	r := runBin(t, env, "run", "--headless", data)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rep := decodeReport(t, r.stdout)
	if rep.Run.Judge.Model != "from-settings" || rep.Run.Config["prompts_dir"] != pdir || rep.Run.Config["concurrency"] != "3" {
		t.Fatalf("settings not applied: judge %+v, config %v", rep.Run.Judge, rep.Run.Config)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.db")); err != nil {
		t.Fatal("the settings' db was not used")
	}
	if r := runBin(t, env, "prompts", "list"); !strings.Contains(r.stdout, filepath.Join(pdir, "faithfulness_verdicts.zh.tmpl")) {
		t.Fatalf("prompts list ignores the settings' prompts_dir:\n%s%s", r.stdout, r.stderr)
	}
	// A flag wins over the file.
	if r := runBin(t, env, "run", "--headless", "--model", "from-flag", data); decodeReport(t, r.stdout).Run.Judge.Model != "from-flag" {
		t.Fatal("the flag did not win over the settings file")
	}
	for _, tc := range []struct{ body, want string }{
		{`{"modle": "x"}`, `unknown key "modle"`},
		{`{"api_key": "sk-x"}`, "OPENAI_API_KEY"},
		{`{"concurrency": "many"}`, `"concurrency"`},
		{`{"db": 5}`, `"db" must be a string (in quotes), not 5`},
		{`{"lang": "fr"}`, `"fr" is not one of auto, en, zh (the value is settings`},
		{`[1, 2]`, "not a JSON object"},
		{"{\n  \"model\": \"x\"\n  \"concurrency\": 8\n}", "line 3, column 3: not a JSON object"},
	} {
		write(tc.body)
		if r := runBin(t, env, "run", "--headless", data); r.code != exitUsage || !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, "config.json") {
			t.Fatalf("settings %s: exit %d\n%s", tc.body, r.code, r.stderr)
		}
	}
	// A missing settings file named explicitly is an error; the default one may be absent.
	if r := runBin(t, cleanEnv(t, "RAGSCOPE_CONFIG="+filepath.Join(dir, "nope.json")), "run", "--headless", data); r.code != exitUsage {
		t.Fatalf("missing explicit settings file: exit %d", r.code)
	}
}

func TestAzureRequests(t *testing.T) {
	const key = "azure-key-SECRET"
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	data := smallDataset(t, 1)
	r := runBin(t, cleanEnv(t, "OPENAI_API_KEY="+key), "run", "--headless", "--metrics", "faithfulness",
		"--api-type", "azure", "--api-version", "2024-10-21", "--base-url", srv.URL, "--model", "my-deployment",
		"--db", filepath.Join(t.TempDir(), "r.db"), data)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, q := range reqs {
		if !strings.HasPrefix(q.Path, "/openai/deployments/my-deployment/chat/completions") || !strings.Contains(q.Path, "api-version=2024-10-21") {
			t.Fatalf("Azure path %q", q.Path)
		}
		if q.Header.Get("api-key") != key || q.Header.Get("Authorization") != "" {
			t.Fatalf("Azure auth headers: api-key %q, Authorization %q", q.Header.Get("api-key"), q.Header.Get("Authorization"))
		}
	}
	if strings.Contains(r.stdout+r.stderr, key) {
		t.Fatal("the key leaked")
	}
}
