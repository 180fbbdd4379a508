package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
)

// critReport is a run of faithfulness and two criteria: cites_policy
// (pass 1) failed by s1 and unsupported nowhere, polite (pass 1) judged
// no once and unsupported once.
func critReport() *Report {
	f := func(v float64) *float64 { return &v }
	run := RunInfo{ID: "20261204-100000-crit", Dataset: "crit.jsonl", StartedAt: time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC),
		Judge: eval.JudgeInfo{Name: "offline"}, Metrics: []eval.Metric{eval.Faithfulness}, Samples: 2,
		Criteria: &CriteriaInfo{File: "c.yaml", SHA256: "ab", Items: []CriterionInfo{{Name: "cites_policy", Kind: "regex", Pass: 1}, {Name: "polite", Kind: "yes_no", Pass: 1}}}}
	return NewReport(run, []*eval.Result{
		{
			Index: 0, ID: "s0", Question: "q0", Answer: "依据第3条",
			Scores:   map[eval.Metric]*float64{eval.Faithfulness: f(1), "cites_policy": f(1), "polite": f(1)},
			Status:   map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, "cites_policy": eval.StatusOK, "polite": eval.StatusOK},
			Criteria: map[string]*criteria.Trace{"cites_policy": {Reason: "found 第3条"}, "polite": {Draws: []criteria.Draw{{Verdict: 1, Reason: "courteous"}}}},
		},
		{
			Index: 1, ID: "s1", Question: "q1", Answer: "问HR",
			Scores:   map[eval.Metric]*float64{eval.Faithfulness: f(1), "cites_policy": f(0)},
			Status:   map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, "cites_policy": eval.StatusOK, "polite": eval.StatusUnsupported},
			Errors:   map[eval.Metric]string{"polite": "a yes_no criterion needs an LLM judge"},
			Criteria: map[string]*criteria.Trace{"cites_policy": {Reason: "no pattern found in the answer"}},
		},
	})
}

