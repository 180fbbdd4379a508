package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// claimsMetrics are the three metrics of claimsRun, in the run's order:
// keys 1, 2 and 3 jump to their sections.
var claimsMetrics = []eval.Metric{eval.FactualCorrectness, eval.ContextEntityRecall, eval.NoiseSensitivity}

func sv(s string, v int, reason string) eval.StatementVerdict {
	return eval.StatementVerdict{Statement: s, Verdict: v, Reason: reason}
}

// verdicts are the verdicts vs of statements, each with a reason.
func verdicts(statements []string, vs ...int) []eval.StatementVerdict {
	out := make([]eval.StatementVerdict, len(vs))
	for i, v := range vs {
		out[i] = sv(statements[i], v, "")
	}
	return out
}

// claimsRun is a run of factual correctness, context entity recall and
// noise sensitivity. Sample 0 has every trace, hand-computed:
//
//   - factual correctness (f1) on the RAGAS test vector TP=3, FP=1, FN=2:
//     precision 3/4 = 0.750, recall 3/5 = 0.600, F1 = 0.667;
//   - entity recall: 2 of 3 reference entities found = 0.667;
//   - noise sensitivity (relevant): of 4 answer statements, "It takes
//     effect next month." is incorrect and backed by the relevant chunk
//     #3, "A new certificate is issued." incorrect and backed only by the
//     irrelevant #2: relevant 1/4 = 0.250, irrelevant 1/4.
//
// Samples 1 and 2 have scores only: noise sensitivity 0.5 and 0, so worst
// first is 1, 0, 2.
func claimsRun() []*eval.Result {
	ans := []string{"The ID stays.", "Conversion is filed with the tax office.", "It takes effect next month.", "A new certificate is issued."}
	ref := []string{"The ID stays the same.", "Conversion is filed with the tax office.", "It takes effect next month.", "No fee is charged.", "Old invoices stay valid."}
	nsRef := ref[:3]
	nsRefVerdicts := []int{1, 1, 0, 0}
	chunks := []eval.NoiseChunk{
		{Rank: 1, Relevant: true, Reference: verdicts(nsRef, 1, 1, 0), Answer: verdicts(ans, 1, 1, 0, 0)},
		{Rank: 2, Relevant: false, Reference: verdicts(nsRef, 0, 0, 0), Answer: verdicts(ans, 0, 0, 0, 1)},
		{Rank: 3, Relevant: true, Reference: verdicts(nsRef, 0, 1, 0), Answer: verdicts(ans, 0, 1, 1, 0)},
	}
	ok := func(f, er, ns float64) (map[eval.Metric]*float64, map[eval.Metric]eval.Status) {
		return map[eval.Metric]*float64{eval.FactualCorrectness: score(f), eval.ContextEntityRecall: score(er), eval.NoiseSensitivity: score(ns)},
			map[eval.Metric]eval.Status{eval.FactualCorrectness: eval.StatusOK, eval.ContextEntityRecall: eval.StatusOK, eval.NoiseSensitivity: eval.StatusOK}
	}
	s0, st0 := ok(2.0/3, 2.0/3, 0.25)
	first := &eval.Result{
		Index: 0, ID: "vat", Question: "Does the taxpayer ID change after converting to a general VAT taxpayer?",
		Answer:    "The ID stays. Conversion is filed with the tax office. It takes effect next month. A new certificate is issued.",
		Reference: "The ID stays the same. Conversion is filed with the tax office. It takes effect next month. No fee is charged. Old invoices stay valid.",
		Contexts: []string{"Converting keeps the taxpayer ID; the change is filed with the tax office.",
			"Certificates are issued for export licences.", "The tax office records the conversion; it applies from the next month."},
		Scores: s0, Status: st0,
		FactualCorrectness: &eval.FactualCorrectnessTrace{Mode: "f1", Beta: 1,
			AnswerClaims: []eval.StatementVerdict{sv(ans[0], 1, "the reference says the ID stays the same"), sv(ans[1], 1, ""),
				sv(ans[2], 1, ""), sv(ans[3], 0, "the reference says nothing of a certificate")},
			ReferenceClaims: []eval.StatementVerdict{sv(ref[0], 1, ""), sv(ref[1], 1, ""), sv(ref[2], 1, ""),
				sv(ref[3], 0, "the answer does not mention fees"), sv(ref[4], 0, "missing from the answer")},
			TP: 3, FP: 1, FN: 2},
		ContextEntityRecall: &eval.EntityRecallTrace{
			Reference: []eval.EntityMatch{{Entity: "taxpayer ID", Found: true, Match: "Taxpayer ID"}, {Entity: "tax office", Found: true, Match: "tax office"},
				{Entity: "general VAT taxpayer"}},
			Contexts: []string{"Taxpayer ID", "tax office", "export licences", "next month"},
			Found:    2},
		NoiseSensitivity: &eval.NoiseSensitivityTrace{Mode: "relevant", ReferenceStatements: nsRef,
			ByReference: verdicts(ans, nsRefVerdicts...), Chunks: chunks},
	}
	first.NoiseSensitivity.Statements, first.NoiseSensitivity.Relevant, first.NoiseSensitivity.Irrelevant = noiseStatements(chunks, first.NoiseSensitivity.ByReference)
	s1, st1 := ok(0.9, 1, 0.5)
	s2, st2 := ok(0.8, 0.75, 0)
	return []*eval.Result{first,
		{Index: 1, ID: "eiffel", Question: "When was the Eiffel Tower completed?", Answer: "In 1889.", Scores: s1, Status: st1},
		{Index: 2, ID: "nile", Question: "How long is the Nile?", Answer: "About 6,650 km.", Scores: s2, Status: st2},
	}
}

