package html

import (
	"bytes"
	"errors"
	"html"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// comparePage writes run's page compared with base (read one sample at a
// time when full), returning the page and the positions read in full.
func comparePage(t *testing.T, base, run []*eval.Result, full bool) (string, []int) {
	t.Helper()
	x := report.NewKeyIndex([]eval.Metric{eval.Faithfulness}, len(base))
	for _, r := range base {
		x.Add(r)
	}
	var read []int
	hb := &Baseline{Label: "run A", Index: x}
	if full {
		hb.Sample = func(pos int) (*eval.Result, error) {
			read = append(read, pos)
			return base[pos], nil
		}
	}
	info := report.RunInfo{ID: "B", Metrics: []eval.Metric{eval.Faithfulness}}
	each := func(yield func(*eval.Result) error) error {
		for _, r := range run {
			if err := yield(r); err != nil {
				return err
			}
		}
		return nil
	}
	var b bytes.Buffer
	if err := Write(&b, info, map[eval.Metric]report.MetricSummary{}, map[report.Diagnosis]int{}, each, hb); err != nil {
		t.Fatal(err)
	}
	return b.String(), read
}

// withStatement gives r a faithfulness trace of one statement.
func withStatement(r *eval.Result, statement string, verdict int, reason string) *eval.Result {
	r.Faithfulness = &eval.FaithfulnessTrace{Statements: []eval.StatementVerdict{{Statement: statement, Verdict: verdict, Reason: reason}}}
	return r
}

// The compare view: the means before and after, a Δ per sample coloured
// by better or worse, samples new since the baseline, a change of status,
// and the changed judgements of a changed sample with each side's reason —
// read from the baseline only for the samples that changed, and escaped
// like every other text.
func TestHTMLCompareView(t *testing.T) {
	base := []*eval.Result{
		withStatement(bres(0, "a", "x", 1), "税号不变", 1, "the chunk says so"),
		bres(1, "b", "y", 0.5),
		bres(2, "c", "z", 0.5),
	}
	run := []*eval.Result{
		withStatement(bres(0, "a", "x", 0), "税号不变", 0, htmlHostile),
		bres(1, "b", "y", 0.5),
		bres(2, "c", "z", -1),
		bres(3, "d", "w", 1),
	}
	page, read := comparePage(t, base, run, true)
	text := html.UnescapeString(page)
	for _, want := range []string{
		"Compared with run A",
		"3 samples shared (3 by id, 0 by content); 1 of this run's samples are not in the baseline, 0 of the baseline's not in this run; 2 changed",
		"faithfulness</b> 0.667 → 0.250",
		`title="change of faithfulness since the baseline">Δ F</th>`,
		`<td class="num lo" data-v="-1.000000" data-label="Δ F">-1.00</td>`, // worse: red, sorts first
		`<td class="num na" data-v="0.000000" data-label="Δ F">+0.00</td>`,  // unchanged
		`<td class="num warn" data-v="" data-label="Δ F">ok→judge_error</td>`,
		`data-changed="new"`, "not in the baseline run A",
		`faithfulness statement 1 "税号不变"`, "before: 1: the chunk says so",
		`<option value="changed">changed since the baseline</option>`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if !strings.Contains(text, "after: 0: <script>alert(1)</script><img src=x") {
		t.Errorf("the changed reason is not shown after")
	}
	for _, bad := range []string{"<script>alert", "<img src=x", `href="javascript:`} {
		if strings.Contains(page, bad) {
			t.Errorf("a judge's reason reached the page as markup: %q", bad)
		}
	}
	// Only the two changed samples are read in full.
	if len(read) != 2 || read[0] != 0 || read[1] != 2 {
		t.Errorf("read the baseline's samples at %v, want [0 2]", read)
	}
	// Without the baseline's samples (a report file), scores only.
	page, _ = comparePage(t, base, run, false)
	if strings.Contains(page, "before: ") || !strings.Contains(page, "-1.00</td>") {
		t.Errorf("scores-only comparison: judgement changes shown or Δ missing")
	}
}

// A baseline sample that cannot be read fails the page, naming it.
func TestHTMLCompareUnreadable(t *testing.T) {
	x := report.NewKeyIndex([]eval.Metric{eval.Faithfulness}, 1)
	x.Add(bres(7, "a", "x", 1))
	hb := &Baseline{Label: "run A", Index: x, Sample: func(int) (*eval.Result, error) { return nil, errors.New("page 3 damaged") }}
	each := func(yield func(*eval.Result) error) error { return yield(bres(0, "a", "x", 0)) }
	err := Write(&bytes.Buffer{}, report.RunInfo{ID: "B", Metrics: []eval.Metric{eval.Faithfulness}}, nil, nil, each, hb)
	if err == nil || !strings.Contains(err.Error(), "reading the baseline's sample 7: page 3 damaged") {
		t.Fatalf("err = %v", err)
	}
}
