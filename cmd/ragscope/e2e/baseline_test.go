package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval/fakejudge"
)

// baselineDataset writes n samples as gateDataset does (every fourth
// scores 0 on faithfulness with the offline judge), in reverse order when
// reversed, the answers of the samples in worse made unfaithful, and
// without ids when noIDs.
func baselineDataset(t *testing.T, name string, n int, reversed, noIDs bool, worse ...int) string {
	t.Helper()
	lines := make([]string, n)
	for i := 0; i < n; i++ {
		ans := "The office opens at nine in the morning."
		if i%4 == 0 {
			ans = "Penguins fly over the desert at night."
		}
		for _, w := range worse {
			if w == i {
				ans = "Penguins fly over the desert at night."
			}
		}
		id := fmt.Sprintf(`"id":"g%d",`, i)
		if noIDs {
			id = ""
		}
		lines[i] = fmt.Sprintf(`{%s"question":"When does office %d of %s open?","answer":%q,"contexts":["The office opens at nine in the morning."],"reference":"The office opens at nine in the morning."}`, id, i, t.Name(), ans)
	}
	if reversed {
		for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
			lines[i], lines[j] = lines[j], lines[i]
		}
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var runIDPattern = regexp.MustCompile(`ragscope: run (\S+) \(db `)

// runIDOf is the id of the run a headless run's stderr names.
func runIDOf(t *testing.T, stderr string) string {
	t.Helper()
	m := runIDPattern.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no run id in:\n%s", stderr)
	}
	return m[1]
}

// Every outcome of a gate on a baseline, with the offline judge: the
// baseline is 8 samples at faithfulness mean 0.75; the run has them in
// reverse order, two more of them (g1, g2) unfaithful: mean 0.5, two
// samples fallen from 1 to 0.
func TestHeadlessBaseline(t *testing.T) {
	dir := t.TempDir()
	env := cleanEnv(t)
	db := filepath.Join(dir, "b.db")
	metrics := []string{"--metrics", "faithfulness,context_recall"}
	base := filepath.Join(dir, "baseline.json")
	r := runBin(t, env, append([]string{"run", "--headless", "--db", db, "--out", base}, append(metrics, baselineDataset(t, "v1.jsonl", 8, false, false))...)...)
	if r.code != exitOK {
		t.Fatalf("baseline run: exit %d\n%s", r.code, r.stderr)
	}
	baseID := runIDOf(t, r.stderr)
	v2 := baselineDataset(t, "v2.jsonl", 8, true, false, 1, 2)
	junit := filepath.Join(dir, "junit.xml")
	for _, c := range []struct {
		name string
		args []string
		code int
		says []string
		not  []string
	}{
		{"compare only", []string{"--baseline", base}, exitOK,
			[]string{"baseline: file " + base + " (run " + baseID + ")", "8 samples shared (8 by id, 0 by content)", "faithfulness    0.750     0.500     -0.250  0   2",
				"2 shared samples changed; the 2 worst falls first:", "sample 6 g1 (index 1 before)", "faithfulness       1.000 -> 0.000  (-1.000)",
				"faithfulness statement 1\n      before: \"The office opens at nine in the morning.\"  1: ", "after:  \"Penguins fly over the desert at night.\"  0: "},
			[]string{"gate:"}},
		{"mean within the drop", []string{"--baseline", base, "--max-drop", "f=0.25"}, exitOK,
			[]string{"gate: passed", "passed: faithfulness mean 0.750 -> 0.500 on 8 shared samples (drop 0.250 <= 0.25)"}, nil},
		{"mean beyond the drop", []string{"--baseline", base, "--max-drop", "faithfulness=0.1"}, exitGate,
			[]string{"gate: FAILED (exit 4)", "breached: faithfulness mean 0.750 -> 0.500 on 8 shared samples: a drop of 0.250, more than --max-drop 0.1"}, nil},
		{"regressions within N", []string{"--baseline", base, "--max-regressed", "2"}, exitOK,
			[]string{"passed: 2 of 8 shared samples fell by more than 0.1 on some metric (faithfulness: 2); --max-regressed 2"}, nil},
		{"regressions beyond N", []string{"--baseline", base, "--max-regressed", "1"}, exitGate, []string{"breached: 2 of 8 shared samples fell"}, nil},
		{"regressions beyond P%", []string{"--baseline", base, "--max-regressed", "20%"}, exitGate, []string{"--max-regressed 20%"}, nil},
		{"a wide margin", []string{"--baseline", base, "--max-regressed", "0", "--regress-margin", "1"}, exitOK, []string{"passed: 0 of 8 shared samples fell by more than 1"}, nil},
		{"a stored run", []string{"--baseline", baseID[:len(baseID)-1], "--max-drop", "f=0.1", "--junit", junit}, exitGate,
			[]string{"baseline: run " + baseID, "breached: faithfulness mean 0.750 -> 0.500"}, nil},
		{"beside the other gates", []string{"--baseline", base, "--max-drop", "f=0.3", "--fail-under", "f=0.6"}, exitGate,
			[]string{"breached: faithfulness mean 0.500 < 0.6", "passed: faithfulness mean 0.750 -> 0.500"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runBin(t, env, append(append(append([]string{"run", "--headless", "--db", db}, metrics...), c.args...), v2)...)
			checkGateRun(t, r, c.code, c.says)
			for _, s := range c.not {
				if strings.Contains(r.stderr, s) {
					t.Errorf("stderr says %q:\n%s", s, r.stderr)
				}
			}
			decodeReport(t, r.stdout)
		})
	}
	x, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(x), `<testcase name="faithfulness mean drop from the baseline &lt;= 0.1" classname="ragscope.gate.baseline.faithfulness" time="0.000">`) ||
		!strings.Contains(string(x), `<testsuite name="ragscope.gate" tests="1" failures="1" errors="0"`) {
		t.Errorf("junit (%v):\n%s", err, x)
	}

	// The run record says what it was compared with (the last case's).
	rep := decodeReport(t, runBin(t, env, "report", "latest", "--db", db).stdout)
	if rep.Run.Config["baseline"] != base || rep.Run.Config["max_drop"] != "f=0.3" {
		t.Errorf("run config %v", rep.Run.Config)
	}
}

