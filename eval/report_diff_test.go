package eval

import "testing"

// A statement that moves from TP to FP between two runs is one change of
// the answer's statements; a reference fact newly missed is one of the
// reference's.
func TestAnswerCorrectnessJudgementChanges(t *testing.T) {
	tr := func(tp, fp, fn []CorrectnessItem) *AnswerCorrectnessTrace {
		return &AnswerCorrectnessTrace{AnswerStatements: []string{"a1", "a2"}, ReferenceStatements: []string{"r1", "r2"},
			Classes: CorrectnessClasses{TP: tp, FP: fp, FN: fn}}
	}
	a := &Result{AnswerCorrectness: tr([]CorrectnessItem{{"a1", "ok"}, {"a2", "ok"}}, nil, nil)}
	b := &Result{AnswerCorrectness: tr([]CorrectnessItem{{"a1", "ok"}}, []CorrectnessItem{{"a2", "not in it"}}, []CorrectnessItem{{"r2", "missed"}})}
	got := judgementChanges(a, b)
	want := []struct{ what, before, after string }{
		{"answer statement 2", "TP: ok", "FP: not in it"},
		{"reference statement 2", "covered by the answer", "FN: missed"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d changes, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if g := got[i]; g.Metric != AnswerCorrectness || g.What != w.what || g.Before != w.before || g.After != w.after {
			t.Errorf("change %d: %+v, want %+v", i, g, w)
		}
	}
}

func TestMergeAndDiff(t *testing.T) {
	parent := &Result{Index: 3, ID: "x",
		Scores: map[Metric]*float64{Faithfulness: score(0.5), ContextRecall: score(1)},
		Status: map[Metric]Status{Faithfulness: StatusOK, ContextRecall: StatusOK},
		Faithfulness: &FaithfulnessTrace{Statements: []StatementVerdict{
			{Statement: "a", Verdict: 1, Reason: "yes"}, {Statement: "b", Verdict: 0, Reason: "not stated"}}, Supported: 1},
		ContextRecall: &ContextRecallTrace{Classifications: []Classification{{Statement: "r", Attributed: 1}}, Attributed: 1},
	}
	update := &Result{Index: 3, ID: "x",
		Scores: map[Metric]*float64{Faithfulness: score(1)},
		Status: map[Metric]Status{Faithfulness: StatusOK},
		Faithfulness: &FaithfulnessTrace{Statements: []StatementVerdict{
			{Statement: "a", Verdict: 1, Reason: "yes"}, {Statement: "b", Verdict: 1, Reason: "paraphrase"}}, Supported: 2},
	}
	merged := Merge(parent, update, []Metric{Faithfulness})
	if v, _ := merged.Score(Faithfulness); v != 1 {
		t.Fatalf("merged faithfulness %v", v)
	}
	if v, _ := merged.Score(ContextRecall); v != 1 || merged.ContextRecall == nil {
		t.Fatal("a metric not re-run was lost in the merge")
	}
	if v, _ := parent.Score(Faithfulness); v != 0.5 {
		t.Fatal("Merge changed the parent")
	}
	d := Diff([]Metric{Faithfulness, ContextRecall}, []*Result{parent}, []*Result{merged}, MatchByKeyOf([]*Result{parent}))
	if len(d.Samples) != 1 || d.Counts[Faithfulness].Up != 1 || d.Counts[ContextRecall] != (ChangeCount{}) {
		t.Fatalf("diff %+v", d)
	}
	if delta := d.Means[Faithfulness].Delta; delta == nil || *delta != 0.5 {
		t.Fatalf("mean delta %v", delta)
	}
	ch := d.Samples[0].Changes
	if len(ch) != 1 || ch[0].What != "statement 2" || ch[0].Before != "0: not stated" || ch[0].After != "1: paraphrase" {
		t.Fatalf("changes %+v", ch)
	}
	if same := Diff([]Metric{Faithfulness}, []*Result{parent}, []*Result{parent}, MatchByIndexOf([]*Result{parent})); len(same.Samples) != 0 {
		t.Fatalf("identical runs differ: %+v", same.Samples)
	}
}
