package e2e

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
)

// The example criteria on the demo data with an LLM judge: scored beside
// the metrics, a column each in the CSV, a JUnit testsuite each with a
// testcase per sample, and a gate on a criterion that fails with exit 4
// naming it.
func TestCriteriaWithLLMJudge(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	dir := t.TempDir()
	db, out, junit := filepath.Join(dir, "r.db"), filepath.Join(dir, "report.json"), filepath.Join(dir, "junit.xml")
	env := cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
	crit := repoFile("testdata/criteria/en-support.yaml")
	names := []string{"cites_source", "no_deflection", "english", "no_unsupported_numbers", "short", "polite", "resolves"}

	// The demo's answers are mostly Chinese: english fails its mean gate.
	r := runBin(t, env, "run", "--headless", "--db", db, "--out", out, "--junit", junit, "--metrics", "faithfulness",
		"--criteria", crit, "--fail-under", "english=0.9,polite=0", repoFile("testdata/demo.jsonl"))
	if r.code != exitGate || !strings.Contains(r.stderr, "english") {
		t.Fatalf("exit %d, want %d naming english\n%s", r.code, exitGate, r.stderr)
	}
	body, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rep := decodeReport(t, string(body))
	if rep.Run.Criteria == nil || rep.Run.Criteria.SHA256 == "" || len(rep.Run.Criteria.Items) != len(names) {
		t.Fatalf("the run record's criteria: %+v", rep.Run.Criteria)
	}
	for _, n := range names {
		if s := rep.Summary[eval.Metric(n)]; s.Scored != len(rep.Samples) {
			t.Errorf("summary of %s: %+v, want every sample scored by the LLM judge", n, s)
		}
	}
	for _, field := range []string{`"criteria": {`, `"draws": [`, `"level": `} {
		if !strings.Contains(string(body), field) {
			t.Errorf("the JSON report has no %s", field)
		}
	}

	r = runBin(t, env, "report", "latest", "--db", db, "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(rows) != len(rep.Samples)+1 {
		t.Fatalf("CSV report (%v):\n%s%s", err, r.stdout, r.stderr)
	}
	for _, n := range names {
		if !slices.Contains(rows[0], n) || !slices.Contains(rows[0], n+"_status") {
			t.Errorf("CSV header %v has no columns of %s", rows[0], n)
		}
	}

	xml, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if !strings.Contains(string(xml), `<testsuite name="`+n+`" tests="14"`) || strings.Count(string(xml), `classname="`+n+`"`) != 14 {
			t.Errorf("JUnit has no testsuite %s with a testcase per sample", n)
		}
	}

	// A gate on a name neither a metric nor a criterion lists both.
	r = runBin(t, env, "run", "--headless", "--db", db, "--criteria", crit, "--fail-under-sample", "politeness=1", repoFile("testdata/demo.jsonl"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "or a criterion: cites_source, no_deflection") {
		t.Fatalf("gate on an unknown name: exit %d\n%s", r.code, r.stderr)
	}
}

// With the offline judge the exact checks run and the judged kinds are
// unsupported; the criteria file may come from the settings file.
func TestCriteriaOffline(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, []byte(`{"criteria": "`+repoFile("testdata/criteria/en-support.yaml")+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, cleanEnv(t, "RAGSCOPE_CONFIG="+cfg), "run", "--headless", "--db", filepath.Join(dir, "r.db"), repoFile("testdata/demo.jsonl"))
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rep := decodeReport(t, r.stdout)
	for n, judged := range map[string]bool{"cites_source": false, "english": false, "no_unsupported_numbers": false, "short": false, "polite": true, "resolves": true} {
		s := rep.Summary[eval.Metric(n)]
		if judged && (s.Scored != 0 || s.ByStatus[eval.StatusUnsupported] != len(rep.Samples)) || !judged && s.Scored != len(rep.Samples) {
			t.Errorf("offline, %s: %+v", n, s)
		}
	}
}

// A criteria file with a mistake stops the run before any call, naming
// the file and the line, with the exit status of a bad flag.
func TestCriteriaFileMistake(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	dir := t.TempDir()
	env := cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
	for _, c := range []struct{ name, body, says string }{
		{"kind.yaml", "criteria:\n  - name: polite\n    kind: yes_or_no\n    text: polite\n", "kind.yaml:3"},
		{"metric.yaml", "criteria:\n  - name: ar\n    kind: json_valid\n", "metric.yaml:2"},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runBin(t, env, "run", "--headless", "--db", filepath.Join(dir, "r.db"), "--criteria", p, repoFile("testdata/demo.jsonl"))
		if r.code != exitUsage || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%s: exit %d, want %d naming %s\n%s", c.name, r.code, exitUsage, c.says, r.stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d judge calls before the criteria file was refused", n)
	}
}

// estimate reads the criteria file as run does, and says that the
// criteria the LLM judges are not priced.
func TestCriteriaEstimate(t *testing.T) {
	dir := t.TempDir()
	env := cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL=http://127.0.0.1:9/v1")
	r := runBin(t, env, "estimate", "--db", filepath.Join(dir, "r.db"), "--criteria", repoFile("testdata/criteria/en-support.yaml"), repoFile("testdata/demo.jsonl"))
	if r.code != exitOK || !strings.Contains(r.stderr, "(polite, resolves) are not in this estimate") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("criteria:\n  - name: x\n    kind: regex\n    pattern: \"(\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runBin(t, env, "estimate", "--db", filepath.Join(dir, "r.db"), "--criteria", bad, repoFile("testdata/demo.jsonl")); r.code != exitUsage || !strings.Contains(r.stderr, "bad.yaml:4") {
		t.Fatalf("a bad criteria file: exit %d\n%s", r.code, r.stderr)
	}
}

// diff and --baseline compare the criteria both runs scored, like their
// metrics; --max-drop gates on a criterion.
func TestCriteriaDiffAndBaseline(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	env := cleanEnv(t)
	var ids []string
	for i, max := range []string{"40", "60"} {
		p := filepath.Join(dir, "c"+strconv.Itoa(i)+".yaml")
		if err := os.WriteFile(p, []byte("criteria:\n  - name: short\n    kind: max_chars\n    max: "+max+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runBin(t, env, "run", "--headless", "--db", db, "--metrics", "faithfulness", "--criteria", p, repoFile("testdata/demo.jsonl"))
		if r.code != exitOK {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		ids = append(ids, decodeReport(t, r.stdout).Run.ID)
	}
	r := runBin(t, env, "diff", "--db", db, ids[0], ids[1])
	if r.code != exitOK || !regexp.MustCompile(`(?m)^short +0\.214 +0\.429 +\+0\.214 +3 +0`).MatchString(r.stdout) {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Back to the stricter file, against the second run: short falls.
	r = runBin(t, env, "run", "--headless", "--db", db, "--metrics", "faithfulness", "--criteria", filepath.Join(dir, "c0.yaml"),
		"--baseline", ids[1], "--max-drop", "short=0.1", repoFile("testdata/demo.jsonl"))
	if r.code != exitGate || !strings.Contains(r.stderr, "breached: short mean 0.429 -> 0.214") {
		t.Fatalf("exit %d, want %d naming short\n%s", r.code, exitGate, r.stderr)
	}
}