// noiseStatements is each answer statement's standing, computed here from
// the matrix by the metric's definition rather than by the engine, so the
// fixture is the hand-computed one.
func noiseStatements(chunks []eval.NoiseChunk, byRef []eval.StatementVerdict) ([]eval.NoiseStatement, int, int) {
	var out []eval.NoiseStatement
	rel, irr := 0, 0
	for i, v := range byRef {
		s := eval.NoiseStatement{Statement: v.Statement, Correct: v.Verdict == 1, Relevant: []int{}, Irrelevant: []int{}}
		for _, c := range chunks {
			if c.Answer[i].Verdict == 1 {
				if c.Relevant {
					s.Relevant = append(s.Relevant, c.Rank)
				} else {
					s.Irrelevant = append(s.Irrelevant, c.Rank)
				}
			}
		}
		switch {
		case s.Correct:
		case len(s.Relevant) > 0:
			s.Noise, rel = "relevant", rel+1
		case len(s.Irrelevant) > 0:
			s.Noise, irr = "irrelevant", irr+1
		}
		out = append(out, s)
	}
	return out, rel, irr
}

func claimsOptions(results []*eval.Result) Options {
	return Options{Dataset: "ref.jsonl", Metrics: claimsMetrics, Results: results, Started: fixedStart}
}

func TestClaimsMetricsInTableSortAndFilters(t *testing.T) {
	m := newTestModel(t, claimsOptions(claimsRun()), 100, 30)
	head := lineOf(screenText(m), "question")
	for _, want := range []string{"FC", "ER", "NS"} {
		if !strings.Contains(head, want) {
			t.Errorf("the table lacks the %s column:\n%s", want, head)
		}
	}
	if strings.Contains(head, "CP") {
		t.Errorf("a column of a metric the run does not have:\n%s", head)
	}
	// s cycles index, FC, ER, NS: each comes in worst first, and for
	// noise sensitivity that is the highest first.
	for _, tc := range []struct {
		presses int
		title   string
		want    []int
	}{
		{1, "FC^", []int{0, 2, 1}},
		{2, "ER^", []int{0, 2, 1}},
		{3, "NSv", []int{1, 0, 2}},
	} {
		m := newTestModel(t, claimsOptions(claimsRun()), 100, 30)
		for range tc.presses {
			press(m, "s")
		}
		if got := shownSamples(m); !equalInts(got, tc.want) {
			t.Errorf("sorted by %s: %v, want %v", tc.title, got, tc.want)
		}
		if head := lineOf(screenText(m), "question"); !strings.Contains(head, tc.title) {
			t.Errorf("the column title does not say %s:\n%s", tc.title, head)
		}
		press(m, "S") // reversed: best first
		if got := shownSamples(m); got[0] != tc.want[len(tc.want)-1] {
			t.Errorf("%s reversed starts with %d: %v", tc.title, got[0], got)
		}
	}
	for _, tc := range []struct {
		filter string
		want   []int
	}{
		{"fc<0.7", []int{0}}, {"factual_correctness>=0.8", []int{1, 2}},
		{"er<0.7", []int{0}}, {"entity_recall=1", []int{1}},
		{"ns>0.3", []int{1}}, {"ns<0.3", []int{0, 2}}, {"noise=0", []int{2}}, {"ns>0.3 fc>0.85", []int{1}},
	} {
		applyFilter(m, tc.filter)
		if got := shownSamples(m); !equalInts(got, tc.want) {
			t.Errorf("%s shows %v, want %v (%s)", tc.filter, got, tc.want, m.filterErr)
		}
		press(m, "esc")
	}
}

