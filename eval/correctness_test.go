package eval

import (
	"context"
	"math"
	"slices"
	"testing"
)

func TestFBetaScore(t *testing.T) {
	for _, tc := range []struct {
		name       string
		tp, fp, fn int
		beta, want float64
	}{
		// The RAGAS test vector: 2·3 / (2·3 + 2 + 1) = 6/9.
		{"ragas vector", 3, 1, 2, 1, 2.0 / 3},
		{"all true", 4, 0, 0, 1, 1},
		{"no true positive", 0, 3, 2, 1, 0},
		{"only misses", 0, 0, 2, 1, 0},
		{"precision only", 1, 1, 0, 1, 2.0 / 3},
		// β = 2 weighs recall: 5·3 / (5·3 + 4·2 + 1) = 15/24.
		{"beta 2", 3, 1, 2, 2, 15.0 / 24},
	} {
		if got := fBetaScore(tc.tp, tc.fp, tc.fn, tc.beta); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: F(%d,%d,%d) = %v, want %v", tc.name, tc.tp, tc.fp, tc.fn, got, tc.want)
		}
	}
	if got := fBetaScore(3, 1, 2, 1); math.Round(got*1000)/1000 != 0.667 {
		t.Errorf("RAGAS vector rounds to %.3f, want 0.667", got)
	}
}

func TestCorrectnessScore(t *testing.T) {
	for _, tc := range []struct {
		f, sim float64
		w      [2]float64
		want   float64
	}{
		{2.0 / 3, 0.9, DefaultACWeights, 0.75*2.0/3 + 0.25*0.9}, // 0.725
		{0.5, 1, [2]float64{1, 1}, 0.75},
		{0.5, 0.2, [2]float64{1, 0}, 0.5}, // similarity weight 0: F alone
		{0.5, 0.2, [2]float64{0, 1}, 0.2}, // factuality weight 0: similarity alone
		{1, 0, [2]float64{3, 1}, 0.75},    // weights need not sum to 1
	} {
		if got := CorrectnessScore(tc.f, tc.sim, tc.w); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("CorrectnessScore(%v, %v, %v) = %v, want %v", tc.f, tc.sim, tc.w, got, tc.want)
		}
	}
}

// acJudge answers answer correctness's steps from a script.
type acJudge struct {
	nopJudge
	answer, reference []string
	classes           CorrectnessClasses
	vecs              [][]float64
	classified        *int
}

func (j acJudge) Statements(context.Context, *Sample) ([]string, error) { return j.answer, nil }
func (j acJudge) ReferenceStatements(context.Context, *Sample) ([]string, error) {
	return j.reference, nil
}
func (j acJudge) CorrectnessClassify(context.Context, *Sample, []string, []string) (CorrectnessClasses, error) {
	*j.classified++
	return j.classes, nil
}
func (j acJudge) Embed(_ context.Context, _ *Sample, texts []string) ([][]float64, error) {
	return j.vecs, nil
}

func items(n int) []CorrectnessItem {
	out := make([]CorrectnessItem, n)
	for i := range out {
		out[i] = CorrectnessItem{Statement: "s", Reason: "r"}
	}
	return out
}

func TestAnswerCorrectnessAndSimilarity(t *testing.T) {
	ragas := CorrectnessClasses{TP: items(3), FP: items(1), FN: items(2)}
	// cos = 0.6 exactly: (1,0)·(0.6,0.8).
	vecs := [][]float64{{1, 0}, {0.6, 0.8}}
	full := Sample{Question: "q", Answer: "a", Reference: "r"}
	for _, tc := range []struct {
		name       string
		s          Sample
		j          acJudge
		w          [2]float64
		ac, as     Status
		acScore    float64
		asScore    float64
		classified int
	}{
		{"ragas vector", full, acJudge{answer: []string{"a1", "a2", "a3", "a4"}, reference: []string{"r1", "r2", "r3", "r4", "r5"}, classes: ragas, vecs: vecs},
			DefaultACWeights, StatusOK, StatusOK, 0.75*2.0/3 + 0.25*0.6, 0.6, 1},
		{"factuality only", full, acJudge{answer: []string{"a"}, reference: []string{"r"}, classes: ragas, vecs: vecs},
			[2]float64{1, 0}, StatusOK, StatusOK, 2.0 / 3, 0.6, 1},
		{"no answer statements", full, acJudge{reference: []string{"r"}, vecs: vecs},
			DefaultACWeights, StatusNoStatements, StatusOK, 0, 0.6, 0},
		{"no reference statements", full, acJudge{answer: []string{"a"}, vecs: vecs},
			DefaultACWeights, StatusNoStatements, StatusOK, 0, 0.6, 0},
		{"no statements either side", full, acJudge{vecs: vecs},
			DefaultACWeights, StatusNoStatements, StatusOK, 0, 0.6, 0},
		{"empty reference", Sample{Question: "q", Answer: "a", Reference: " "}, acJudge{answer: []string{"a"}, vecs: vecs},
			DefaultACWeights, StatusMissingInput, StatusMissingInput, 0, 0, 0},
		{"empty answer", Sample{Question: "q", Reference: "r"}, acJudge{reference: []string{"r"}, vecs: vecs},
			DefaultACWeights, StatusMissingInput, StatusMissingInput, 0, 0, 0},
		{"wrong vector count", full, acJudge{answer: []string{"a"}, reference: []string{"r"}, classes: ragas, vecs: vecs[:1]},
			DefaultACWeights, StatusJudgeError, StatusJudgeError, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			tc.j.classified = &n
			s := tc.s
			var r Result
			runAnswerCorrectness(context.Background(), tc.j, &s, &RunnerConfig{ACWeights: tc.w}, &r)
			runSemanticSimilarity(context.Background(), tc.j, &s, nil, &r)
			for _, c := range []struct {
				m    Metric
				st   Status
				want float64
			}{{AnswerCorrectness, tc.ac, tc.acScore}, {AnswerSimilarity, tc.as, tc.asScore}} {
				if r.Status[c.m] != c.st {
					t.Errorf("%s: status %s (%s), want %s", c.m, r.Status[c.m], r.Errors[c.m], c.st)
				}
				v, ok := r.Score(c.m)
				if ok != (c.st == StatusOK) || (ok && math.Abs(v-c.want) > 1e-12) {
					t.Errorf("%s: score %v %v, want %v", c.m, v, ok, c.want)
				}
			}
			if n != tc.classified {
				t.Errorf("classified %d times, want %d", n, tc.classified)
			}
			if tc.ac == StatusOK {
				tr := r.AnswerCorrectness
				if tr == nil || len(tr.Classes.TP) != len(tc.j.classes.TP) || tr.Weights != tc.w {
					t.Fatalf("trace %+v", tr)
				}
				if (tr.Similarity == nil) != (tc.w[1] == 0) {
					t.Errorf("similarity %v with weights %v", tr.Similarity, tc.w)
				}
			}
		})
	}
}

