package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
)

// correctnessRun is a run of answer similarity and answer correctness on
// the RAGAS test vector (TP=3, FP=1, FN=2) with a similarity of 0.6:
// F1 = 6/9 = 0.667, score = 0.75·0.667 + 0.25·0.6 = 0.650.
func correctnessRun() []*eval.Result {
	sim := 0.6
	it := func(s, r string) eval.CorrectnessItem { return eval.CorrectnessItem{Statement: s, Reason: r} }
	return []*eval.Result{{
		Index: 0, ID: "vat", Question: "Does the taxpayer ID change after converting to a general VAT taxpayer?",
		Answer:           "The ID stays. Conversion is filed with the tax office. It takes effect next month. A new certificate is issued.",
		Reference:        "The ID stays the same. Conversion is filed with the tax office. It takes effect next month. No fee is charged. Old invoices stay valid.",
		Scores:           map[eval.Metric]*float64{eval.AnswerSimilarity: score(0.6), eval.AnswerCorrectness: score(0.65)},
		Status:           map[eval.Metric]eval.Status{eval.AnswerSimilarity: eval.StatusOK, eval.AnswerCorrectness: eval.StatusOK},
		AnswerSimilarity: &eval.AnswerSimilarityTrace{Cosine: 0.6},
		AnswerCorrectness: &eval.AnswerCorrectnessTrace{
			AnswerStatements:    []string{"The ID stays.", "Conversion is filed with the tax office.", "It takes effect next month.", "A new certificate is issued."},
			ReferenceStatements: []string{"The ID stays the same.", "Conversion is filed with the tax office.", "It takes effect next month.", "No fee is charged.", "Old invoices stay valid."},
			Classes: eval.CorrectnessClasses{
				TP: []eval.CorrectnessItem{it("The ID stays.", "fact 1"), it("Conversion is filed with the tax office.", "fact 2"), it("It takes effect next month.", "fact 3")},
				FP: []eval.CorrectnessItem{it("A new certificate is issued.", "the reference says nothing of a certificate")},
				FN: []eval.CorrectnessItem{it("No fee is charged.", "the answer does not mention fees"), it("Old invoices stay valid.", "missing from the answer")},
			},
			FScore: 2.0 / 3, Similarity: &sim, Weights: eval.DefaultACWeights,
		},
	}}
}

func correctnessOptions(results []*eval.Result) Options {
	return Options{Dataset: "ref.jsonl", Metrics: []eval.Metric{eval.AnswerSimilarity, eval.AnswerCorrectness},
		Results: results, Started: fixedStart}
}

func TestAnswerCorrectnessInTableAndFilters(t *testing.T) {
	m := newTestModel(t, correctnessOptions(correctnessRun()), 100, 40)
	screen := screenText(m)
	head := lineOf(screen, "question")
	if !strings.Contains(head, "AS") || !strings.Contains(head, "AC") || strings.Contains(head, "CP") {
		t.Errorf("the table's columns are not the run's metrics (AS, AC):\n%s", head)
	}
	for _, tc := range []struct {
		filter string
		n      int
	}{{"ac<0.7", 1}, {"ac<0.6", 0}, {"as<0.7", 1}, {"as>=0.7", 0}, {"answer_correctness>0.6", 1}} {
		applyFilter(m, tc.filter)
		if got := shownSamples(m); len(got) != tc.n {
			t.Errorf("%s shows %v, want %d samples", tc.filter, got, tc.n)
		}
		press(m, "esc")
	}
}

