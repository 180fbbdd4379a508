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

	"github.com/ragscope/ragscope/eval/fakejudge"
)

// gateDataset writes n samples the offline judge scores 1 on faithfulness
// except every fourth (index 0, 4, ...), which scores 0.
func gateDataset(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		ans := "The office opens at nine in the morning."
		if i%4 == 0 {
			ans = "Penguins fly over the desert at night."
		}
		fmt.Fprintf(&b, `{"id":"g%d","question":"When does office %d of %s open?","answer":%q,"contexts":["The office opens at nine in the morning."],"reference":"The office opens at nine in the morning."}`+"\n", i, i, t.Name(), ans)
	}
	p := filepath.Join(t.TempDir(), "gate.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every outcome of the gate of a headless run, with the offline judge:
// 8 samples, faithfulness mean 0.75, 2 samples at 0.
func TestHeadlessGate(t *testing.T) {
	data := gateDataset(t, 8)
	env := cleanEnv(t)
	db := filepath.Join(t.TempDir(), "g.db")
	for _, c := range []struct {
		name string
		args []string
		code int
		says []string
	}{
		{"no gate", nil, exitOK, nil},
		{"mean passes", []string{"--fail-under", "faithfulness=0.75"}, exitOK, []string{"gate: passed", "passed: faithfulness mean 0.750 >= 0.75"}},
		{"mean breached", []string{"--fail-under", "f=0.8"}, exitGate, []string{"gate: FAILED (exit 4)", "breached: faithfulness mean 0.750 < 0.8"}},
		{"repeated flag", []string{"--fail-under", "cr=0.5", "--fail-under", "f=0.8"}, exitGate, []string{"passed: context_recall mean", "breached: faithfulness mean"}},
		{"samples within N", []string{"--fail-under-sample", "f=0.5", "--max-failing", "2"}, exitOK, []string{"passed: 2 of 8 samples below"}},
		{"samples beyond N", []string{"--fail-under-sample", "f=0.5", "--max-failing", "1"}, exitGate,
			[]string{"breached: 2 of 8 samples below the per-sample thresholds (faithfulness < 0.5: 2); --max-failing 1",
				"worst samples below the per-sample thresholds:", "sample g0 (index 0): faithfulness 0.000 is below 0.5; unsupported: \"Penguins", "sample g4"}},
		{"samples beyond the default 0", []string{"--fail-under-sample", "f=0.5"}, exitGate, []string{"--max-failing 0"}},
		{"samples within P%", []string{"--fail-under-sample", "f=0.5", "--max-failing", "25%"}, exitOK, []string{"passed: 2 of 8"}},
		{"samples beyond P%", []string{"--fail-under-sample", "f=0.5", "--max-failing", "20%"}, exitGate, []string{"breached: 2 of 8", "--max-failing 20%"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runBin(t, env, append(append([]string{"run", "--headless", "--db", db, "--metrics", "faithfulness,context_recall"}, c.args...), data)...)
			checkGateRun(t, r, c.code, c.says)
			if len(c.args) == 0 && strings.Contains(r.stderr, "gate:") {
				t.Errorf("a run without a gate reports one:\n%s", r.stderr)
			}
			decodeReport(t, r.stdout) // the default format is still the JSON report
		})
	}
}

// checkGateRun checks a gated run's exit code, and that its summary on
// stderr says each of says.
func checkGateRun(t *testing.T, r result, code int, says []string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\n%s", r.code, code, r.stderr)
	}
	for _, s := range says {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("the summary does not say %q:\n%s", s, r.stderr)
		}
	}
}

// A gated metric that failed to score on more samples than --max-failing
// allows cannot gate: exit 4, over the 3 of failed samples; a gate on
// another metric passes and leaves the 3.
func TestGateCannotGateOnJudgeErrors(t *testing.T) {
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		if r.Task == "faithfulness_statements" && strings.Contains(r.Prompt(), "office 1 ") {
			return fakejudge.Reply{Choices: []string{"not json at all"}}
		}
		return fakejudge.Generic(r)
	})
	defer srv.Close()
	data := gateDataset(t, 4)
	env := cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
	db := filepath.Join(t.TempDir(), "g.db")
	for _, c := range []struct {
		name string
		args []string
		code int
		says []string
	}{
		{"no gate", nil, exitFailures, nil},
		{"cannot gate", []string{"--fail-under", "faithfulness=0.5"}, exitGate,
			[]string{"cannot gate: faithfulness failed to score on 1 of 4 samples (1 parse_error), more than --max-failing 0 allows", "1 samples also failed to score"}},
		{"cannot gate per sample", []string{"--fail-under-sample", "faithfulness=0.5"}, exitGate, []string{"cannot gate: faithfulness failed"}},
		{"within the allowance", []string{"--fail-under", "faithfulness=0.5", "--max-failing", "1"}, exitFailures, []string{"gate: passed"}},
		{"another metric", []string{"--fail-under", "context_recall=0.5"}, exitFailures, []string{"gate: passed"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runBin(t, env, append(append([]string{"run", "--headless", "--max-retries", "0", "--metrics", "faithfulness,context_recall", "--db", db}, c.args...), data)...)
			checkGateRun(t, r, c.code, c.says)
		})
	}
}

