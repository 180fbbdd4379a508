package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/internal/reporttest"
)

var newMetricsResult = reporttest.NewMetrics

var newMetrics = reporttest.NewMetricList

// The three report formats carry the new metrics of a run that has them:
// the JSON traces under their metric names, CSV and Markdown columns.
func TestReportsOfTheNewMetrics(t *testing.T) {
	res := newMetricsResult(0, 0.5, 2.0/3, 0.5)
	rep := NewReport(RunInfo{ID: "r", Metrics: newMetrics, StartedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}, []*eval.Result{res})
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Samples []map[string]json.RawMessage `json:"samples"`
	}
	if err := json.Unmarshal(js.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	s := raw.Samples[0]
	for key, want := range map[string]string{
		"factual_correctness":   `"reference_claims"`,
		"context_entity_recall": `"reference_entities"`,
		"noise_sensitivity":     `"chunks"`,
	} {
		if !strings.Contains(string(s[key]), want) {
			t.Errorf("JSON sample's %s lacks %s: %s", key, want, s[key])
		}
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Samples[0].ContextEntityRecall == nil || back.Samples[0].ContextEntityRecall.Found != 2 {
		t.Fatalf("JSON round trip: %v %+v", err, back.Samples)
	}

	var csvOut strings.Builder
	if err := rep.WriteCSV(&csvOut); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(csvOut.String(), "\n")
	wantHead := "index,id,question,answer,faithfulness,answer_relevancy,context_precision,context_recall," +
		"factual_correctness,context_entity_recall,noise_sensitivity,faithfulness_status,answer_relevancy_status,context_precision_status,context_recall_status," +
		"factual_correctness_status,context_entity_recall_status,noise_sensitivity_status,diagnosis,errors,judge"
	if lines[0] != wantHead {
		t.Errorf("CSV head\n%s\nwant\n%s", lines[0], wantHead)
	}
	if !strings.Contains(lines[1], ",0.5000,0.6667,0.5000,,,,,ok,ok,ok,") {
		t.Errorf("CSV row lacks the scores and statuses: %s", lines[1])
	}

	var md strings.Builder
	if err := rep.WriteMarkdown(&md, 5); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| factual_correctness | 0.500 |", "| context_entity_recall | 0.667 |", "| noise_sensitivity | 0.500 |",
		"| CR | FC | ER | NS | diagnosis |", "| 0.50 | 0.67 | 0.50 |", "noise_sensitivity: lower is better"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
}

// Unsupported is reported like a metric that does not apply: not a
// failure, counted under n/a with its reason, skipped in JUnit with the
// judge's reason, no warning in GitHub's output, valid in a report read
// back.
func TestUnsupportedIsNotAFailure(t *testing.T) {
	why := "noise sensitivity needs an entailment judgement of every statement against every chunk"
	res := newMetricsResult(0, 0.5, 2.0/3, 0)
	res.Scores[eval.NoiseSensitivity], res.Status[eval.NoiseSensitivity], res.NoiseSensitivity = nil, eval.StatusUnsupported, nil
	res.Errors = map[eval.Metric]string{eval.NoiseSensitivity: why}
	rep := NewReport(RunInfo{ID: "r", Metrics: newMetrics}, []*eval.Result{res})
	tally, gt := ciTally(rep, Gate{})
	ms := tally.Summary()[eval.NoiseSensitivity]
	if res.Failed() || tally.Failed() != 0 || ms.Failed != 0 || ms.NotApplicable != 1 || ms.Why() != "1 unsupported" {
		t.Errorf("failed %v, tally %d, summary %+v (%s)", res.Failed(), tally.Failed(), ms, ms.Why())
	}
	if d := Diagnose(res); d == DiagFailed {
		t.Errorf("diagnosis %s", d)
	}
	junit := writeJUnit(t, rep, Gate{})
	if err := validateJUnit(junit); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(junit), `<skipped message="unsupported: `+why+`"`) {
		t.Errorf("JUnit does not skip with the reason:\n%s", junit)
	}
	var gh bytes.Buffer
	if err := WriteReportGitHub(&gh, rep.Run, tally.Summary(), gt.Outcome(tally), rep.each); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(gh.String(), "::warning") || strings.Contains(gh.String(), "::error") {
		t.Errorf("GitHub output warns of an unsupported metric:\n%s", gh.String())
	}
	var jl bytes.Buffer
	if err := WriteReportJSONL(&jl, Levels{}, rep.each); err != nil || !strings.Contains(jl.String(), `"noise_sensitivity":"unsupported"`) {
		t.Errorf("JSONL: %v\n%s", err, jl.String())
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	n := 0
	if _, err := ReadReport(bytes.NewReader(js.Bytes()), nil, func(int, *eval.Result) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("a report with an unsupported metric reads back: %v (%d samples)", err, n)
	}
	if statusCode(eval.StatusUnsupported) == statusCode(eval.StatusJudgeError) {
		t.Error("the key index keeps unsupported as a failure")
	}
}

// Noise sensitivity is better lower: a threshold is its ceiling, a rise
// from the baseline its drop, a high score ranks a sample among the worst.
func TestNoiseSensitivityGates(t *testing.T) {
	nsResult := func(i int, v float64) *eval.Result {
		r := newMetricsResult(i, 1, 1, v)
		return r
	}
	for _, c := range []struct {
		name   string
		gate   Gate
		scores []float64
		state  GateState
		msg    string
	}{
		{"mean under the ceiling passes", Gate{Mean: []Threshold{{eval.NoiseSensitivity, 0.3}}}, []float64{0.2, 0.4}, GatePassed, "noise_sensitivity mean 0.300 <= 0.3"},
		{"mean over the ceiling breaches", Gate{Mean: []Threshold{{eval.NoiseSensitivity, 0.2}}}, []float64{0.2, 0.4}, GateBreached, "noise_sensitivity mean 0.300 > 0.2"},
		{"a low mean never breaches", Gate{Mean: []Threshold{{eval.NoiseSensitivity, 0.2}}}, []float64{0, 0}, GatePassed, "mean 0.000 <= 0.2"},
		{"samples over the ceiling", Gate{Sample: []Threshold{{eval.NoiseSensitivity, 0.3}}, MaxFailing: Allowance{N: 1}}, []float64{0.5, 0.6, 0}, GateBreached, "noise_sensitivity > 0.3: 2"},
		{"samples at the ceiling pass", Gate{Sample: []Threshold{{eval.NoiseSensitivity, 0.3}}}, []float64{0.3, 0}, GatePassed, "0 of 2 samples"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tally, gt := NewTally(newMetrics), NewGateTally(c.gate, 3)
			for i, v := range c.scores {
				r := nsResult(i, v)
				tally.Add(r)
				gt.Add(r)
			}
			o := gt.Outcome(tally)
			if o.Checks[0].State != c.state || !strings.Contains(o.Checks[0].Message, c.msg) {
				t.Fatalf("%+v, want %s with %q", o.Checks[0], c.state, c.msg)
			}
			for _, l := range o.WorstLines() {
				if !strings.Contains(l, "is above 0.3") || !strings.Contains(l, "backed by relevant chunk 2") {
					t.Errorf("worst line %q", l)
				}
			}
		})
	}
	th, err := ParseThresholds("fail-under", "ns=0.2,er=0.5,fc=0.6")
	if err != nil || len(th) != 3 || th[0] != (Threshold{eval.NoiseSensitivity, 0.2}) {
		t.Errorf("ParseThresholds: %v %v", th, err)
	}
	if _, err := ParseThresholds("fail-under", "ns=1.2"); err == nil {
		t.Error("ns=1.2 accepted")
	}

	// A baseline: noise rising by 0.3 is a drop of 0.3; falling is none.
	base := []*eval.Result{nsResult(0, 0.1), nsResult(1, 0.1)}
	for _, c := range []struct {
		name  string
		after []float64
		state GateState
		msg   string
		regr  int
	}{
		{"a rise is the regression", []float64{0.4, 0.4}, GateBreached, "a rise of 0.300, more than --max-drop 0.05", 2},
		{"a fall is an improvement", []float64{0, 0}, GatePassed, "rise -0.100 <= 0.05", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := BaselineGate{MaxDrop: []Threshold{{eval.NoiseSensitivity, 0.05}}, Regressed: true, MaxRegressed: Allowance{N: 5}, Margin: 0.1}
			x := NewKeyIndex(newMetrics, len(base))
			for _, r := range base {
				x.Add(r)
			}
			cmp := NewComparison(x, g, 3)
			gt := NewGateTally(Gate{Baseline: g}, 3)
			gt.Compare(cmp)
			tally := NewTally(newMetrics)
			for i, v := range c.after {
				r := nsResult(i, v)
				tally.Add(r)
				gt.Add(r)
			}
			o := gt.Outcome(tally)
			if o.Checks[0].State != c.state || !strings.Contains(o.Checks[0].Message, c.msg) || cmp.Regressed() != c.regr {
				t.Errorf("%+v, regressed %d; want %s with %q, %d", o.Checks, cmp.Regressed(), c.state, c.msg, c.regr)
			}
			if l := cmp.Listed(); c.regr > 0 && (len(l) != 2 || l[0].Worst > -0.29) {
				t.Errorf("listed %+v: the rise must be the worst change", l)
			}
		})
	}

	// Worst first: the noisiest sample ranks before a middling one.
	w := NewWorst(2)
	for i, v := range []float64{0.1, 0.9, 0.4} {
		w.Add(nsResult(i, v))
	}
	if got := w.Samples(); got[0].Index != 1 || got[1].Index != 2 {
		t.Errorf("worst %d, %d; want 1, 2", got[0].Index, got[1].Index)
	}
}

