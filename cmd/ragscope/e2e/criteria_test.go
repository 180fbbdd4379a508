package e2e

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/report/labels"
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

// estimate reads the criteria file as run does and prices the criteria
// the LLM judges: each is planned the calls the run then sends of its
// task, an exact check none, and after the run the cache answers them.
func TestCriteriaEstimate(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	dir := t.TempDir()
	db, crit, data := filepath.Join(dir, "r.db"), repoFile("testdata/criteria/en-support.yaml"), repoFile("testdata/demo.jsonl")
	env := cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
	type metric struct {
		Calls struct {
			Chat int `json:"chat"`
		} `json:"calls"`
		CacheHits int      `json:"cache_hits"`
		CostUSD   *float64 `json:"cost_usd"`
	}
	estimate := func() map[string]metric {
		t.Helper()
		r := runBin(t, env, "estimate", "--json", "--db", db, "--metrics", "faithfulness", "--criteria", crit, data)
		var est struct {
			ByMetric map[string]metric `json:"by_metric"`
		}
		if r.code != exitOK || strings.Contains(r.stderr, "not in this estimate") || json.Unmarshal([]byte(r.stdout), &est) != nil {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		return est.ByMetric
	}
	before := estimate()
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the estimate sent %d judge calls", n)
	}
	if r := runBin(t, env, "run", "--headless", "--db", db, "--metrics", "faithfulness", "--criteria", crit, data); r.code != exitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	if srv.Count("criterion_yes_no") == 0 || srv.Count("criterion_rubric") == 0 {
		t.Fatal("the run judged no criterion")
	}
	after := estimate()
	for name, task := range map[string]string{"polite": "criterion_yes_no", "resolves": "criterion_rubric", "cites_source": ""} {
		sent := 0
		if task != "" {
			sent = srv.Count(task)
		}
		if b := before[name]; b.Calls.Chat != sent || (sent > 0 && (b.CostUSD == nil || *b.CostUSD <= 0)) {
			t.Errorf("%s: estimated %+v, the run sent %d %s calls", name, b, sent, task)
		}
		if a := after[name]; a.Calls.Chat != 0 || a.CacheHits != sent {
			t.Errorf("%s after the run: %+v, want %d cache hits", name, a, sent)
		}
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

// Human labels of criteria through the binary: imported under each
// criterion's name (a yes_no's verdict, a checklist's item), counted into
// a κ per criterion by `agreement`, applied by `report --with-labels`; a
// rubric's level is no yes/no, so a label of it matches nothing (exit 3).
func TestCriteriaLabelsAndAgreement(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	env := cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
	r := runBin(t, env, "run", "--headless", "--db", db, "--metrics", "faithfulness",
		"--criteria", repoFile("testdata/criteria/zh-enterprise.yaml"), repoFile("testdata/demo.jsonl"))
	if r.code != exitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	rep := decodeReport(t, r.stdout)

	// The humans agree with every verdict of simplified_chinese (an exact
	// check) but two, the first pass and the first fail the other way
	// round; they say no to the first of polite's (a yes_no, which the fake
	// judge passes for every demo answer) and yes to an item of
	// actionable's (a checklist) the judge says is not met.
	var lines []string
	add := func(sample, task, item string, label int) {
		b, _ := json.Marshal(map[string]any{"sample": sample, "task": task, "item": item, "label": label})
		lines = append(lines, string(b))
	}
	var yes, no, polite int
	flipped := map[string]bool{}
	var checklist string // the sample whose checklist item is labelled
	for _, s := range rep.Samples {
		v, ok := s.Score("simplified_chinese")
		if !ok {
			t.Fatalf("sample %s: simplified_chinese did not score: %v", s.ID, s.Status["simplified_chinese"])
		}
		judge := int(v)
		human := judge
		if judge == 1 && yes == 0 || judge == 0 && no == 0 {
			human = 1 - judge
			flipped[s.ID] = true
		}
		if judge == 1 {
			yes++
		} else {
			no++
		}
		add(s.ID, "simplified_chinese", "verdict", human)
		if v, _ := s.Score("polite"); v == 1 && polite == 0 {
			polite++
			add(s.ID, "polite", "verdict", 0)
		}
		if tr := s.Criteria["actionable"]; checklist == "" && tr != nil && len(tr.Items) == 3 && tr.Items[1].Verdict == 0 {
			checklist = s.ID
			add(s.ID, "actionable", tr.Items[1].Item, 1)
		}
	}
	if yes < 2 || no < 2 || polite != 1 || checklist == "" {
		t.Fatalf("the demo's verdicts changed: simplified_chinese %d pass, %d fail; %d polite yes labelled; checklist sample %q", yes, no, polite, checklist)
	}
	labelFile := filepath.Join(dir, "labels.jsonl")
	if err := os.WriteFile(labelFile, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runBin(t, env, "labels", "import", labelFile, "--run", "latest", "--db", db)
	if want := strconv.Itoa(len(lines)) + " added, 0 changed, 0 unchanged, 0 matched nothing"; r.code != exitOK || !strings.Contains(r.stdout, want) {
		t.Fatalf("import: exit %d, want %q\n%s%s", r.code, want, r.stdout, r.stderr)
	}

	r = runBin(t, env, "agreement", "latest", "--json", "--db", db)
	var a labels.Agreement
	if err := json.Unmarshal([]byte(r.stdout), &a); r.code != exitOK || err != nil {
		t.Fatalf("agreement: exit %d (%v)\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if !slices.Equal(a.Criteria, []string{"cites_policy", "no_hr_deflection", "simplified_chinese", "no_unsupported_numbers", "concise", "polite", "actionable", "helpfulness"}) {
		t.Errorf("agreement's criteria: %v", a.Criteria)
	}
	sc := a.Tasks["simplified_chinese"]
	wantConf := labels.Confusion{TP: yes - 1, FP: 1, TN: no - 1, FN: 1}
	if sc == nil || sc.Confusion != wantConf || sc.Labelled != yes+no || sc.Kappa == nil {
		t.Fatalf("simplified_chinese: %+v, want confusion %+v and a kappa", sc, wantConf)
	}
	// κ by its definition from the counts.
	n := float64(yes + no)
	po := float64(yes+no-2) / n
	pe := float64(yes)/n*float64(yes)/n + float64(no)/n*float64(no)/n
	if want := (po - pe) / (1 - pe); math.Abs(*sc.Kappa-want) > 1e-9 {
		t.Errorf("simplified_chinese: kappa %v, want %v", *sc.Kappa, want)
	}
	if m := a.Metrics["simplified_chinese"]; m.Labelled != yes+no || m.Disputed != 2 || m.Changed != 2 {
		t.Errorf("simplified_chinese's scores with labels: %+v", m)
	}
	if c := a.Tasks["polite"]; c == nil || c.Confusion != (labels.Confusion{FP: 1}) || a.Metrics["polite"].Changed != 1 {
		t.Errorf("polite: %+v, want one yes the humans call a no", c)
	}
	if c := a.Tasks["actionable"]; c == nil || c.Confusion != (labels.Confusion{FN: 1}) || a.Metrics["actionable"].Changed != 1 {
		t.Errorf("actionable: %+v, want one item the judge missed", c)
	}
	r = runBin(t, env, "agreement", "latest", "--db", db)
	if r.code != exitOK || !regexp.MustCompile(`(?m)^simplified_chinese +`+strconv.Itoa(yes+no)+` +`).MatchString(r.stdout) {
		t.Errorf("agreement as text has no row of simplified_chinese:\n%s", r.stdout)
	}

	// The labels applied: the flipped samples' scores turn over.
	r = runBin(t, env, "report", "latest", "--with-labels", "--db", db)
	for _, s := range decodeReport(t, r.stdout).Samples {
		before, _ := rep.Samples[s.Index].Score("simplified_chinese")
		after, _ := s.Score("simplified_chinese")
		if flipped[s.ID] != (before != after) {
			t.Errorf("sample %s: simplified_chinese %v with labels, %v without", s.ID, after, before)
		}
	}

	// A rubric's level is not labelled: the line is listed, exit 3.
	stray := filepath.Join(dir, "stray.jsonl")
	if err := os.WriteFile(stray, []byte(`{"sample": "`+rep.Samples[0].ID+`", "task": "helpfulness", "item": "verdict", "label": 1}`+"\n"+
		`{"sample": "`+rep.Samples[0].ID+`", "task": "politeness", "item": "verdict", "label": 1}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runBin(t, env, "labels", "import", stray, "--run", "latest", "--db", db)
	if r.code != 3 || !strings.Contains(r.stderr, `stray.jsonl:1: sample "`+rep.Samples[0].ID+`"`) || !strings.Contains(r.stderr, "a rubric has none") ||
		!strings.Contains(r.stderr, `stray.jsonl:2: "politeness" is neither a metric's task`) {
		t.Errorf("labels no criterion item takes: exit %d\n%s", r.code, r.stderr)
	}
}
