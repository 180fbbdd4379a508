package report

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/internal/reporttest"
)

var bres = reporttest.Baseline

// Samples match by id when the run's sample has one the baseline has,
// else by content, and only with baseline samples without an id; repeats
// of one content pair in order; a baseline sample is matched once.
func TestKeyIndexMatching(t *testing.T) {
	x := NewKeyIndex([]eval.Metric{eval.Faithfulness}, 0)
	for _, r := range []*eval.Result{
		bres(0, "a", "alpha", 1), bres(1, "b", "beta", 1), bres(2, "", "gamma", 1),
		bres(3, "", "dup", 1), bres(4, "", "dup", 0.5),
	} {
		x.Add(r)
	}
	for _, c := range []struct {
		r    *eval.Result
		pos  int
		kind MatchKind
	}{
		{bres(9, "b", "beta changed", 0), 1, MatchByID},    // same id, another answer
		{bres(8, "", "gamma", 0), 2, MatchByContent},       // reordered, no id
		{bres(7, "z", "alpha", 0), -1, MatchNone},          // the content of a sample with an id: ids decide
		{bres(6, "", "dup", 0), 3, MatchByContent},         // repeats pair in order
		{bres(5, "new-id", "dup", 0), 4, MatchByContent},   // an unknown id falls back to content
		{bres(4, "", "dup", 0), -1, MatchNone},             // both repeats taken
		{bres(3, "b", "beta", 0), -1, MatchNone},           // taken already
		{bres(2, "", "no such content", 0), -1, MatchNone}, //
		{bres(1, "a", "alpha", 0), 0, MatchByID},           //
		{bres(0, "", "gamma", 0), -1, MatchNone},           // taken by the second
	} {
		pos, kind := x.Match(c.r)
		if pos != c.pos || kind != c.kind {
			t.Errorf("%s/%q: matched %d by %d, want %d by %d", c.r.ID, c.r.Answer, pos, kind, c.pos, c.kind)
		}
	}
	if n := x.Unmatched(); n != 0 {
		t.Errorf("%d baseline samples unmatched, want 0", n)
	}
	// The content key covers every field, unambiguously.
	a, b := bres(0, "", "x", 1), bres(0, "", "x", 1)
	b.Contexts = []string{"c", ""}
	if contentKey(a) == contentKey(b) {
		t.Error("an extra empty context does not change the content key")
	}
	b.Contexts, b.Reference = []string{"c"}, "r"
	if contentKey(a) == contentKey(b) {
		t.Error("the reference does not change the content key")
	}
}

// Diff matches by key: a reordered run compares the
// same samples.
func TestDiffMatchings(t *testing.T) {
	before := []*eval.Result{bres(0, "", "one", 1), bres(1, "", "two", 0.5)}
	after := []*eval.Result{bres(0, "", "two", 0.5), bres(1, "", "one", 1)}
	if d := Diff([]eval.Metric{eval.Faithfulness}, before, after); len(d.Samples) != 0 || d.Shared != 2 || d.ByContent != 2 {
		t.Errorf("by key: %+v", d)
	}
}

// compare runs a comparison of run with base under g (the run's gate
// besides the baseline's: --max-failing 1) and returns the outcome.
func compare(base, run []*eval.Result, g BaselineGate) (GateOutcome, *Comparison) {
	x := NewKeyIndex([]eval.Metric{eval.Faithfulness}, len(base))
	for _, r := range base {
		x.Add(r)
	}
	c := NewComparison(x, g, 3)
	gt := NewGateTally(Gate{MaxFailing: Allowance{N: 1}, Baseline: g}, 5)
	gt.Compare(c)
	tally := NewTally([]eval.Metric{eval.Faithfulness})
	for _, r := range run {
		tally.Add(r)
		gt.Add(r)
	}
	return gt.Outcome(tally), c
}

