package labels

import (
	"math"
	"strconv"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// labelFixture is three scored samples and the human labels of some of
// their items; the figures the tests expect were computed by hand from it.
func labelFixture() ([]*eval.Result, map[string]Label) {
	f := func(v float64) *float64 { return &v }
	mk := func(id string, verdicts []int, chunks []int, cls []int, qs []eval.GeneratedQuestion) *eval.Result {
		r := &eval.Result{ID: id, Question: "q " + id, Answer: "a " + id, Contexts: []string{"c1 " + id, "c2 " + id, "c3 " + id}, Reference: "ref " + id,
			Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{}}
		if verdicts != nil {
			tr := &eval.FaithfulnessTrace{}
			for i, v := range verdicts {
				tr.Statements = append(tr.Statements, eval.StatementVerdict{Statement: id + " statement " + strconv.Itoa(i+1), Verdict: v})
			}
			s := 0.0
			tr.Supported, s = eval.FaithfulnessScore(tr.Statements)
			r.Faithfulness, r.Scores[eval.Faithfulness], r.Status[eval.Faithfulness] = tr, f(s), eval.StatusOK
		}
		if chunks != nil {
			tr := &eval.ContextPrecisionTrace{}
			for i, v := range chunks {
				tr.Chunks = append(tr.Chunks, eval.ChunkVerdict{Rank: i + 1, Verdict: v})
			}
			s, p := eval.AveragePrecision(tr.Chunks)
			tr.Precisions = p
			r.ContextPrecision, r.Scores[eval.ContextPrecision], r.Status[eval.ContextPrecision] = tr, f(s), eval.StatusOK
		}
		if cls != nil {
			tr := &eval.ContextRecallTrace{}
			for i, v := range cls {
				tr.Classifications = append(tr.Classifications, eval.Classification{Statement: id + " ref statement " + strconv.Itoa(i+1), Attributed: v})
			}
			s := 0.0
			tr.Attributed, s = eval.RecallScore(tr.Classifications)
			r.ContextRecall, r.Scores[eval.ContextRecall], r.Status[eval.ContextRecall] = tr, f(s), eval.StatusOK
		}
		if qs != nil {
			tr := &eval.AnswerRelevancyTrace{Mode: "questions", Questions: qs}
			s, nc := eval.RelevancyScore(qs)
			tr.AllNoncommittal = nc
			r.AnswerRelevancy, r.Scores[eval.AnswerRelevancy], r.Status[eval.AnswerRelevancy] = tr, f(s), eval.StatusOK
		}
		return r
	}
	a := mk("a", []int{1, 1, 0, 0}, []int{1, 0, 1}, []int{1, 1},
		[]eval.GeneratedQuestion{{Question: "gen a1", Cosine: 0.8}, {Question: "gen a2", Cosine: 0.6}})
	b := mk("b", []int{1, 1, 0, 1}, nil, nil, nil)
	c := mk("c", []int{1, 1}, nil, nil, nil)
	labels := map[string]Label{}
	put := func(r *eval.Result, task, item string, v int) {
		sk := ResultSampleKey(r)
		k := LabelKey(sk, task, item)
		labels[k] = Label{Key: k, SampleKey: sk, Sample: r.ID, Task: task, Item: item, Value: v}
	}
	// faithfulness: a: TP, FP, TN; b: TP, TP, TN, FP.
	put(a, eval.LabelFaithfulness, "a statement 1", 1)
	put(a, eval.LabelFaithfulness, "a statement 2", 0)
	put(a, eval.LabelFaithfulness, "a statement 3", 0)
	put(b, eval.LabelFaithfulness, "b statement 1", 1)
	put(b, eval.LabelFaithfulness, "b statement 2", 1)
	put(b, eval.LabelFaithfulness, "b statement 3", 0)
	put(b, eval.LabelFaithfulness, "b statement 4", 0)
	// precision: rank 1 TP, rank 2 FN.
	put(a, eval.LabelContextPrecision, "1", 1)
	put(a, eval.LabelContextPrecision, "2", 1)
	// recall: both TP (one class only: κ undefined).
	put(a, eval.LabelContextRecall, "a ref statement 1", 1)
	put(a, eval.LabelContextRecall, "a ref statement 2", 1)
	// relevancy: the judge said committal, the human says noncommittal (FN).
	put(a, eval.LabelAnswerRelevancy, "gen a1", 1)
	// A label of an item no result has counts nowhere.
	put(c, eval.LabelFaithfulness, "not a statement of c", 0)
	return []*eval.Result{a, b, c}, labels
}

func near(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-12 }

func TestAgreementPinnedByHand(t *testing.T) {
	rs, labels := labelFixture()
	tally := NewAgreementTally("run-1", labels)
	for _, r := range rs {
		tally.Add(r)
	}
	a := tally.Agreement()
	type want struct {
		conf      Confusion
		acc       float64
		kappa     float64
		kappaNull bool
	}
	wants := map[string]want{
		// n=7, p_o=5/7; judge 1: 5/7, human 1: 3/7; p_e=(15+8)/49=23/49;
		// κ=(35/49-23/49)/(26/49)=12/26.
		eval.LabelFaithfulness: {Confusion{TP: 3, FP: 2, TN: 2, FN: 0}, 5.0 / 7, 12.0 / 26, false},
		// n=2, p_o=1/2; judge 1: 1/2, human 1: 1; p_e=1/2; κ=0.
		eval.LabelContextPrecision: {Confusion{TP: 1, FN: 1}, 0.5, 0, false},
		// n=2, all 1 on both sides: p_e=1, κ undefined.
		eval.LabelContextRecall: {Confusion{TP: 2}, 1, 0, true},
		// n=1, p_o=0; judge 1: 0, human 1: 1; p_e=0; κ=0.
		eval.LabelAnswerRelevancy: {Confusion{FN: 1}, 0, 0, false},
	}
	for task, w := range wants {
		got := a.Tasks[task]
		if got.Confusion != w.conf || got.Labelled != w.conf.N() {
			t.Errorf("%s: confusion %+v labelled %d, want %+v", task, got.Confusion, got.Labelled, w.conf)
		}
		if !near(got.Accuracy, w.acc) {
			t.Errorf("%s: accuracy %v, want %v", task, got.Accuracy, w.acc)
		}
		switch {
		case w.kappaNull && (got.Kappa != nil || got.KappaUndefined == ""):
			t.Errorf("%s: kappa %v (%q), want null with a reason", task, got.Kappa, got.KappaUndefined)
		case !w.kappaNull && !near(got.Kappa, w.kappa):
			t.Errorf("%s: kappa %v, want %v", task, got.Kappa, w.kappa)
		}
	}
	// Faithfulness: a 0.5 -> 0.25, b 0.75 -> 0.5, c 1 -> 1.
	fa := a.Metrics[eval.Faithfulness]
	if fa.Labelled != 2 || fa.Disputed != 2 || fa.Changed != 2 || !near(fa.Mean, 0.75) || !near(fa.MeanWithLabels, 1.75/3) {
		t.Errorf("faithfulness figures %+v (mean %v, with %v)", fa, *fa.Mean, *fa.MeanWithLabels)
	}
	// Precision [1,0,1] = (1 + 2/3)/2 -> [1,1,1] = 1.
	cp := a.Metrics[eval.ContextPrecision]
	if cp.Labelled != 1 || cp.Changed != 1 || !near(cp.Mean, (1+2.0/3)/2) || !near(cp.MeanWithLabels, 1) {
		t.Errorf("context precision figures %+v", cp)
	}
	// One question of two made noncommittal: not all, so the score stays.
	ar := a.Metrics[eval.AnswerRelevancy]
	if ar.Labelled != 1 || ar.Disputed != 1 || ar.Changed != 0 || !near(ar.MeanWithLabels, 0.7) {
		t.Errorf("answer relevancy figures %+v", ar)
	}
	if cr := a.Metrics[eval.ContextRecall]; cr.Labelled != 1 || cr.Disputed != 0 || cr.Changed != 0 {
		t.Errorf("context recall figures %+v", cr)
	}
}

func TestAgreementWithoutLabels(t *testing.T) {
	rs, _ := labelFixture()
	tally := NewAgreementTally("r", nil)
	for _, r := range rs {
		tally.Add(r)
	}
	a := tally.Agreement()
	for _, task := range LabelTasks {
		ta := a.Tasks[task]
		if ta == nil || ta.Labelled != 0 || ta.Accuracy != nil || ta.Kappa != nil {
			t.Errorf("%s: %+v, want nothing labelled and null figures", task, ta)
		}
	}
}

func TestApplyLabels(t *testing.T) {
	rs, labels := labelFixture()
	a := rs[0]
	before := *a.Scores[eval.Faithfulness]
	got, changed := ApplyLabels(a, labels)
	if *a.Scores[eval.Faithfulness] != before || a.Faithfulness.Statements[1].Verdict != 1 {
		t.Fatal("ApplyLabels changed its input")
	}
	if len(changed) != 2 || changed[0] != eval.Faithfulness || changed[1] != eval.ContextPrecision {
		t.Fatalf("changed %v, want faithfulness and context precision", changed)
	}
	if *got.Scores[eval.Faithfulness] != 0.25 || got.Faithfulness.Supported != 1 || got.Faithfulness.Statements[1].Verdict != 0 {
		t.Fatalf("faithfulness with labels: %v %+v", *got.Scores[eval.Faithfulness], got.Faithfulness)
	}
	if *got.Scores[eval.ContextPrecision] != 1 || got.ContextPrecision.Precisions[1] != 1 {
		t.Fatalf("precision with labels: %v %+v", *got.Scores[eval.ContextPrecision], got.ContextPrecision)
	}
	// Every question noncommittal zeroes relevancy, by the metric's formula.
	sk := ResultSampleKey(a)
	for _, q := range []string{"gen a1", "gen a2"} {
		k := LabelKey(sk, eval.LabelAnswerRelevancy, q)
		labels[k] = Label{Key: k, SampleKey: sk, Task: eval.LabelAnswerRelevancy, Item: q, Value: 1}
	}
	got, _ = ApplyLabels(a, labels)
	if *got.Scores[eval.AnswerRelevancy] != 0 || !got.AnswerRelevancy.AllNoncommittal {
		t.Fatalf("all noncommittal: %v", *got.Scores[eval.AnswerRelevancy])
	}
	// A label that agrees with the judge changes nothing: the same result.
	if same, ch := ApplyLabels(rs[2], labels); same != rs[2] || ch != nil {
		t.Fatal("a result without a disputed item must come back as it is")
	}
}

func TestLabelKeysAreContent(t *testing.T) {
	base := SampleKey("q", "a", []string{"c1", "c2"}, "r")
	for name, other := range map[string]string{
		"question":       SampleKey("q2", "a", []string{"c1", "c2"}, "r"),
		"contexts":       SampleKey("q", "a", []string{"c1c2"}, "r"),
		"context order":  SampleKey("q", "a", []string{"c2", "c1"}, "r"),
		"reference":      SampleKey("q", "a", []string{"c1", "c2"}, ""),
		"field boundary": SampleKey("qa", "", []string{"c1", "c2"}, "r"),
	} {
		if other == base {
			t.Errorf("a different %s hashes alike", name)
		}
	}
	if LabelKey(base, eval.LabelFaithfulness, "x") == LabelKey(base, eval.LabelContextRecall, "x") {
		t.Error("the task is not part of the key")
	}
}

// Context utilization's chunk verdicts are labelled like context
// precision's (by rank), under a task of their own, and a label rescores
// by the same formula: [0,1,0] = 1/2 -> [1,1,0] = 1; the agreement counts
// them under context_utilization_verdict.
func TestLabelsOfContextUtilization(t *testing.T) {
	r := &eval.Result{ID: "u", Question: "q", Answer: "a", Contexts: []string{"c1", "c2", "c3"},
		Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{}}
	tr := &eval.ContextPrecisionTrace{Chunks: []eval.ChunkVerdict{{Rank: 1}, {Rank: 2, Verdict: 1}, {Rank: 3}}}
	s, p := eval.AveragePrecision(tr.Chunks)
	tr.Precisions = p
	r.ContextUtilization, r.Scores[eval.ContextUtilization], r.Status[eval.ContextUtilization] = tr, &s, eval.StatusOK
	items := Items(r)
	if len(items) != 3 || items[0].Task != eval.LabelContextUtilization || items[0].Metric != eval.ContextUtilization || items[1].Text != "2" || items[1].Judge != 1 {
		t.Fatalf("items %+v", items)
	}
	if m, ok := TaskMetric(eval.LabelContextUtilization); !ok || m != eval.ContextUtilization || CheckLabelValue(eval.LabelContextUtilization, 1) != nil {
		t.Fatalf("task %s: metric %s %v", eval.LabelContextUtilization, m, ok)
	}
	if LabelKey(ResultSampleKey(r), eval.LabelContextUtilization, "1") == LabelKey(ResultSampleKey(r), eval.LabelContextPrecision, "1") {
		t.Fatal("a utilization label would also label the chunk's precision verdict")
	}
	sk := ResultSampleKey(r)
	k := LabelKey(sk, eval.LabelContextUtilization, "1")
	labels := map[string]Label{k: {Key: k, SampleKey: sk, Task: eval.LabelContextUtilization, Item: "1", Value: 1}}
	got, changed := ApplyLabels(r, labels)
	if len(changed) != 1 || changed[0] != eval.ContextUtilization || !near(got.Scores[eval.ContextUtilization], 1) || r.ContextUtilization.Chunks[0].Verdict != 0 {
		t.Fatalf("changed %v, score %v; input verdict %d", changed, *got.Scores[eval.ContextUtilization], r.ContextUtilization.Chunks[0].Verdict)
	}
	tally := NewAgreementTally("r", labels)
	tally.Add(r)
	a := tally.Agreement()
	if c := a.Tasks[eval.LabelContextUtilization]; c == nil || c.Confusion != (Confusion{FN: 1}) {
		t.Fatalf("agreement %+v", c)
	}
	if mu := a.Metrics[eval.ContextUtilization]; mu.Labelled != 1 || mu.Changed != 1 || !near(mu.Mean, 0.5) || !near(mu.MeanWithLabels, 1) {
		t.Fatalf("metric agreement %+v", mu)
	}
}

// A κ of 0 is exactly 0 (p_o = p_e = 2/3 for one disagreement of three),
// not a rounding residue that prints -0.000.
func TestKappaZeroIsZero(t *testing.T) {
	ta := taskFigures(Confusion{TP: 2, FN: 1})
	if ta.Kappa == nil || *ta.Kappa != 0 || math.Signbit(*ta.Kappa) {
		t.Fatalf("kappa %v", ta.Kappa)
	}
	if ta = taskFigures(Confusion{TP: 1, FP: 1, TN: 1, FN: 1}); ta.Kappa == nil || *ta.Kappa != 0 {
		t.Fatalf("kappa %v", ta.Kappa)
	}
}