func TestAnswerCorrectnessDetail(t *testing.T) {
	m := newTestModel(t, correctnessOptions(correctnessRun()), 140, 80)
	press(m, "enter", "1")
	page := flat(screenText(m))
	for _, want := range []string{"1 answer_similarity 0.600", "score = cosine(E(answer), E(reference)) = 0.600"} {
		if !strings.Contains(page, want) {
			t.Errorf("detail page lacks %q:\n%s", want, page)
		}
	}
	press(m, "2")
	page = flat(screenText(m))
	for _, want := range []string{
		"2 answer_correctness 0.650", "TP: answer statements the reference supports (3)",
		"FP: answer statements the reference does not support (1)", "the reference says nothing of a certificate",
		"FN: reference statements missing from the answer (2)", "the answer does not mention fees",
		"F1 = 2*TP / (2*TP + FP + FN) = 2*3 / (2*3 + 1 + 2) = 0.667",
		"score = (0.75*F1 + 0.25*similarity) / (0.75 + 0.25) = (0.75*0.667 + 0.25*0.600) / 1 = 0.650",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("detail page lacks %q:\n%s", want, page)
		}
	}
}

// Edge cases show their status and the statement counts, never a formula.
func TestAnswerCorrectnessDetailWithoutStatements(t *testing.T) {
	res := correctnessRun()
	r := res[0]
	r.Scores[eval.AnswerCorrectness] = nil
	r.Status[eval.AnswerCorrectness] = eval.StatusNoStatements
	r.Errors = map[eval.Metric]string{eval.AnswerCorrectness: "the judge extracted no statements from the reference"}
	r.AnswerCorrectness = &eval.AnswerCorrectnessTrace{AnswerStatements: []string{"a"}, ReferenceStatements: []string{},
		Classes: eval.CorrectnessClasses{TP: []eval.CorrectnessItem{}, FP: []eval.CorrectnessItem{}, FN: []eval.CorrectnessItem{}}, Weights: eval.DefaultACWeights}
	m := newTestModel(t, correctnessOptions(res), 140, 60)
	press(m, "enter", "2")
	page := flat(screenText(m))
	if !strings.Contains(page, "no statements from the reference") || !strings.Contains(page, "1 answer statements, 0 reference statements") {
		t.Errorf("the edge case is not shown:\n%s", page)
	}
	if strings.Contains(page, "F1 =") {
		t.Errorf("a formula is shown for a metric with no score:\n%s", page)
	}
}

// Judge text reaches the screen sanitised.
func TestAnswerCorrectnessDetailSanitises(t *testing.T) {
	res := correctnessRun()
	res[0].AnswerCorrectness.Classes.FP[0].Reason = "evil \x1b]52;c;Zm9v\x07 reason \x1b[2J"
	m := newTestModel(t, correctnessOptions(res), 140, 80)
	press(m, "enter", "2")
	if s := m.View().Content; strings.Contains(s, "\x1b]52") || strings.Contains(s, "\x07") || strings.Contains(s, "\x1b[2J") {
		t.Errorf("a control sequence of the judge's reason reached the screen")
	}
}

// The golden detail page of answer correctness, at the section.
func TestGoldenCorrectnessDetail(t *testing.T) {
	m := New(correctnessOptions(correctnessRun()))
	m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
	requireGoldenFrame(t, m, [2]int{120, 50}, []string{"enter", "2"}, "F1 =")
}

// The answer similarity section: its one formula line, the cosine.
func TestGoldenSimilarityDetail(t *testing.T) {
	m := New(correctnessOptions(correctnessRun()))
	m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
	requireGoldenFrame(t, m, [2]int{100, 16}, []string{"enter", "1"}, "cosine(E(answer), E(reference))")
}

func TestCorrectnessItemsForComparison(t *testing.T) {
	tr := correctnessRun()[0].AnswerCorrectness
	for _, tc := range []struct {
		reference bool
		verdicts  []int
	}{
		{false, []int{1, 1, 1, 0}},
		{true, []int{1, 1, 1, 0, 0}},
	} {
		got := correctnessItems(tr, tc.reference)
		if len(got) != len(tc.verdicts) {
			t.Fatalf("reference %v: %d items, want %d", tc.reference, len(got), len(tc.verdicts))
		}
		for i, v := range tc.verdicts {
			if got[i].verdict != v || (v == 0 && got[i].reason == "") {
				t.Errorf("reference %v, item %d: %+v, want verdict %d with a reason", tc.reference, i, got[i], v)
			}
		}
	}
	if correctnessItems(nil, false) != nil {
		t.Error("nil trace")
	}
}