// A high noise sensitivity is the bad one: its cell has the low band's
// style, while the same number of factual correctness has the high one.
func TestNoiseSensitivityBandsAreReversed(t *testing.T) {
	m := newTestModel(t, claimsOptions(claimsRun()), 100, 30)
	st := m.st
	if got, want := st.bandOf(eval.NoiseSensitivity, 0.9).Render("x"), st.low.Render("x"); got != want {
		t.Errorf("noise sensitivity 0.9 is drawn %q, want the low band %q", got, want)
	}
	if got, want := st.bandOf(eval.NoiseSensitivity, 0.1).Render("x"), st.high.Render("x"); got != want {
		t.Errorf("noise sensitivity 0.1 is drawn %q, want the high band %q", got, want)
	}
	if got, want := st.bandOf(eval.FactualCorrectness, 0.9).Render("x"), st.high.Render("x"); got != want {
		t.Errorf("factual correctness 0.9 is drawn %q, want the high band %q", got, want)
	}
	if st.changeStyle(eval.NoiseSensitivity, 0.2).Render("x") != st.low.Render("x") ||
		st.changeStyle(eval.NoiseSensitivity, -0.2).Render("x") != st.high.Render("x") ||
		st.changeStyle(eval.Faithfulness, -0.2).Render("x") != st.low.Render("x") {
		t.Error("a rise of noise sensitivity is not drawn as a fall of the others")
	}
}

// unsupportedRun is an offline run: noise sensitivity unsupported on every
// sample, with the judge's reason.
func unsupportedRun() []*eval.Result {
	res := claimsRun()
	for _, r := range res {
		r.Scores[eval.NoiseSensitivity] = nil
		r.Status[eval.NoiseSensitivity] = eval.StatusUnsupported
		r.Errors = map[eval.Metric]string{eval.NoiseSensitivity: "the offline judge cannot tell which chunk entails a statement"}
		r.NoiseSensitivity = nil
	}
	return res
}

// unsupported is a mark of its own in the table, not a failure nor a
// warning on the row, and its reason is on the detail page.
func TestUnsupportedIsNotAFailure(t *testing.T) {
	m := newTestModel(t, claimsOptions(unsupportedRun()), 100, 30)
	screen := screenText(m)
	row := lineOf(screen, "Eiffel")
	if !strings.Contains(row, "unsup") || strings.Contains(row, "err") || strings.Contains(row, "n/a") {
		t.Errorf("the unsupported cell is not marked unsup:\n%s", row)
	}
	if !strings.HasPrefix(strings.TrimSpace(row), m.g.ok) {
		t.Errorf("a row whose only non-score is unsupported is not marked ok:\n%s", row)
	}
	if strings.Contains(lineOf(screen, "noise_sensitivity"), "failed 3") {
		t.Errorf("unsupported counted as failed:\n%s", screen)
	}
	for _, tc := range []struct {
		filter string
		n      int
	}{{"status:unsupported", 3}, {"status:failed", 0}, {"status:ok", 3}, {"ns<1", 0}} {
		applyFilter(m, tc.filter)
		if got := shownSamples(m); len(got) != tc.n {
			t.Errorf("%s shows %v, want %d samples (%s)", tc.filter, got, tc.n, m.filterErr)
		}
		press(m, "esc")
	}
	m = newTestModel(t, claimsOptions(unsupportedRun()), 120, 60)
	press(m, "enter", "3")
	page := flat(screenText(m))
	if !strings.Contains(page, "unsupported: the offline judge cannot tell which chunk entails a statement") {
		t.Errorf("the reason is not on the detail page:\n%s", page)
	}
	if strings.Contains(page, "noise sensitivity (relevant) =") {
		t.Errorf("a formula for a metric the judge does not support:\n%s", page)
	}
	if strings.Contains(page, "Failures") {
		t.Errorf("unsupported is listed among the failures:\n%s", page)
	}
}