// Every outcome of a baseline gate.
func TestBaselineGateOutcomes(t *testing.T) {
	base := []*eval.Result{bres(0, "s0", "a", 0.8), bres(1, "s1", "b", 0.8), bres(2, "s2", "c", 0.8), bres(3, "s3", "d", 0.8)}
	drop := func(d float64) BaselineGate {
		return BaselineGate{MaxDrop: []Threshold{{eval.Faithfulness, d}}, Margin: DefaultRegressMargin}
	}
	regressed := func(n int) BaselineGate {
		return BaselineGate{Regressed: true, MaxRegressed: Allowance{N: n}, Margin: DefaultRegressMargin}
	}
	// Reordered, one sample a little lower, one much lower: mean 0.8 -> 0.65.
	run := []*eval.Result{bres(0, "s3", "d", 0.8), bres(1, "s2", "c", 0.2), bres(2, "s1", "b", 0.75), bres(3, "s0", "a", 0.85)}
	for _, c := range []struct {
		name  string
		run   []*eval.Result
		base  []*eval.Result
		g     BaselineGate
		state GateState
		says  string
	}{
		{"mean within the drop", run, base, drop(0.15), GatePassed, "faithfulness mean 0.800 -> 0.650 on 4 shared samples (drop 0.150 <= 0.15)"},
		{"mean beyond the drop", run, base, drop(0.1), GateBreached, "a drop of 0.150, more than --max-drop 0.1"},
		{"regressions within N", run, base, regressed(1), GatePassed, "1 of 4 shared samples fell by more than 0.1 on some metric (faithfulness: 1); --max-regressed 1"},
		{"regressions beyond N", run, base, regressed(0), GateBreached, "1 of 4 shared samples fell"},
		{"regressions beyond P%", run, base, BaselineGate{Regressed: true, MaxRegressed: Allowance{Percent: 20, IsPercent: true}, Margin: 0.1}, GateBreached, "--max-regressed 20%"},
		{"a fall equal to the margin is no regression", run, base, BaselineGate{Regressed: true, Margin: 0.6}, GatePassed, "0 of 4"},
		{"no shared sample", []*eval.Result{bres(0, "x", "z", 0)}, base, drop(0.5), GateCannot, "no sample of the run is in the baseline"},
		{"no shared sample, regressions", []*eval.Result{bres(0, "x", "z", 0)}, base, regressed(5), GateCannot, "no sample of the run is in the baseline"},
		{"too many failures to judge", []*eval.Result{bres(0, "s0", "a", -1), bres(1, "s1", "b", -1), bres(2, "s2", "c", 0.8)}, base, drop(0.5), GateCannot, "failed to score on 2 of 3 samples"},
		{"the baseline has no score", run, []*eval.Result{bres(0, "s0", "a", -2)}, drop(0.5), GateCannot, "the baseline has no faithfulness score on the 1 shared samples"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, _ := compare(c.base, c.run, c.g)
			if len(o.Checks) == 0 {
				t.Fatal("no check")
			}
			ck := o.Checks[0]
			if ck.State != c.state || !strings.Contains(ck.Message, c.says) {
				t.Errorf("%s: %s, want %s saying %q", ck.Kind, ck.Message, c.state, c.says)
			}
			if o.Passed() != (c.state == GatePassed) {
				t.Errorf("passed %v with a check %s", o.Passed(), c.state)
			}
		})
	}
	// The regression check cannot gate either when a metric failed too often.
	o, _ := compare(base, []*eval.Result{bres(0, "s0", "a", -1), bres(1, "s1", "b", -1), bres(2, "s2", "c", 0.8)}, regressed(5))
	if len(o.Checks) != 2 || o.Checks[1].State != GateCannot || o.Passed() {
		t.Errorf("regressions with failures: %+v", o.Checks)
	}
	// The listing ranks the worst fall first.
	_, c := compare(base, run, regressed(0))
	l := c.Listed()
	if len(l) != 3 || l[0].AfterIndex != 1 || l[0].BeforeIndex != 2 || l[0].Worst > -0.59 || l[2].Worst <= 0 || c.Changed() != 3 {
		t.Errorf("listed %+v, changed %d", l, c.Changed())
	}
	// A baseline gate never passes without its comparison.
	gt := NewGateTally(Gate{Baseline: drop(0.1)}, 5)
	if o := gt.Outcome(NewTally([]eval.Metric{eval.Faithfulness})); o.Passed() || len(o.Checks) != 1 || o.Checks[0].State != GateCannot {
		t.Errorf("without a comparison: %+v", o.Checks)
	}
	o = GateOutcome{}
	gt = NewGateTally(Gate{Baseline: drop(0.1)}, 5)
	gt.Compare(UnreadableComparison(errors.New("gone"), drop(0.1)))
	if o = gt.Outcome(NewTally([]eval.Metric{eval.Faithfulness})); o.Passed() || !strings.Contains(o.Checks[0].Message, "could not be read: gone") {
		t.Errorf("unreadable: %+v", o.Checks)
	}
}