// An interrupted run exits 130 even with a breached gate.
func TestGateInterruptedIs130(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 20 * time.Millisecond })
	defer srv.Close()
	junit := filepath.Join(t.TempDir(), "junit.xml")
	run := startUntil(t, cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL()), srv, 20,
		"run", "--headless", "--concurrency", "2", "--fail-under", "faithfulness=1.0", "--fail-under-sample", "cr=1", "--junit", junit,
		"--db", filepath.Join(t.TempDir(), "r.db"), smallDataset(t, 40))
	if err := run.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := run.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want %d\n%s", err, exitInterrupted, run.stderr.String())
	}
	if se := run.stderr.String(); !strings.Contains(se, "gate: FAILED (exit 4) over the samples finished before the interruption") {
		t.Fatalf("the summary does not say the gate is of an interrupted run:\n%s", se)
	}
	if _, err := os.Stat(junit); err != nil {
		t.Errorf("no JUnit report of the samples finished: %v", err)
	}
}

// Nonsense gate flags are usage errors (exit 2) naming the flag, before
// anything runs or any file is written.
func TestGateFlagErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--fail-under", "faithfulness=1.5"}, "--fail-under"},
		{[]string{"--fail-under", "fidelity=0.5"}, `unknown metric "fidelity"`},
		{[]string{"--fail-under", "faithfulness"}, "give METRIC=X"},
		{[]string{"--fail-under", "f=0.5,faithfulness=0.6"}, "given twice"},
		{[]string{"--fail-under-sample", "cp=-0.5"}, "--fail-under-sample"},
		{[]string{"--fail-under-sample", "ar=-2"}, "between -1 and 1"},
		{[]string{"--max-failing", "-3"}, "--max-failing"},
		{[]string{"--max-failing", "150%"}, "--max-failing"},
		{[]string{"--format", "xml"}, "--format"},
		{[]string{"--metrics", "faithfulness", "--fail-under", "cr=0.5"}, "does not evaluate context_recall"},
		{[]string{"--junit", filepath.Join(dir, "no", "such", "dir", "j.xml")}, "--junit"},
	} {
		db := filepath.Join(dir, "g.db")
		r := runBin(t, cleanEnv(t), append(append([]string{"run", "--headless", "--db", db}, c.args...), repoFile("testdata/demo.jsonl"))...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, r.code, r.stderr, c.says)
		}
	}
	if r := runBin(t, cleanEnv(t), "report", "latest", "--db", filepath.Join(dir, "g.db"), "--format", "yaml"); r.code != exitUsage || !strings.Contains(r.stderr, "json, csv, md, github, jsonl") {
		t.Errorf("report --format yaml: exit %d, %q", r.code, r.stderr)
	}
}