func TestFactualCorrectnessDetail(t *testing.T) {
	for _, tc := range []struct {
		mode       string
		want, lack []string
	}{
		{"f1", []string{"mode f1", "answer claims checked against the reference: 3 TP, 1 FP",
			"TP The ID stays. the reference says the ID stays the same", "FP A new certificate is issued. the reference says nothing of a certificate",
			"reference claims checked against the answer: 3 in the answer, 2 FN", "FN No fee is charged. the answer does not mention fees",
			"precision = TP / (TP + FP) = 3 / (3 + 1) = 0.750", "recall = TP / (TP + FN) = 3 / (3 + 2) = 0.600",
			"F1 = 2*P*R / (P + R) = 2*0.750*0.600 / (0.750 + 0.600) = 0.667"}, nil},
		{"precision", []string{"precision = TP / (TP + FP) = 3 / (3 + 1) = 0.750", "reference claims: not checked in precision mode"},
			[]string{"recall = TP", "F1 ="}},
		{"recall", []string{"recall = TP / (TP + FN) = 3 / (3 + 2) = 0.600"}, []string{"precision =", "F1 ="}},
		// 1.25*0.45 / (0.1875 + 0.6) = 0.714
		{"f1 beta 0.5", []string{"mode f1 (beta = 0.5)", "F(beta=0.5) = (1 + 0.25)*P*R / (0.25*P + R) = 1.25*0.750*0.600 / (0.25*0.750 + 0.600) = 0.714"}, []string{"F1 ="}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			res := claimsRun()
			fc := res[0].FactualCorrectness
			fc.Mode = tc.mode
			if mode, _, ok := strings.Cut(tc.mode, " beta "); ok {
				fc.Mode, fc.Beta = mode, 0.5
			}
			if tc.mode == "precision" {
				fc.ReferenceClaims, fc.FN = []eval.StatementVerdict{}, 0
			}
			m := newTestModel(t, claimsOptions(res), 140, 90)
			press(m, "enter", "1")
			page := flat(screenText(m))
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("detail page lacks %q:\n%s", w, page)
				}
			}
			for _, l := range tc.lack {
				if strings.Contains(page, l) {
					t.Errorf("detail page has %q:\n%s", l, page)
				}
			}
		})
	}
}

// No TP: every ratio is 0, and the page says why rather than dividing.
func TestFactualCorrectnessWithoutTP(t *testing.T) {
	res := claimsRun()
	fc := res[0].FactualCorrectness
	for i := range fc.AnswerClaims {
		fc.AnswerClaims[i].Verdict = 0
	}
	fc.TP, fc.FP = 0, 4
	res[0].Scores[eval.FactualCorrectness] = score(0)
	m := newTestModel(t, claimsOptions(res), 140, 90)
	press(m, "enter", "1")
	page := flat(screenText(m))
	for _, w := range []string{"precision = TP / (TP + FP) = 0 / (0 + 4) = 0.000", "F1 = 0.000 (TP = 0: no claim of the answer is in the reference)"} {
		if !strings.Contains(page, w) {
			t.Errorf("detail page lacks %q:\n%s", w, page)
		}
	}
	if strings.Contains(page, "NaN") {
		t.Errorf("NaN on the page:\n%s", page)
	}
}

// An edge case shows its status and the counts, never a formula.
func TestFactualCorrectnessWithoutClaims(t *testing.T) {
	res := claimsRun()
	r := res[0]
	r.Scores[eval.FactualCorrectness] = nil
	r.Status[eval.FactualCorrectness] = eval.StatusNoStatements
	r.Errors = map[eval.Metric]string{eval.FactualCorrectness: "the judge extracted no claims from the answer"}
	r.FactualCorrectness = &eval.FactualCorrectnessTrace{Mode: "f1", Beta: 1, AnswerClaims: []eval.StatementVerdict{}, ReferenceClaims: []eval.StatementVerdict{}}
	m := newTestModel(t, claimsOptions(res), 140, 60)
	press(m, "enter", "1")
	page := flat(screenText(m))
	if !strings.Contains(page, "no_statements: the judge extracted no claims from the answer") || !strings.Contains(page, "0 answer claims, 0 reference claims") {
		t.Errorf("the edge case is not shown:\n%s", page)
	}
	if strings.Contains(page, "precision =") || strings.Contains(page, "F1 =") {
		t.Errorf("a formula for a metric with no score:\n%s", page)
	}
}