func TestParseMaxDrops(t *testing.T) {
	got, err := ParseMaxDrops("max-drop", "f=0.05, ar=1.5")
	if err != nil || len(got) != 2 || got[0] != (Threshold{eval.Faithfulness, 0.05}) || got[1] != (Threshold{eval.AnswerRelevancy, 1.5}) {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"f=-0.1", "f=1.5", "ar=2.5", "f", "fidelity=0.1", "f=0.1,f=0.2"} {
		if _, err := ParseMaxDrops("max-drop", bad); err == nil || !strings.Contains(err.Error(), "--max-drop") {
			t.Errorf("%q: %v, want an error naming --max-drop", bad, err)
		}
	}
	if _, err := ParseAllowanceFlag("max-regressed", "x%"); err == nil || !strings.Contains(err.Error(), "--max-regressed") {
		t.Errorf("--max-regressed x%%: %v", err)
	}
}

// A report read back is what was written: every sample, in order, with
// its index, id, texts, scores and statuses; in full where asked.
func TestReadReportRoundTrip(t *testing.T) {
	rep := ciReport()
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got []*eval.Result
	info, err := ReadReport(bytes.NewReader(b.Bytes()), func(pos int) bool { return pos == 0 }, func(pos int, r *eval.Result) error {
		if pos != len(got) {
			t.Fatalf("position %d after %d samples", pos, len(got))
		}
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if info.ID != rep.Run.ID || len(info.Metrics) != 4 || len(got) != len(rep.Samples) {
		t.Fatalf("run %+v, %d samples", info, len(got))
	}
	for i, r := range got {
		w := rep.Samples[i]
		if r.Index != w.Index || r.ID != w.ID || r.Question != w.Question || contentKey(r) != contentKey(w) || fmt.Sprint(r.Status) != fmt.Sprint(w.Status) {
			t.Errorf("sample %d: %+v, want %+v", i, r, w)
		}
		for m, v := range w.Scores {
			if (v == nil) != (r.Scores[m] == nil) || v != nil && *v != *r.Scores[m] {
				t.Errorf("sample %d %s: %v, want %v", i, m, r.Scores[m], v)
			}
		}
	}
	if got[0].Faithfulness == nil || len(got[0].Faithfulness.Statements) != 2 || len(got[0].Calls) != 3 {
		t.Errorf("sample 0 not read in full: %+v", got[0])
	}
	if got[1].AnswerRelevancy != nil {
		t.Errorf("sample 1 read in full: %+v", got[1].AnswerRelevancy)
	}
}

// A file that is not a report we write is refused, saying where and why.
func TestReadReportRejects(t *testing.T) {
	var b bytes.Buffer
	if err := ciReport().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	sample := `{"index":0,"scores":{"faithfulness":0.5},"status":{"faithfulness":"ok"}}`
	report := func(samples string) string {
		return `{"version":1,"run":{"id":"r","metrics":["faithfulness"]},"samples":[` + samples + `]}`
	}
	for _, c := range []struct{ name, data, says string }{
		{"empty", "", "ends at byte 0"},
		{"an array", "[1]", "not a JSON report"},
		{"a jsonl line", sample + "\n" + sample, "one sample (a --format jsonl line?)"},
		{"truncated", good[:len(good)/2], "truncated"},
		{"trailing data", good + "{}", "more data after"},
		{"not json", "{version: 1}", "not valid JSON"},
		{"a later version", strings.Replace(good, `"version": 1`, `"version": 2`, 1), "report version 2"},
		{"no version", `{"run":{"id":"r"},"samples":[]}`, `no "version"`},
		{"no samples", `{"version":1,"run":{"id":"r"}}`, `no "samples"`},
		{"samples not an array", `{"version":1,"run":{},"samples":{}}`, `"samples" is not an array`},
		{"no index", report(`{"scores":{}}`), `sample 1 of "samples" (byte 68): no "index"`},
		{"negative index", report(`{"index":-1}`), `"index" -1`},
		{"unknown status", report(`{"index":0,"status":{"faithfulness":"okay"}}`), `status "okay" of faithfulness is not a status`},
		{"unknown metric", report(`{"index":0,"status":{"fidelity":"ok"}}`), `metric "fidelity"`},
		{"score without ok", report(`{"index":0,"scores":{"faithfulness":0.5},"status":{"faithfulness":"judge_error"}}`), "only ok carries a score"},
		{"ok without score", report(`{"index":0,"scores":{"faithfulness":null},"status":{"faithfulness":"ok"}}`), "status ok and no score"},
		{"score out of range", report(`{"index":0,"scores":{"faithfulness":1.5},"status":{"faithfulness":"ok"}}`), "out of its range"},
		{"a score of the wrong type", report(`{"index":0,"scores":{"faithfulness":"high"},"status":{"faithfulness":"ok"}}`), "wrong type"},
		{"second sample bad", report(sample + `,{"index":1,"status":{"faithfulness":"??"}}`), `sample 2 of "samples"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadReport(strings.NewReader(c.data), nil, func(int, *eval.Result) error { return nil })
			if err == nil || !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %v, want one saying %q", err, c.says)
			}
		})
	}
	if _, err := ReadReport(strings.NewReader(report(sample)), nil, func(int, *eval.Result) error { return nil }); err != nil {
		t.Errorf("a minimal report: %v", err)
	}
}

// A sample well past the bound is refused without being read whole; one
// under it is read.
func TestReadReportBoundsASample(t *testing.T) {
	defer func(n int64) { maxSampleBytes = n }(maxSampleBytes)
	maxSampleBytes = 1 << 20
	sample := func(n int) string {
		return `{"version":1,"run":{},"samples":[{"index":0,"question":"` + strings.Repeat("x", n) + `"}]}`
	}
	_, err := ReadReport(strings.NewReader(sample(4<<20)), nil, func(int, *eval.Result) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `sample 1 of "samples" (byte 33): larger than 1 MiB`) {
		t.Fatalf("error %v", err)
	}
	if _, err := ReadReport(strings.NewReader(sample(900<<10)), nil, func(int, *eval.Result) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// The JUnit report with baseline checks is still valid under the schema,
// with a testcase per baseline check.
func TestJUnitBaselineChecks(t *testing.T) {
	rep := ciReport()
	g := ciGate
	g.Baseline = BaselineGate{MaxDrop: []Threshold{{eval.Faithfulness, 0.01}, {eval.ContextRecall, 0.5}}, Regressed: true, MaxRegressed: Allowance{N: 0}, Margin: 0.1}
	base := make([]*eval.Result, 0, len(rep.Samples))
	for _, r := range rep.Samples {
		c := *r
		c.Scores = map[eval.Metric]*float64{}
		for m, v := range r.Scores {
			if v != nil {
				up := min(*v+0.2, 1)
				c.Scores[m] = &up
			}
		}
		base = append(base, &c)
	}
	x := NewKeyIndex(eval.AllMetrics, 0)
	for _, r := range base {
		x.Add(r)
	}
	tally, gt := NewTally(rep.Run.Metrics), NewGateTally(g, 5)
	gt.Compare(NewComparison(x, g.Baseline, 3))
	for _, r := range rep.Samples {
		tally.Add(r)
		gt.Add(r)
	}
	o := gt.Outcome(tally)
	var b bytes.Buffer
	if err := WriteReportJUnit(&b, rep.Run, tally.Summary(), gt, o, rep.each); err != nil {
		t.Fatal(err)
	}
	if err := validateJUnit(b.Bytes()); err != nil {
		t.Fatalf("%v\n%s", err, b.Bytes())
	}
	for _, want := range []string{
		`<testcase name="faithfulness mean drop from the baseline &lt;= 0.01" classname="ragscope.gate.baseline.faithfulness"`,
		`<testcase name="context_recall mean drop from the baseline &lt;= 0.5" classname="ragscope.gate.baseline.context_recall"`,
		`<testcase name="samples fallen by more than 0.1 from the baseline &lt;= --max-regressed 0" classname="ragscope.gate.baseline.samples"`,
		`type="gate_breached"`,
	} {
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Errorf("JUnit lacks %s:\n%s", want, b.Bytes())
		}
	}
	var gh bytes.Buffer
	if err := WriteReportGitHub(&gh, rep.Run, tally.Summary(), o, rep.each); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gh.String(), "::error title=ragscope gate breached::faithfulness mean 0.") || !strings.Contains(gh.String(), "shared samples fell by more than 0.1") {
		t.Errorf("github:\n%s", gh.String())
	}
}

// Unmatched is how many samples of the index no Match has taken.
func (x *KeyIndex) Unmatched() int {
	n := 0
	for _, w := range x.used {
		n += bits.OnesCount64(w)
	}
	return len(x.index) - n
}

// Regressed is how many shared samples fell by more than the margin.
func (c *Comparison) Regressed() int { return c.regressed }
