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

func TestNaNScoreBecomesAJudgeError(t *testing.T) {
	r := &Result{}
	r.set(Faithfulness, StatusOK, score(math.NaN()), "")
	if r.Status[Faithfulness] != StatusJudgeError || r.Scores[Faithfulness] != nil || r.Errors[Faithfulness] == "" {
		t.Fatalf("NaN kept: %+v", r)
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

func TestMetricNamesAndDefaults(t *testing.T) {
	if m, ok := LookupMetric("cu"); !ok || m != ContextUtilization {
		t.Errorf("cu is %q", m)
	}
	if slices.Contains(DefaultMetrics, ContextUtilization) || len(DefaultMetrics) != 4 || len(AllMetrics) != NumMetrics {
		t.Errorf("default %v, all %v", DefaultMetrics, AllMetrics)
	}
}
