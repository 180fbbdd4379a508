package diff

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// The fixtures below are eval/report's own test fixtures, which a test of
// another package cannot import.

// turnResult is turn n of conversation conv with faithfulness f (nil: not
// scored) and answer relevancy 1.
func turnResult(index int, conv string, n int, f *float64) *eval.Result {
	ar := 1.0
	r := &eval.Result{Index: index, ID: conv + "#" + string(rune('0'+n)), ConversationID: conv, Turn: n, Question: "q", Answer: "a",
		Scores: map[eval.Metric]*float64{eval.Faithfulness: f, eval.AnswerRelevancy: &ar},
		Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.AnswerRelevancy: eval.StatusOK}}
	if f == nil {
		r.Status[eval.Faithfulness] = eval.StatusNoStatements
	}
	if n > 1 {
		r.Standalone = &eval.StandaloneTrace{Question: "standalone " + conv, Status: eval.StatusOK}
	} else {
		r.Standalone = &eval.StandaloneTrace{Status: eval.StatusUnsupported, Reason: "offline"}
	}
	return r
}

func fp(v float64) *float64 { return &v }

// gateResult is a sample scoring v on faithfulness (or ending with a
// status when v < -1: -2 judge_error, -3 missing_input).
func gateResult(i int, v float64) *eval.Result {
	r := &eval.Result{Index: i, Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{}}
	switch v {
	case -2:
		r.Status[eval.Faithfulness] = eval.StatusJudgeError
		r.Errors = map[eval.Metric]string{eval.Faithfulness: "429 Too Many Requests"}
	case -3:
		r.Status[eval.Faithfulness] = eval.StatusMissingInput
	default:
		r.Scores[eval.Faithfulness], r.Status[eval.Faithfulness] = &v, eval.StatusOK
		r.Faithfulness = &eval.FaithfulnessTrace{Statements: []eval.StatementVerdict{{Statement: "s", Verdict: 0, Reason: "no"}}}
	}
	return r
}

// newMetricsResult is a sample with all three new metrics scored and
// traced: factual correctness (one FP, one FN), context entity recall (one
// entity missing), noise sensitivity (one of two statements noise).
func newMetricsResult(index int, fc, er, ns float64) *eval.Result {
	return &eval.Result{
		Index: index, ID: "bus-" + string(rune('a'+index)), Question: "Which night buses go to Enfield?", Answer: "The N29 and the N279.",
		Contexts: []string{"The N29 runs to Enfield Town.", "The N279 runs to Waltham Cross."}, Reference: "The N29 and the N279 go to Enfield.",
		Scores: map[eval.Metric]*float64{eval.FactualCorrectness: &fc, eval.ContextEntityRecall: &er, eval.NoiseSensitivity: &ns},
		Status: map[eval.Metric]eval.Status{eval.FactualCorrectness: eval.StatusOK, eval.ContextEntityRecall: eval.StatusOK, eval.NoiseSensitivity: eval.StatusOK},
		FactualCorrectness: &eval.FactualCorrectnessTrace{Mode: "f1", Beta: 1,
			AnswerClaims:    []eval.StatementVerdict{{Statement: "The N29 goes to Enfield.", Verdict: 1, Reason: "the reference says so"}, {Statement: "The N279 goes to Enfield Town.", Verdict: 0, Reason: "the reference says Enfield only"}},
			ReferenceClaims: []eval.StatementVerdict{{Statement: "The N29 goes to Enfield.", Verdict: 1, Reason: "in the answer"}, {Statement: "The N279 goes to Enfield.", Verdict: 0, Reason: "the answer says Enfield Town"}},
			TP:              1, FP: 1, FN: 1},
		ContextEntityRecall: &eval.EntityRecallTrace{Reference: []eval.EntityMatch{{Entity: "N29", Found: true, Match: "N29"}, {Entity: "N279", Found: true, Match: "N279"}, {Entity: "Enfield"}},
			Contexts: []string{"N29", "Enfield Town", "N279", "Waltham Cross"}, Found: 2},
		NoiseSensitivity: &eval.NoiseSensitivityTrace{Mode: "relevant", ReferenceStatements: []string{"The N29 goes to Enfield."},
			ByReference: []eval.StatementVerdict{{Statement: "The N29 goes to Enfield Town.", Verdict: 1}, {Statement: "The N279 goes to Waltham Cross.", Verdict: 0}},
			Chunks: []eval.NoiseChunk{
				{Rank: 1, Relevant: true, Reference: []eval.StatementVerdict{{Verdict: 1}}, Answer: []eval.StatementVerdict{{Verdict: 1}, {Verdict: 0}}},
				{Rank: 2, Relevant: true, Reference: []eval.StatementVerdict{{Verdict: 1}}, Answer: []eval.StatementVerdict{{Verdict: 0}, {Verdict: 1}}},
			},
			Statements: []eval.NoiseStatement{
				{Statement: "The N29 goes to Enfield Town.", Correct: true, Relevant: []int{1}},
				{Statement: "The N279 goes to Waltham Cross.", Relevant: []int{2}, Noise: "relevant"},
			},
			Relevant: 1},
	}
}

var newMetrics = []eval.Metric{eval.FactualCorrectness, eval.ContextEntityRecall, eval.NoiseSensitivity}

// The text of a changed sample of the new metrics: the score that moved
// and each changed judgement, a side without the judged text saying so.
func TestTextOfTheNewMetrics(t *testing.T) {
	a := newMetricsResult(0, 0.5, 2.0/3, 0.5)
	b := newMetricsResult(0, 0.5, 1.0/3, 0.5)
	b.FactualCorrectness.AnswerClaims[1].Verdict, b.FactualCorrectness.AnswerClaims[1].Reason = 1, "the reference names Enfield"
	b.ContextEntityRecall.Reference = []eval.EntityMatch{{Entity: "Enfield"}, {Entity: "n29", Found: true, Match: "N29"}, {Entity: "N279"}, {Entity: "Waltham Cross"}}
	b.NoiseSensitivity.Statements[0].Noise, b.NoiseSensitivity.Statements[0].Correct = "relevant", false
	b.NoiseSensitivity.Chunks[1].Relevant = false
	var out bytes.Buffer
	sd, changed := report.DiffSample(newMetrics, a, b)
	if !changed {
		t.Fatal("no change found")
	}
	WriteSamples(&out, newMetrics, []report.SampleDiff{sd})
	for _, line := range []string{
		"context_entity_recall  0.667 -> 0.333  (-0.333)",
		`factual_correctness answer claim 2 "The N279 goes to Enfield Town."`,
		`context_entity_recall entity 4`,
		`before: (no entity 4)`,
		`after:  "Waltham Cross"  missing from the contexts`,
		`noise_sensitivity chunk 2`,
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("diff text lacks %q:\n%s", line, out.String())
		}
	}
}
