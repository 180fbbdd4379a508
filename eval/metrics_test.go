package eval

import (
	"math"
	"testing"
)

func TestAveragePrecision(t *testing.T) {
	cases := []struct {
		verdicts []int
		want     float64
		prec     []float64
	}{
		{[]int{0, 1, 0, 1}, 0.5, []float64{0, 0.5, 1.0 / 3, 0.5}},
		{[]int{1, 0, 0}, 1, []float64{1, 0.5, 1.0 / 3}},
		{[]int{1, 1, 1}, 1, []float64{1, 1, 1}},
		{[]int{0, 0}, 0, []float64{0, 0}},
		{[]int{0, 0, 1}, 1.0 / 3, []float64{0, 0, 1.0 / 3}},
	}
	for _, tc := range cases {
		var chunks []ChunkVerdict
		for i, v := range tc.verdicts {
			chunks = append(chunks, ChunkVerdict{Rank: i + 1, Verdict: v})
		}
		got, prec := AveragePrecision(chunks)
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%v: %v, want %v", tc.verdicts, got, tc.want)
		}
		for k := range prec {
			if math.Abs(prec[k]-tc.prec[k]) > 1e-12 {
				t.Errorf("%v: precision@%d %v, want %v", tc.verdicts, k+1, prec[k], tc.prec[k])
			}
		}
	}
}

func TestCosine(t *testing.T) {
	cases := []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 0}, []float64{1, 0}, 1},
		{[]float64{1, 0}, []float64{0, 1}, 0},
		{[]float64{1, 0}, []float64{0.6, 0.8}, 0.6},
		{[]float64{0, 0}, []float64{1, 1}, 0},    // a zero vector never makes a NaN
		{[]float64{1, 2}, []float64{1, 2, 3}, 0}, // mismatched dimensions
	}
	for _, tc := range cases {
		if got := Cosine(tc.a, tc.b); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("cos(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func score(v float64) *float64 { return &v }

func TestSummarizeSeparatesFailuresFromNotApplicable(t *testing.T) {
	rs := []*Result{
		{Scores: map[Metric]*float64{Faithfulness: score(1)}, Status: map[Metric]Status{Faithfulness: StatusOK}},
		{Scores: map[Metric]*float64{Faithfulness: score(0.5)}, Status: map[Metric]Status{Faithfulness: StatusOK}},
		{Scores: map[Metric]*float64{}, Status: map[Metric]Status{Faithfulness: StatusJudgeError}},
		{Scores: map[Metric]*float64{}, Status: map[Metric]Status{Faithfulness: StatusNoStatements}},
		nil, // never finished
	}
	s := Summarize([]Metric{Faithfulness, ContextRecall}, rs)[Faithfulness]
	if s.Mean == nil || *s.Mean != 0.75 || s.Scored != 2 || s.Failed != 1 || s.NotApplicable != 1 ||
		s.ByStatus[StatusJudgeError] != 1 || s.ByStatus[StatusNoStatements] != 1 {
		t.Fatalf("summary %+v", s)
	}
	if cr := Summarize([]Metric{ContextRecall}, rs)[ContextRecall]; cr.Mean != nil || cr.Scored != 0 {
		t.Fatalf("a metric nobody scored must have a null mean: %+v", cr)
	}
}

func TestNaNScoreBecomesAJudgeError(t *testing.T) {
	r := &Result{}
	r.set(Faithfulness, StatusOK, score(math.NaN()), "")
	if r.Status[Faithfulness] != StatusJudgeError || r.Scores[Faithfulness] != nil || r.Errors[Faithfulness] == "" {
		t.Fatalf("NaN kept: %+v", r)
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
