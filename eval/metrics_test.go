package eval

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
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

// utilJudge answers context utilization's chunk verdicts from a script and
// context precision's with the opposite, so a score that used the wrong
// method shows.
type utilJudge struct {
	nopJudge
	verdicts []int
}

func (j utilJudge) UtilizationVerdict(_ context.Context, s *Sample, rank int) (ChunkVerdict, error) {
	if strings.TrimSpace(s.Answer) == "" {
		panic("asked with an empty answer")
	}
	return ChunkVerdict{Verdict: j.verdicts[rank-1], Reason: "r"}, nil
}

func (j utilJudge) ChunkVerdict(_ context.Context, _ *Sample, rank int) (ChunkVerdict, error) {
	return ChunkVerdict{Verdict: 1 - j.verdicts[rank-1]}, nil
}

// Context utilization pinned against values computed by hand:
// Σk vk·precision@k / Σk vk over the ranks, with the answer as the target.
func TestContextUtilizationScore(t *testing.T) {
	cases := []struct {
		verdicts []int
		want     float64
		prec     []float64
	}{
		// (1/1 + 2/3) / 2
		{[]int{1, 0, 1}, 5.0 / 6, []float64{1, 0.5, 2.0 / 3}},
		// (1/2 + 2/3) / 2
		{[]int{0, 1, 1, 0}, 7.0 / 12, []float64{0, 0.5, 2.0 / 3, 0.5}},
		// 1/4: the only useful chunk is ranked last
		{[]int{0, 0, 0, 1}, 0.25, []float64{0, 0, 0, 0.25}},
		{[]int{1}, 1, []float64{1}},
		// no useful chunk is 0, not NaN
		{[]int{0, 0}, 0, []float64{0, 0}},
	}
	for _, tc := range cases {
		ctxs := make([]string, len(tc.verdicts))
		for i := range ctxs {
			ctxs[i] = fmt.Sprintf("chunk %d", i+1)
		}
		// No reference: utilization needs none.
		s := Sample{Question: "q?", Answer: "a.", Contexts: ctxs}
		r := &Runner{Judge: utilJudge{verdicts: tc.verdicts}, Config: RunnerConfig{Metrics: []Metric{ContextUtilization}}}
		res := r.Run(context.Background(), []Sample{s})[0]
		got, ok := res.Score(ContextUtilization)
		if !ok || res.Status[ContextUtilization] != StatusOK {
			t.Fatalf("%v: status %s (%s)", tc.verdicts, res.Status[ContextUtilization], res.Errors[ContextUtilization])
		}
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%v: %v, want %v", tc.verdicts, got, tc.want)
		}
		tr := res.ContextUtilization
		if tr == nil || res.ContextPrecision != nil || len(tr.Chunks) != len(tc.verdicts) {
			t.Fatalf("%v: trace %+v (precision trace %+v)", tc.verdicts, tr, res.ContextPrecision)
		}
		for k := range tc.verdicts {
			if tr.Chunks[k].Rank != k+1 || tr.Chunks[k].Verdict != tc.verdicts[k] || math.Abs(tr.Precisions[k]-tc.prec[k]) > 1e-12 {
				t.Errorf("%v: rank %d: %+v, precision %v, want %v", tc.verdicts, k+1, tr.Chunks[k], tr.Precisions[k], tc.prec[k])
			}
		}
		// The one formula: the same verdicts score the same as context precision.
		if ap, _ := AveragePrecision(tr.Chunks); ap != got {
			t.Errorf("%v: %v, AveragePrecision of its own verdicts %v", tc.verdicts, got, ap)
		}
	}
}

func TestContextUtilizationMissingInput(t *testing.T) {
	r := &Runner{Judge: utilJudge{verdicts: []int{1}}, Config: RunnerConfig{Metrics: []Metric{ContextUtilization}}}
	res := r.Run(context.Background(), []Sample{
		{Question: "q?", Answer: "  ", Contexts: []string{"c"}, Reference: "r"},
		{Question: "q?", Answer: "a.", Reference: "r"},
	})
	for i, r := range res {
		if r.Status[ContextUtilization] != StatusMissingInput || r.Scores[ContextUtilization] != nil || r.Errors[ContextUtilization] == "" {
			t.Errorf("sample %d: status %s, score %v, message %q; want missing_input, no score, a reason", i, r.Status[ContextUtilization], r.Scores[ContextUtilization], r.Errors[ContextUtilization])
		}
	}
}

func TestParseMetricsDefaultsAndAll(t *testing.T) {
	for in, want := range map[string][]Metric{
		"":                                 DefaultMetrics,
		"all":                              DefaultMetrics,
		"all,context_utilization":          AllMetrics[:5],
		"context_utilization,all":          {ContextUtilization, Faithfulness, AnswerRelevancy, ContextPrecision, ContextRecall},
		"faithfulness,context_utilization": {Faithfulness, ContextUtilization},
	} {
		got, err := ParseMetrics(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseMetrics(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if m, ok := LookupMetric("cu"); !ok || m != ContextUtilization {
		t.Errorf("cu is %q", m)
	}
	if slices.Contains(DefaultMetrics, ContextUtilization) || len(DefaultMetrics) != 4 || len(AllMetrics) != NumMetrics {
		t.Errorf("default %v, all %v", DefaultMetrics, AllMetrics)
	}
}