func TestEntityRecallDetail(t *testing.T) {
	res := claimsRun()
	for i := range 70 {
		res[0].ContextEntityRecall.Contexts = append(res[0].ContextEntityRecall.Contexts, fmt.Sprintf("entity%02d", i))
	}
	m := newTestModel(t, claimsOptions(res), 140, 90)
	press(m, "enter", "2")
	page := flat(screenText(m))
	for _, w := range []string{
		"reference entities: 2 found in the contexts, 1 missing",
		"found taxpayer ID (as \"Taxpayer ID\")", "found tax office", "missing general VAT taxpayer",
		"context entities (74)", "Taxpayer ID; tax office; export licences; next month; entity00",
		"entity55 … and 14 more",
		"entity recall = |found| / |reference entities| = 2/3 = 0.667",
	} {
		if !strings.Contains(page, w) {
			t.Errorf("detail page lacks %q:\n%s", w, page)
		}
	}
	// A match spelt as in the reference is not repeated.
	if strings.Contains(page, "(as \"tax office\")") || strings.Contains(page, "entity56") {
		t.Errorf("a redundant match or an entity past the limit:\n%s", page)
	}
}

func TestNoiseSensitivityDetail(t *testing.T) {
	m := newTestModel(t, claimsOptions(claimsRun()), 120, 60)
	press(m, "enter", "3")
	screen := screenText(m)
	page := flat(screen)
	for _, w := range []string{
		"mode relevant: an answer statement counts when it is incorrect (not in the reference) and backed by a relevant chunk",
		"answer statements by chunk (4 statements, 3 chunks)",
		"#1 #2 #3", "rel irr rel correct noise",
		"reference statements (3): the chunks that entail them make those chunks relevant",
		"1 The ID stays the same. → entailed by #1", "2 Conversion is filed with the tax office. → entailed by #1, #3",
		"3 It takes effect next month. → entailed by no chunk",
		"noise sensitivity (relevant) = 1/4 = 0.250 (lower is better)", "(irrelevant mode: 1/4 = 0.250)",
	} {
		if !strings.Contains(page, w) {
			t.Errorf("detail page lacks %q:\n%s", w, page)
		}
	}
	// The matrix rows: marks under #1 #2 #3, correct, noise.
	for _, tc := range []struct{ stmt, cells string }{
		{"1 The ID stays.", "✓ . . ✓ -"},
		{"3 It takes effect next month.", ". . ✓ ✗ relevant"},
		{"4 A new certificate is issued.", ". ✓ . ✗ irrelevant"},
	} {
		if l := flat(lineOf(screen, tc.stmt)); !strings.HasSuffix(l, tc.cells) {
			t.Errorf("matrix row %q is %q, want it to end %q", tc.stmt, l, tc.cells)
		}
	}
}

// Too narrow for the matrix, the statements are listed with their chunks.
func TestNoiseSensitivityListWhenNarrow(t *testing.T) {
	m := newTestModel(t, claimsOptions(claimsRun()), 60, 60)
	press(m, "enter", "3")
	page := flat(screenText(m))
	for _, w := range []string{
		"The ID stays. → backed by #1 (relevant); correct (the reference entails it)",
		"It takes effect next month. → backed by #3 (relevant); not in the reference; noise: relevant",
		"A new certificate is issued. → backed by #2 (irrelevant); not in the reference; noise: irrelevant",
		"Conversion is filed with the tax office. → backed by #1 (relevant), #3 (relevant)",
	} {
		if !strings.Contains(page, w) {
			t.Errorf("detail page lacks %q:\n%s", w, page)
		}
	}
	if strings.Contains(page, "rel irr rel") {
		t.Errorf("the matrix is drawn at 60 columns:\n%s", page)
	}
}