// Changed judgements of the new metrics: a claim whose verdict turned, an
// entity found before and missing after (matched by its key, not its
// place in the list), a statement that became noise and a chunk that
// became irrelevant.
func TestJudgementChangesOfTheNewMetrics(t *testing.T) {
	a, b := reporttest.NewMetricsChanged()
	got := judgementChanges(a, b)
	want := []struct {
		m                   eval.Metric
		what, before, after string
	}{
		{eval.FactualCorrectness, "answer claim 2", "FP: the reference says Enfield only", "TP: the reference names Enfield"},
		{eval.ContextEntityRecall, "entity 3", `found (as "N279")`, "missing from the contexts"},
		{eval.ContextEntityRecall, "entity 4", "", "missing from the contexts"},
		{eval.NoiseSensitivity, "answer statement 1", "correct; relevant chunks 1; irrelevant chunks none", "incorrect; relevant chunks 1; irrelevant chunks none; noise: relevant"},
		{eval.NoiseSensitivity, "chunk 2", "relevant (entails a reference statement)", "irrelevant"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d changes, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if g := got[i]; g.Metric != w.m || g.What != w.what || g.Before != w.before || g.After != w.after {
			t.Errorf("change %d: %+v, want %+v", i, g, w)
		}
	}
	// The trace is taken with its metric on a merge.
	m := eval.Merge(a, b, []eval.Metric{eval.ContextEntityRecall})
	if m.ContextEntityRecall != b.ContextEntityRecall || m.FactualCorrectness != a.FactualCorrectness || m.NoiseSensitivity != a.NoiseSensitivity {
		t.Error("Merge did not take the entity recall trace alone")
	}
	if eval.MetricOfTask("entailment_verdicts") != eval.FactualCorrectness {
		t.Error("entailment_verdicts is not factual correctness's")
	}
	if eval.MetricOfTask("context_entity_recall_entities") != eval.ContextEntityRecall {
		t.Error("the entities task is not entity recall's")
	}
}