// The gate and --junit are settings-file keys too; a flag wins over them.
func TestGateSettingsKeys(t *testing.T) {
	dir := t.TempDir()
	data := gateDataset(t, 8)
	junit := filepath.Join(dir, "from-settings.xml")
	settings := filepath.Join(dir, "config.json")
	if err := os.WriteFile(settings, []byte(fmt.Sprintf(`{"fail_under": "faithfulness=0.8", "fail_under_sample": "f=0.5", "max_failing": 2, "junit": %q}`, junit)), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "g.db")
	env := cleanEnv(t, "RAGSCOPE_CONFIG="+settings)
	r := runBin(t, env, "run", "--headless", "--db", db, data)
	if r.code != exitGate || !strings.Contains(r.stderr, "breached: faithfulness mean 0.750 < 0.8") || !strings.Contains(r.stderr, "passed: 2 of 8 samples below the per-sample thresholds (faithfulness < 0.5: 2); --max-failing 2") {
		t.Fatalf("settings gate: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(junit); err != nil {
		t.Fatalf("the settings' junit file: %v", err)
	}
	r = runBin(t, env, "run", "--headless", "--db", db, "--fail-under", "faithfulness=0.7", "--max-failing", "1", data)
	if r.code != exitGate || !strings.Contains(r.stderr, "passed: faithfulness mean 0.750 >= 0.7") || !strings.Contains(r.stderr, "--max-failing 1") {
		t.Fatalf("flags over settings: exit %d\n%s", r.code, r.stderr)
	}
	if err := os.WriteFile(settings, []byte(`{"fail_under": "faithfulness=2"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runBin(t, env, "run", "--headless", "--db", db, data); r.code != exitUsage || !strings.Contains(r.stderr, "--fail-under") {
		t.Fatalf("a bad fail_under in the settings: exit %d\n%s", r.code, r.stderr)
	}
}

// --format github prints workflow commands and appends the Markdown
// summary to $GITHUB_STEP_SUMMARY; --junit writes the JUnit file; --format
// jsonl prints one line per sample, the report's samples.
func TestHeadlessCIFormats(t *testing.T) {
	dir := t.TempDir()
	data := gateDataset(t, 8)
	db := filepath.Join(dir, "g.db")
	summary := filepath.Join(dir, "summary.md")
	if err := os.WriteFile(summary, []byte("earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(dir, "report.xml")
	r := runBin(t, cleanEnv(t, "GITHUB_STEP_SUMMARY="+summary), "run", "--headless", "--db", db, "--format", "github",
		"--fail-under", "faithfulness=0.8", "--fail-under-sample", "f=0.5", "--junit", junit, data)
	if r.code != exitGate {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	want := []string{"::error title=ragscope gate breached::faithfulness mean 0.750 < 0.8", "::error title=ragscope gate breached::2 of 8 samples",
		"::error title=faithfulness 0.000 < 0.5%3A sample g0::sample g0 (index 0): faithfulness 0.000 is below 0.5%0Aunsupported: ",
		"::error title=faithfulness 0.000 < 0.5%3A sample g4::", "::notice title=ragscope run "}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), r.stdout)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want it to start %q", i, lines[i], w)
		}
	}
	s, err := os.ReadFile(summary)
	if err != nil || !strings.HasPrefix(string(s), "earlier step\n# ragscope run ") || !strings.Contains(string(s), "## Gate: FAILED") {
		t.Fatalf("step summary (%v):\n%s", err, s)
	}
	x, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(x), `<testsuite name="faithfulness" tests="8" failures="2" errors="0" skipped="0"`) {
		t.Fatalf("junit (%v):\n%s", err, x)
	}

	r = runBin(t, cleanEnv(t), "run", "--headless", "--db", db, "--format", "jsonl", data)
	if r.code != exitOK {
		t.Fatalf("jsonl: exit %d\n%s", r.code, r.stderr)
	}
	rep := runBin(t, cleanEnv(t), "report", "latest", "--db", db, "--format", "json")
	var doc struct{ Samples []json.RawMessage }
	if err := json.Unmarshal([]byte(rep.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(got) != len(doc.Samples) || len(got) != 8 {
		t.Fatalf("%d jsonl lines, %d report samples", len(got), len(doc.Samples))
	}
	for i, l := range got {
		var a, b any
		if json.Unmarshal([]byte(l), &a) != nil || json.Unmarshal(doc.Samples[i], &b) != nil || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("line %d differs from the report's sample:\n%s\n%s", i, l, doc.Samples[i])
		}
	}
	if again := runBin(t, cleanEnv(t), "report", "latest", "--db", db, "--format", "jsonl"); again.stdout != r.stdout {
		t.Errorf("report --format jsonl differs from the run's:\n%s\n%s", again.stdout, r.stdout)
	}
}

// A detached run is held to its gate where it is evaluated, by the same
// code: the server writes --junit and --out and logs the gate's outcome.
func TestDetachedRunGate(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	dir := t.TempDir()
	db, junit, out := filepath.Join(dir, "r.db"), filepath.Join(dir, "junit.xml"), filepath.Join(dir, "out.jsonl")
	env := cleanEnv(t, "OPENAI_BASE_URL="+srv.BaseURL())
	server, _ := serveAndDetach(t, env, "k", db, "--metrics", "faithfulness,answer_relevancy", "--fail-under", "ar=0.99",
		"--junit", junit, "--out", out, "--format", "jsonl", smallDataset(t, 3))
	for deadline := time.Now().Add(30 * time.Second); ; {
		if _, err := os.Stat(out); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the detached run wrote no --out within 30 s")
		}
		time.Sleep(20 * time.Millisecond) // the run is in another process
	}
	if err := server.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := server.cmd.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, server.stderr.String())
	}
	if se := server.stderr.String(); !strings.Contains(se, "gate FAILED; breached: answer_relevancy mean") {
		t.Errorf("the server does not log the breached gate:\n%s", se)
	}
	x, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(x), `<testcase name="answer_relevancy mean &gt;= 0.99" classname="ragscope.gate.answer_relevancy"`) {
		t.Errorf("junit (%v):\n%s", err, x)
	}
	if b, _ := os.ReadFile(out); strings.Count(string(b), "\n") != 3 {
		t.Errorf("--out in jsonl: %q", b)
	}
}