// Judge and dataset text in a claim, an entity and a noise statement
// reaches the screen as visible escapes.
func TestClaimsDetailSanitises(t *testing.T) {
	res := claimsRun()
	r := res[0]
	r.FactualCorrectness.AnswerClaims[3].Statement = "A new" + rlo + " certificate" + csi + " is issued."
	r.FactualCorrectness.AnswerClaims[3].Reason = "evil " + osc52 + " reason"
	r.ContextEntityRecall.Reference[2].Entity = "general" + rlo + " VAT\x1b[2J taxpayer\nsecond line"
	r.ContextEntityRecall.Reference[0].Match = "Taxpayer" + osc52 + " ID"
	r.ContextEntityRecall.Contexts[2] = "export" + csi + " licences" + zwsp
	r.NoiseSensitivity.Statements[3].Statement = "A new" + rlo + " certificate\x07 is issued."
	r.NoiseSensitivity.ReferenceStatements[0] = "The ID" + osc52 + " stays."
	for _, w := range []int{140, 60} {
		m := newTestModel(t, claimsOptions(res), w, 120)
		press(m, "enter")
		frame := m.View().Content
		requireSafe(t, fmt.Sprintf("claims detail at %d columns", w), frame)
		page := flat(screenText(m))
		for _, want := range []string{"general<U+202E> VAT\\x1b[2J taxpayer\\nsecond line", "(as \"Taxpayer\\x1b]52;c;aGVsbG8=\\x07 ID\")"} {
			if !strings.Contains(page, want) {
				t.Errorf("at %d columns the page lacks %q:\n%s", w, want, page)
			}
		}
	}
}

// Ten metrics: 0 jumps to the tenth section.
func TestTenthMetricKey(t *testing.T) {
	res := claimsRun()
	m := newTestModel(t, Options{Dataset: "ref.jsonl", Metrics: eval.AllMetrics, Results: res, Started: fixedStart}, 120, 40)
	press(m, "enter", "0")
	if got := m.detail.focus; got != eval.NoiseSensitivity {
		t.Errorf("0 focuses %q, want noise_sensitivity", got)
	}
	if first := strings.Split(screenText(m), "\n")[1]; !strings.Contains(first, "10 noise_sensitivity") {
		t.Errorf("0 does not scroll to the tenth section; the page starts with %q", first)
	}
	if !strings.Contains(screenText(m), "1-9,0") {
		t.Errorf("the footer does not say 1-9,0:\n%s", screenText(m))
	}
}

// The golden pages of the three sections at a fixed size, each scrolled
// to its section, and the noise list at the narrowest width.
func TestGoldenFactualCorrectnessDetail(t *testing.T) {
	m := New(claimsOptions(claimsRun()))
	m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
	requireGoldenFrame(t, m, [2]int{120, 36}, []string{"enter", "1"}, "F1 =")
}

func TestGoldenEntityRecallDetail(t *testing.T) {
	m := New(claimsOptions(claimsRun()))
	m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
	requireGoldenFrame(t, m, [2]int{100, 20}, []string{"enter", "2"}, "entity recall =")
}

func TestGoldenNoiseSensitivityDetail(t *testing.T) {
	m := New(claimsOptions(claimsRun()))
	m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
	requireGoldenFrame(t, m, [2]int{100, 30}, []string{"enter", "3"}, "noise sensitivity (relevant) =")
}

func TestGoldenNoiseSensitivityNarrow(t *testing.T) {
	m := New(claimsOptions(claimsRun()))
	m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
	requireGoldenFrame(t, m, [2]int{60, 40}, []string{"enter", "3"}, "noise sensitivity (relevant) =")
}

// A comparison lists what the judge decided differently in the new
// sections: a claim's class, an entity found or lost, a statement that
// became noise.
func TestClaimsChangesInComparison(t *testing.T) {
	before, after := claimsRun()[0], claimsRun()[0]
	after.FactualCorrectness.AnswerClaims[3] = sv("A new certificate is issued.", 1, "now the judge accepts it")
	after.ContextEntityRecall.Reference[0] = eval.EntityMatch{Entity: "taxpayer ID"}
	ns := after.NoiseSensitivity
	ns.Statements[0].Correct, ns.Statements[0].Noise = false, "relevant"
	m := newTestModel(t, claimsOptions(claimsRun()), 140, 40)
	for _, tc := range []struct {
		mt   eval.Metric
		want []string
	}{
		{eval.FactualCorrectness, []string{"0 → 1 A new certificate is issued.", "before: the reference says nothing of a certificate", "after: now the judge accepts it"}},
		{eval.ContextEntityRecall, []string{"1 → 0 taxpayer ID", "before: found as \"Taxpayer ID\"", "after: not among the contexts' entities"}},
		{eval.NoiseSensitivity, []string{"1 → 0 The ID stays.", "after: not in the reference; backed by #1; noise: relevant"}},
	} {
		p := &page{m: m, w: 140}
		metricSections[tc.mt].changes(m, p, before, after)
		got := flat(stripLines(p.lines))
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the changes lack %q:\n%s", tc.mt, w, got)
			}
		}
		p = &page{m: m, w: 140}
		metricSections[tc.mt].changes(m, p, before, before)
		if len(p.lines) != 0 {
			t.Errorf("%s: changes listed for identical traces:\n%s", tc.mt, stripLines(p.lines))
		}
	}
	if factualItems(nil, false) != nil || entityItems(&eval.Result{}) != nil || noiseItems(&eval.Result{}) != nil {
		t.Error("a nil trace has items")
	}
}

