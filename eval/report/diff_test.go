package report

import (
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// A statement that moves from TP to FP between two runs is one change of
// the answer's statements; a reference fact newly missed is one of the
// reference's.
func TestAnswerCorrectnessJudgementChanges(t *testing.T) {
	tr := func(tp, fp, fn []eval.CorrectnessItem) *eval.AnswerCorrectnessTrace {
		return &eval.AnswerCorrectnessTrace{AnswerStatements: []string{"a1", "a2"}, ReferenceStatements: []string{"r1", "r2"},
			Classes: eval.CorrectnessClasses{TP: tp, FP: fp, FN: fn}}
	}
	a := &eval.Result{AnswerCorrectness: tr([]eval.CorrectnessItem{{Statement: "a1", Reason: "ok"}, {Statement: "a2", Reason: "ok"}}, nil, nil)}
	b := &eval.Result{AnswerCorrectness: tr([]eval.CorrectnessItem{{Statement: "a1", Reason: "ok"}}, []eval.CorrectnessItem{{Statement: "a2", Reason: "not in it"}}, []eval.CorrectnessItem{{Statement: "r2", Reason: "missed"}})}
	got := judgementChanges(a, b)
	want := []struct{ what, before, after string }{
		{"answer statement 2", "TP: ok", "FP: not in it"},
		{"reference statement 2", "covered by the answer", "FN: missed"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d changes, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if g := got[i]; g.Metric != eval.AnswerCorrectness || g.What != w.what || g.Before != w.before || g.After != w.after {
			t.Errorf("change %d: %+v, want %+v", i, g, w)
		}
	}
}

func TestMergeAndDiff(t *testing.T) {
	parent := &eval.Result{Index: 3, ID: "x",
		Scores: map[eval.Metric]*float64{eval.Faithfulness: score(0.5), eval.ContextRecall: score(1)},
		Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.ContextRecall: eval.StatusOK},
		Faithfulness: &eval.FaithfulnessTrace{Statements: []eval.StatementVerdict{
			{Statement: "a", Verdict: 1, Reason: "yes"}, {Statement: "b", Verdict: 0, Reason: "not stated"}}, Supported: 1},
		ContextRecall: &eval.ContextRecallTrace{Classifications: []eval.Classification{{Statement: "r", Attributed: 1}}, Attributed: 1},
	}
	update := &eval.Result{Index: 3, ID: "x",
		Scores: map[eval.Metric]*float64{eval.Faithfulness: score(1)},
		Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK},
		Faithfulness: &eval.FaithfulnessTrace{Statements: []eval.StatementVerdict{
			{Statement: "a", Verdict: 1, Reason: "yes"}, {Statement: "b", Verdict: 1, Reason: "paraphrase"}}, Supported: 2},
	}
	merged := eval.Merge(parent, update, []eval.Metric{eval.Faithfulness})
	if v, _ := merged.Score(eval.Faithfulness); v != 1 {
		t.Fatalf("merged faithfulness %v", v)
	}
	if v, _ := merged.Score(eval.ContextRecall); v != 1 || merged.ContextRecall == nil {
		t.Fatal("a metric not re-run was lost in the merge")
	}
	if v, _ := parent.Score(eval.Faithfulness); v != 0.5 {
		t.Fatal("Merge changed the parent")
	}
	d := Diff([]eval.Metric{eval.Faithfulness, eval.ContextRecall}, []*eval.Result{parent}, []*eval.Result{merged})
	if len(d.Samples) != 1 || d.Counts[eval.Faithfulness].Up != 1 || d.Counts[eval.ContextRecall] != (ChangeCount{}) {
		t.Fatalf("diff %+v", d)
	}
	if delta := d.Means[eval.Faithfulness].Delta; delta == nil || *delta != 0.5 {
		t.Fatalf("mean delta %v", delta)
	}
	ch := d.Samples[0].Changes
	if len(ch) != 1 || ch[0].What != "statement 2" || ch[0].Before != "0: not stated" || ch[0].After != "1: paraphrase" {
		t.Fatalf("changes %+v", ch)
	}
	if same := Diff([]eval.Metric{eval.Faithfulness}, []*eval.Result{parent}, []*eval.Result{parent}); len(same.Samples) != 0 {
		t.Fatalf("identical runs differ: %+v", same.Samples)
	}
}