// A call is billed to the metric whose step made it; one request two
// metrics sent at once is paid by the first of them in the run's order,
// whichever won the race, and the other gets the cache hit.
func TestAttributeShared(t *testing.T) {
	const stmts, ent = "faithfulness_statements", "entailment_verdicts"
	paid := func(m Metric, task, key string) CallRecord { return CallRecord{Task: task, Key: key, Metric: m} }
	hit := func(m Metric, task, key string) CallRecord {
		return CallRecord{Task: task, Key: key, Metric: m, Cached: true}
	}
	type bill struct{ paid, hits int }
	for _, tc := range []struct {
		name  string
		order []Metric
		calls []CallRecord
		want  map[Metric]bill
	}{
		{"correctness won the race", []Metric{Faithfulness, AnswerCorrectness},
			[]CallRecord{paid(AnswerCorrectness, stmts, "k1"), hit(Faithfulness, stmts, "k1"), paid(AnswerCorrectness, stmts, "k2")},
			map[Metric]bill{Faithfulness: {1, 0}, AnswerCorrectness: {1, 1}}},
		{"faithfulness won the race", []Metric{Faithfulness, AnswerCorrectness},
			[]CallRecord{paid(Faithfulness, stmts, "k1"), hit(AnswerCorrectness, stmts, "k1")},
			map[Metric]bill{Faithfulness: {1, 0}, AnswerCorrectness: {0, 1}}},
		{"the run's order decides", []Metric{AnswerCorrectness, Faithfulness},
			[]CallRecord{hit(AnswerCorrectness, stmts, "k1"), paid(Faithfulness, stmts, "k1")},
			map[Metric]bill{AnswerCorrectness: {1, 0}, Faithfulness: {0, 1}}},
		{"noise sensitivity's own entailment calls", []Metric{FactualCorrectness, NoiseSensitivity},
			[]CallRecord{paid(NoiseSensitivity, ent, "ref"), hit(FactualCorrectness, ent, "ref"), paid(NoiseSensitivity, ent, "chunk1"), paid(NoiseSensitivity, ent, "chunk2"), paid(FactualCorrectness, ent, "ans")},
			map[Metric]bill{FactualCorrectness: {2, 0}, NoiseSensitivity: {2, 1}}},
		{"a failed call is not swapped", []Metric{Faithfulness, AnswerCorrectness},
			[]CallRecord{{Task: stmts, Key: "k1", Metric: AnswerCorrectness, Error: "HTTP 500"}, hit(Faithfulness, stmts, "k1")},
			map[Metric]bill{Faithfulness: {0, 1}, AnswerCorrectness: {0, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := slices.Clone(tc.calls)
			attributeShared(calls, tc.order)
			var st taskStats
			for _, c := range calls {
				st.add(c.MetricOf(), c.Task, usageOfCall(c, false))
				if c.Metric == MetricOfTask(c.Task) {
					t.Errorf("%+v keeps its task's own metric", c)
				}
			}
			got := st.snapshot()
			for m, w := range tc.want {
				if g := (bill{got[m].Chat, got[m].CacheHits}); g != w {
					t.Errorf("%s billed %+v, want %+v", m, g, w)
				}
			}
			for m := range got {
				if _, ok := tc.want[m]; !ok {
					t.Errorf("%s billed %+v", m, got[m])
				}
			}
		})
	}
}