func stripLines(lines []string) string { return ansi.Strip(strings.Join(lines, "\n")) }

// The metrics past the default four keep their scores and statuses in the
// row's block of their own: a default run's rows never allocate it, and a
// row set again (a re-run) forgets the statuses it had.
func TestRowKeepsTheOtherMetricsApart(t *testing.T) {
	def := newRow(0, &eval.Result{Scores: map[eval.Metric]*float64{eval.Faithfulness: score(0.5)},
		Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}}, report.Levels{})
	if def.more != nil {
		t.Error("a row of a default metric allocated the other metrics' block")
	}
	if _, ok := def.statusOf(eval.NoiseSensitivity); ok {
		t.Error("a metric not evaluated has a status")
	}
	res := unsupportedRun()[0]
	r := newRow(0, res, report.Levels{})
	for _, tc := range []struct {
		mt     eval.Metric
		status eval.Status
		score  float64
	}{
		{eval.FactualCorrectness, eval.StatusOK, 2.0 / 3},
		{eval.ContextEntityRecall, eval.StatusOK, 2.0 / 3},
		{eval.NoiseSensitivity, eval.StatusUnsupported, -1},
	} {
		st, ok := r.statusOf(tc.mt)
		v, scored := r.scored(tc.mt)
		if !ok || st != tc.status || scored != (tc.score >= 0) || (scored && v != tc.score) {
			t.Errorf("%s: status %q %v, score %v %v; want %q %v", tc.mt, st, ok, v, scored, tc.status, tc.score)
		}
	}
	// The sample is diagnosed incomplete (the reference's recall side is
	// 0.6): its mark says so, and unsupported adds no warning to it.
	if r.mark != markLow || r.na {
		t.Errorf("unsupported marks the row %d (n/a %v), want low (incomplete)", r.mark, r.na)
	}
	r.set(&eval.Result{Scores: map[eval.Metric]*float64{eval.FactualCorrectness: score(1)},
		Status: map[eval.Metric]eval.Status{eval.FactualCorrectness: eval.StatusOK}}, nil, report.Levels{})
	if _, ok := r.statusOf(eval.NoiseSensitivity); ok {
		t.Error("a status of the result before survives set")
	}
	if v, ok := r.scored(eval.FactualCorrectness); !ok || v != 1 {
		t.Errorf("factual correctness after set: %v %v", v, ok)
	}
}

// A run recorded by a newer ragscope names a metric this one does not
// know: the table shows the others and the banner names it, instead of
// the interface failing on a metric it has no slot for.
func TestUnknownMetricOfANewerVersion(t *testing.T) {
	f := 0.5
	res := []*eval.Result{{Index: 0, ID: "a", Question: "q", Answer: "a",
		Scores: map[eval.Metric]*float64{eval.Faithfulness: &f, "future_metric": &f},
		Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, "future_metric": eval.StatusOK}}}
	m := newTestModel(t, Options{Dataset: "d.jsonl", Metrics: []eval.Metric{eval.Faithfulness, "future_metric"}, Results: res, Started: fixedStart}, 100, 30)
	s := screenText(m)
	if !strings.Contains(s, "future_metric, which this ragscope does not know") || !strings.Contains(lineOf(s, "question"), "F") {
		t.Fatalf("screen:\n%s", s)
	}
	press(m, "enter")
	if s := screenText(m); !strings.Contains(s, "faithfulness") {
		t.Fatalf("detail:\n%s", s)
	}
}