// Without ids, samples match by content, in any order; a sample whose
// answer changed is not shared. A baseline sharing no sample cannot gate.
func TestHeadlessBaselineByContent(t *testing.T) {
	dir := t.TempDir()
	env := cleanEnv(t)
	db := filepath.Join(dir, "b.db")
	base := filepath.Join(dir, "baseline.json")
	args := []string{"run", "--headless", "--db", db, "--metrics", "faithfulness"}
	if r := runBin(t, env, append(args, "--out", base, baselineDataset(t, "v1.jsonl", 8, false, true))...); r.code != exitOK {
		t.Fatalf("baseline run: exit %d\n%s", r.code, r.stderr)
	}
	r := runBin(t, env, append(args, "--baseline", base, "--max-drop", "f=0", baselineDataset(t, "v2.jsonl", 8, true, true, 1))...)
	checkGateRun(t, r, exitOK, []string{"7 samples shared (0 by id, 7 by content); 1 of this run's samples are not in the baseline, 1 of the baseline's not in this run",
		"no shared sample changed a score or a status", "passed: faithfulness mean 0.714 -> 0.714 on 7 shared samples"})

	other := filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(other, []byte(`{"question":"q","answer":"a","contexts":["c"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runBin(t, env, append(args, "--baseline", base, "--max-drop", "f=0.5", "--max-regressed", "0", other)...)
	checkGateRun(t, r, exitGate, []string{"0 samples shared", "give the dataset an id column",
		"cannot gate: no sample of the run is in the baseline", "gate: FAILED (exit 4)"})
	if strings.Count(r.stderr, "cannot gate: no sample") != 2 {
		t.Errorf("want both baseline checks unable to gate:\n%s", r.stderr)
	}
}

// latest is the newest run finished before this one, of the same dataset
// when there is one.
func TestHeadlessBaselineLatest(t *testing.T) {
	dir := t.TempDir()
	env := cleanEnv(t)
	db := filepath.Join(dir, "b.db")
	data := baselineDataset(t, "d.jsonl", 4, false, false)
	args := []string{"run", "--headless", "--db", db, "--metrics", "faithfulness"}
	if r := runBin(t, env, append(args, "--baseline", "latest", data)...); r.code != exitUsage || !strings.Contains(r.stderr, "--baseline latest: no run in") {
		t.Fatalf("latest in an empty store: exit %d\n%s", r.code, r.stderr)
	}
	first := runBin(t, env, append(args, data)...)
	firstID := runIDOf(t, first.stderr)
	if r := runBin(t, env, append(args, baselineDataset(t, "other.jsonl", 4, true, false))...); r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	r := runBin(t, env, append(args, "--baseline", "latest", data)...)
	checkGateRun(t, r, exitOK, []string{"baseline: run " + firstID, "4 samples shared (4 by id"})
	// A dataset no run evaluated yet: the newest earlier run, said so.
	third := runIDOf(t, r.stderr)
	r = runBin(t, env, append(args, "--baseline", "latest", baselineDataset(t, "new.jsonl", 4, false, false, 3))...)
	checkGateRun(t, r, exitOK, []string{"no earlier finished run of", "comparing with run " + third, "baseline: run " + third})
}

// A bad baseline is a usage error (exit 2) naming the file and what is
// wrong, before any judge call is sent.
func TestHeadlessBaselineErrors(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	truncated := write("truncated.json", `{"version": 1, "run": {"id": "r", "metrics": ["faithfulness"]}, "samples": [{"index": 0, "scores": {"faithfulness": 0.5}`)
	badStatus := write("status.json", `{"version":1,"run":{"id":"r","metrics":["faithfulness"]},"samples":[{"index":0,"scores":{"faithfulness":0.5},"status":{"faithfulness":"okay"}}]}`)
	jsonl := write("lines.json", `{"index":0,"scores":{},"status":{}}`+"\n")
	recall := write("recall.json", `{"version":1,"run":{"id":"r","metrics":["context_recall"]},"samples":[]}`)
	env := cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
	db := filepath.Join(dir, "b.db")
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--baseline", truncated}, "--baseline " + truncated + ": sample 1 of \"samples\" (byte 76): the file ends at byte 120 in the middle of the report (truncated?)"}, // its size,
		{[]string{"--baseline", badStatus}, "--baseline " + badStatus + ": sample 1 of \"samples\" (byte 68), index 0: status \"okay\" of faithfulness is not a status"},
		{[]string{"--baseline", jsonl}, "not a JSON report: it is one sample"},
		{[]string{"--baseline", filepath.Join(dir, "missing.json")}, "missing.json: no such file or directory"},
		{[]string{"--baseline", "no-such-run"}, "--baseline no-such-run: no runs are recorded in"},
		{[]string{"--baseline", recall}, "it evaluated context_recall, none of this run's metrics (faithfulness)"},
		{[]string{"--baseline", badStatus, "--max-drop", "cr=0.1"}, "--max-drop context_recall: the run does not evaluate context_recall"},
		{[]string{"--max-drop", "f=0.1"}, "--max-drop compares with a baseline: give --baseline"},
		{[]string{"--max-regressed", "2"}, "--max-regressed compares with a baseline"},
		{[]string{"--baseline", badStatus, "--max-drop", "f=1.5"}, "--max-drop \"f=1.5\""},
		{[]string{"--baseline", badStatus, "--max-regressed", "lots"}, "--max-regressed \"lots\""},
		{[]string{"--baseline", badStatus, "--regress-margin", "-1"}, "--regress-margin \"-1\""},
	} {
		r := runBin(t, env, append(append([]string{"run", "--headless", "--db", db, "--metrics", "faithfulness"}, c.args...), smallDataset(t, 2))...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, r.code, r.stderr, c.says)
		}
	}
	if n := srv.Count(""); n != 0 {
		t.Errorf("%d judge calls sent for runs refused", n)
	}
}

// The baseline flags are settings-file keys too.
func TestBaselineSettingsKeys(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	base := filepath.Join(dir, "baseline.json")
	env := cleanEnv(t)
	if r := runBin(t, env, "run", "--headless", "--db", db, "--metrics", "faithfulness", "--out", base, baselineDataset(t, "v1.jsonl", 8, false, false)); r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	settings := filepath.Join(dir, "config.json")
	if err := os.WriteFile(settings, []byte(fmt.Sprintf(`{"baseline": %q, "max_drop": "f=0.1", "max_regressed": 3, "regress_margin": 0.5}`, base)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, cleanEnv(t, "RAGSCOPE_CONFIG="+settings), "run", "--headless", "--db", db, "--metrics", "faithfulness", baselineDataset(t, "v2.jsonl", 8, false, false, 1, 2))
	checkGateRun(t, r, exitGate, []string{"breached: faithfulness mean 0.750 -> 0.500", "passed: 2 of 8 shared samples fell by more than 0.5 on some metric (faithfulness: 2); --max-regressed 3"})
}
