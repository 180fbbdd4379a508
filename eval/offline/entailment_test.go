package offline

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// Entailment is the support test with the premise as the only context.
func TestEntailment(t *testing.T) {
	j := New()
	s := &eval.Sample{Question: "How many days of leave do new staff get?"}
	premise := "New staff get 10 days of paid leave. Unused days expire in March."
	got, err := j.Entailment(context.Background(), s, premise, []string{
		"New staff get 10 days of paid leave.",
		"New staff get 15 days of paid leave.",
		"Managers approve leave requests.",
		"Unused days expire in March.",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		verdict int
		reason  string
	}{
		{1, `context says "New staff get 10 days of paid leave."`},
		{0, DetectorNumber},
		{0, "best match"},
		{1, `context says "Unused days expire in March."`},
	}
	if len(got) != len(want) {
		t.Fatalf("%d verdicts: %+v", len(got), got)
	}
	for i, w := range want {
		if got[i].Verdict != w.verdict || !strings.Contains(got[i].Reason, w.reason) {
			t.Errorf("statement %d %q: verdict %d %q, want %d with %q", i+1, got[i].Statement, got[i].Verdict, got[i].Reason, w.verdict, w.reason)
		}
	}
	// The Chinese negation detector works against a premise too.
	zh, _ := j.Entailment(context.Background(), &eval.Sample{Question: "纳税人识别号会变吗？"}, "转为一般纳税人后，纳税人识别号保持不变。",
		[]string{"转为一般纳税人后纳税人识别号会变更。"})
	if zh[0].Verdict != 0 || !strings.Contains(zh[0].Reason, DetectorNegation) {
		t.Errorf("negated statement: %+v", zh[0])
	}
	empty, _ := j.Entailment(context.Background(), s, "  ", []string{"New staff get 10 days of paid leave."})
	if empty[0].Verdict != 0 || empty[0].Reason != "the premise has no text to check the statement against" {
		t.Errorf("empty premise: %+v", empty[0])
	}
	none, err := j.Entailment(context.Background(), s, premise, nil)
	if err != nil || none == nil || len(none) != 0 {
		t.Errorf("no statements: %v %v", none, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := j.Entailment(ctx, s, premise, []string{"x"}); err == nil {
		t.Error("a cancelled context was ignored")
	}
}

func TestUnsupported(t *testing.T) {
	j := New()
	for _, m := range eval.AllMetrics {
		why := j.Unsupported(m)
		if (why != "") != (m == eval.NoiseSensitivity) {
			t.Errorf("%s: %q", m, why)
		}
	}
	if why := j.Unsupported(eval.NoiseSensitivity); !strings.Contains(why, "run with an LLM judge") || !strings.Contains(why, "every chunk") {
		t.Errorf("reason %q", why)
	}
}

// countingJudge counts the offline judge's entailment calls; the embedded
// judge's Unsupported is promoted, so the runner still consults it.
type countingJudge struct {
	*Judge
	entailments atomic.Int64
}

func (c *countingJudge) Entailment(ctx context.Context, s *eval.Sample, premise string, st []string) ([]eval.StatementVerdict, error) {
	c.entailments.Add(1)
	return c.Judge.Entailment(ctx, s, premise, st)
}

// Offline: factual correctness is scored with the support test in each
// mode; noise sensitivity ends unsupported, with the reason and no call.
func TestOfflineFactualCorrectnessAndNoise(t *testing.T) {
	samples := []eval.Sample{
		{ID: "same", Question: "How many days of leave do new staff get?", Answer: "New staff get 10 days of paid leave.",
			Reference: "New staff get 10 days of paid leave.", Contexts: []string{"New staff get 10 days of paid leave."}},
		// The answer's one claim is contradicted (FP); the reference's
		// second fact is missing from the answer (FN), its first is
		// contradicted by it (FN): TP 0.
		{ID: "wrong", Question: "How many days of leave do new staff get?", Answer: "New staff get 15 days of paid leave.",
			Reference: "New staff get 10 days of paid leave. Unused days expire in March.", Contexts: []string{"Leave policy."}},
		// Two claims, one entailed; the reference's one fact covered.
		{ID: "half", Question: "How many days of leave do new staff get?", Answer: "New staff get 10 days of paid leave. Managers approve every request.",
			Reference: "New staff get 10 days of paid leave.", Contexts: []string{"Leave policy."}},
	}
	for _, tc := range []struct {
		mode string
		want []float64
	}{
		{"f1", []float64{1, 0, 2.0 / 3}},    // half: 2·1 / (2·1 + 1 + 0)
		{"precision", []float64{1, 0, 0.5}}, // half: 1/2
		{"recall", []float64{1, 0, 1}},      // half: 1/1
	} {
		t.Run(tc.mode, func(t *testing.T) {
			j := &countingJudge{Judge: New()}
			r := &eval.Runner{Judge: j, Config: eval.RunnerConfig{Metrics: []eval.Metric{eval.FactualCorrectness, eval.NoiseSensitivity}, FCMode: tc.mode}}
			in := make([]eval.Sample, len(samples))
			copy(in, samples)
			for i := range in {
				in[i].Index = i
			}
			res := r.Run(context.Background(), in)
			perSample := 2
			if tc.mode == "precision" {
				perSample = 1
			}
			if n := j.entailments.Load(); n != int64(perSample*len(samples)) {
				t.Errorf("%d entailment calls, want %d (none of them noise sensitivity's)", n, perSample*len(samples))
			}
			for i, rs := range res {
				v, ok := rs.Score(eval.FactualCorrectness)
				if !ok || math.Abs(v-tc.want[i]) > 1e-12 {
					t.Errorf("%s: factual correctness %v %v (%s: %s), want %v; trace %+v", rs.ID, v, ok,
						rs.Status[eval.FactualCorrectness], rs.Errors[eval.FactualCorrectness], tc.want[i], rs.FactualCorrectness)
				}
				for _, c := range rs.FactualCorrectness.AnswerClaims {
					if c.Reason == "" {
						t.Errorf("%s: claim %q has no reason", rs.ID, c.Statement)
					}
				}
				if rs.Status[eval.NoiseSensitivity] != eval.StatusUnsupported || rs.Errors[eval.NoiseSensitivity] != NoiseSensitivityUnsupported ||
					rs.Scores[eval.NoiseSensitivity] != nil || rs.NoiseSensitivity != nil {
					t.Errorf("%s: noise sensitivity %s %q", rs.ID, rs.Status[eval.NoiseSensitivity], rs.Errors[eval.NoiseSensitivity])
				}
			}
		})
	}
}