// A criterion is reported like a metric: in the summary, a CSV column, a
// Markdown row, a JUnit testsuite, a GitHub annotation naming it, a gate.
func TestReportsOfCriteria(t *testing.T) {
	rep := critReport()
	if got := rep.Run.Scored(); len(got) != 3 || got[1] != "cites_policy" || got[2] != "polite" {
		t.Fatalf("Scored() = %v", got)
	}
	if n, p := rep.Run.Criteria.Names(), rep.Run.Criteria.Passes(); len(n) != 2 || n[1] != "polite" || p["polite"] != 1 {
		t.Errorf("Names() %v, Passes() %v", n, p)
	}
	if n, p := (*CriteriaInfo)(nil).Names(), (*CriteriaInfo)(nil).Passes(); n != nil || p != nil {
		t.Errorf("a run without criteria: %v %v", n, p)
	}
	if ms := rep.Summary["cites_policy"]; ms.Mean == nil || *ms.Mean != 0.5 || ms.Scored != 2 {
		t.Errorf("summary of cites_policy: %+v", ms)
	}
	if ms := rep.Summary["polite"]; ms.Scored != 1 || ms.ByStatus[eval.StatusUnsupported] != 1 {
		t.Errorf("summary of polite: %+v", ms)
	}
	levels := RunLevels(rep.Run)
	if levels.Passes("cites_policy", 0.9) || !levels.Passes("cites_policy", 1) || !levels.IsDefault() {
		t.Errorf("a criterion passes at its own level (1), and --pass's levels stay the defaults: %v %v", levels.Passes("cites_policy", 0.9), levels.IsDefault())
	}

	var b bytes.Buffer
	if err := rep.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"cites_policy", "cites_policy_status", "polite", "polite_status"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("CSV header %v has no %s", rows[0], h)
		}
	}
	if r := rows[2]; r[col["cites_policy"]] != "0.0000" || r[col["polite_status"]] != "unsupported" || !strings.Contains(r[col["errors"]], "polite: a yes_no criterion") {
		t.Errorf("CSV row of s1: %v", r)
	}

	b.Reset()
	if err := rep.WriteMarkdown(&b, 5); err != nil {
		t.Fatal(err)
	}
	if md := b.String(); !strings.Contains(md, "| cites_policy | 0.500 | 2 |") || !strings.Contains(md, "| polite | 1.000 | 1 | 1 |") {
		t.Errorf("Markdown has no summary row per criterion:\n%s", md)
	}

	th, err := ParseThresholds("fail-under-sample", "cites_policy=1", "cites_policy", "polite")
	if err != nil {
		t.Fatal(err)
	}
	g := Gate{Sample: th}
	tally, gt := NewTally(rep.Run.Scored()), NewGateTally(g, 5)
	for _, r := range rep.Samples {
		tally.Add(r)
		gt.Add(r)
	}
	b.Reset()
	if err := WriteReportJUnit(&b, rep.Run, tally.Summary(), gt, gt.Outcome(tally), rep.each); err != nil {
		t.Fatal(err)
	}
	if err := validateJUnit(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	root, err := parseXML(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	suites := map[string]*xnode{}
	for _, s := range root.kids {
		suites[s.attrs["name"]] = s
	}
	cp := suites["cites_policy"]
	if cp == nil || cp.attrs["tests"] != "2" || cp.attrs["failures"] != "1" || len(cp.kids) != 2 {
		t.Fatalf("no testsuite cites_policy with a testcase per sample and s1 failing: %+v", cp)
	}
	if fail := cp.kids[1].kids; len(fail) != 1 || fail[0].name != "failure" || !strings.Contains(fail[0].attrs["message"], "no pattern found") {
		t.Errorf("s1's testcase of cites_policy: %+v", cp.kids[1])
	}
	if p := suites["polite"]; p == nil || p.attrs["skipped"] != "1" {
		t.Errorf("testsuite polite: %+v", p)
	}

	b.Reset()
	if err := WriteReportGitHub(&b, rep.Run, tally.Summary(), gt.Outcome(tally), rep.each); err != nil {
		t.Fatal(err)
	}
	if gh := b.String(); !strings.Contains(gh, "title=cites_policy 0.000 < 1%3A sample s1::") || !strings.Contains(gh, "ragscope gate breached::") {
		t.Errorf("GitHub annotations do not name the failing criterion:\n%s", gh)
	}
}

// A gate on a name that is neither a metric nor one of the run's criteria
// is refused, listing both.
func TestParseThresholdsOfCriteria(t *testing.T) {
	for _, c := range []struct {
		in, crit, says string
	}{
		{"polite=0.8,f=0.5", "polite", ""},
		{"Polite=0.8", "polite", `unknown metric "Polite"`},
		{"polite=0.8", "", `unknown metric "polite" (choose from faithfulness`},
		{"rude=1", "polite,short", "or a criterion: polite, short)"},
		{"polite=0.8,polite=0.9", "polite", "polite is given twice"},
	} {
		var crit []string
		if c.crit != "" {
			crit = strings.Split(c.crit, ",")
		}
		_, err := ParseThresholds("fail-under", c.in, crit...)
		if (err == nil) != (c.says == "") || (err != nil && !strings.Contains(err.Error(), c.says)) {
			t.Errorf("%s with criteria %v: %v, want %q", c.in, crit, err, c.says)
		}
	}
}

// A JSON report of a run with criteria reads back as a baseline: its
// criteria's scores are known names, as they are only in such a run.
func TestReadReportWithCriteria(t *testing.T) {
	rep := critReport()
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got []*eval.Result
	info, err := ReadReport(bytes.NewReader(b.Bytes()), nil, func(_ int, r *eval.Result) error {
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if info.Criteria == nil || len(got) != 2 || *got[1].Scores["cites_policy"] != 0 || got[1].Status["polite"] != eval.StatusUnsupported {
		t.Fatalf("read back: %+v, %v", info.Criteria, got)
	}
	// Without the run's criteria the same scores are names no one knows.
	noCrit := strings.Replace(b.String(), `"criteria": {`, `"criteria_was": {`, 1)
	if _, err := ReadReport(strings.NewReader(noCrit), nil, func(int, *eval.Result) error { return nil }); err == nil || !strings.Contains(err.Error(), "not one ragscope knows") {
		t.Fatalf("a criterion the run does not list: %v", err)
	}
}
