// Package reporttest holds the results that the tests of eval/report and
// of its sub-packages share. It imports eval alone, so that eval/report's
// own tests can import it as well.
package reporttest

import "github.com/ragscope/ragscope/eval"

// HostileText has what XML 1.0 forbids (C0 controls, U+FFFE), what a
// terminal acts on (ESC, OSC, bidi) and what XML and workflow commands
// must escape (markup, a CDATA end, %, CR, LF, "::").
const HostileText = "a\x00b\x1b]0;pwned\x07 <b>&amp;</b> ]]> \u202e\uFFFE 100% \r\n::error ::x"

// CIResults are the samples of a run with every kind of (sample, metric):
// scored, failed and not applicable, with HostileText in ids, statements,
// reasons and error messages.
func CIResults() []*eval.Result {
	f := func(v float64) *float64 { return &v }
	calls := []eval.CallRecord{{Task: "faithfulness_statements", LatencyMS: 1200}, {Task: "faithfulness_verdicts", LatencyMS: 300}, {Task: "embeddings", LatencyMS: 50}}
	return []*eval.Result{
		{
			Index: 0, ID: "s0" + HostileText, Question: "q0", Answer: "a0",
			Scores: map[eval.Metric]*float64{eval.Faithfulness: f(0.25), eval.AnswerRelevancy: f(0.9)},
			Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.AnswerRelevancy: eval.StatusOK, eval.ContextPrecision: eval.StatusJudgeError, eval.ContextRecall: eval.StatusMissingInput},
			Errors: map[eval.Metric]string{eval.ContextPrecision: "429 " + HostileText},
			Faithfulness: &eval.FaithfulnessTrace{Statements: []eval.StatementVerdict{
				{Statement: "supported one", Verdict: 1, Reason: "stated"},
				{Statement: "unsupported " + HostileText, Verdict: 0, Reason: "not in the context " + HostileText},
			}, Supported: 1},
			Calls: calls,
		},
		{
			Index: 1, ID: "s1", Question: "q1", Answer: "a1",
			Scores: map[eval.Metric]*float64{eval.Faithfulness: f(0.875), eval.AnswerRelevancy: f(-0.125), eval.ContextPrecision: f(0.3), eval.ContextRecall: f(0.2)},
			Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.AnswerRelevancy: eval.StatusOK, eval.ContextPrecision: eval.StatusOK, eval.ContextRecall: eval.StatusOK},
			AnswerRelevancy: &eval.AnswerRelevancyTrace{Mode: "questions", Questions: []eval.GeneratedQuestion{
				{Question: "what is it?", Noncommittal: 1, Cosine: -0.1}, {Question: "who?", Cosine: 0.2}}},
			ContextPrecision: &eval.ContextPrecisionTrace{Chunks: []eval.ChunkVerdict{{Rank: 1, Verdict: 0, Reason: "off topic"}, {Rank: 2, Verdict: 1, Reason: "useful"}}},
			ContextRecall:    &eval.ContextRecallTrace{Classifications: []eval.Classification{{Statement: "the ID stays", Attributed: 0, Reason: "not retrieved"}}},
		},
		{
			Index: 2, Question: "q2", Answer: "a2",
			Scores: map[eval.Metric]*float64{eval.AnswerRelevancy: f(0.8), eval.ContextPrecision: f(1), eval.ContextRecall: f(1)},
			Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusNoStatements, eval.AnswerRelevancy: eval.StatusOK, eval.ContextPrecision: eval.StatusOK, eval.ContextRecall: eval.StatusOK},
		},
		{
			Index: 3, ID: "s3", Question: "q3", Answer: "a3",
			Scores: map[eval.Metric]*float64{eval.AnswerRelevancy: f(0.7)},
			Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusParseError, eval.AnswerRelevancy: eval.StatusOK},
			Errors: map[eval.Metric]string{eval.Faithfulness: "reply is not JSON"},
		},
	}
}

// Baseline is a result of sample index with id scoring faithfulness f (a
// status instead when f < 0: -1 judge_error, -2 no_statements).
func Baseline(index int, id, answer string, f float64) *eval.Result {
	r := &eval.Result{Index: index, ID: id, Question: "q " + answer, Answer: answer, Contexts: []string{"c"},
		Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{}}
	switch {
	case f == -1:
		r.Status[eval.Faithfulness] = eval.StatusJudgeError
	case f == -2:
		r.Status[eval.Faithfulness] = eval.StatusNoStatements
	default:
		r.Scores[eval.Faithfulness], r.Status[eval.Faithfulness] = &f, eval.StatusOK
	}
	return r
}

// Gate is a sample scoring v on faithfulness (or ending with a
// status when v < -1: -2 judge_error, -3 missing_input).
func Gate(i int, v float64) *eval.Result {
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

// Turn is turn n of conversation conv with faithfulness f (nil: not
// scored) and answer relevancy 1.
func Turn(index int, conv string, n int, f *float64) *eval.Result {
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

// NewMetrics is a sample with all three new metrics scored and
// traced: factual correctness (one FP, one FN), context entity recall (one
// entity missing), noise sensitivity (one of two statements noise).
func NewMetrics(index int, fc, er, ns float64) *eval.Result {
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

// NewMetricsChanged is a sample of NewMetrics before and after a change
// of judgements: a claim whose verdict turned, an entity found before and
// missing after (moved in the list), a statement that became noise and a
// chunk that became irrelevant.
func NewMetricsChanged() (a, b *eval.Result) {
	a = NewMetrics(0, 0.5, 2.0/3, 0.5)
	b = NewMetrics(0, 0.5, 1.0/3, 0.5)
	b.FactualCorrectness.AnswerClaims[1].Verdict, b.FactualCorrectness.AnswerClaims[1].Reason = 1, "the reference names Enfield"
	b.ContextEntityRecall.Reference = []eval.EntityMatch{{Entity: "Enfield"}, {Entity: "n29", Found: true, Match: "N29"}, {Entity: "N279"}, {Entity: "Waltham Cross"}}
	b.NoiseSensitivity.Statements[0].Noise, b.NoiseSensitivity.Statements[0].Correct = "relevant", false
	b.NoiseSensitivity.Chunks[1].Relevant = false
	return a, b
}

// NewMetricList are the metrics NewMetrics scores.
var NewMetricList = []eval.Metric{eval.FactualCorrectness, eval.ContextEntityRecall, eval.NoiseSensitivity}
