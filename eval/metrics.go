package eval

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// The metric steps: each turns judge outputs into a score following the
// RAGAS (>= 0.3.6) definitions in DESIGN.md, and keeps every intermediate
// judgement on the result. A step never panics and never leaves a NaN: it
// ends with a status, and a score only when the status is ok.

// faithfulness = supported statements / statements sent; in a
// conversation, support found earlier counts as --history-support says
// (lookBack).
func runFaithfulness(ctx context.Context, j Judge, s *Sample, cfg *RunnerConfig, r *Result) {
	if strings.TrimSpace(s.Answer) == "" {
		r.set(Faithfulness, StatusNoStatements, nil, "the answer is empty")
		return
	}
	if r.lacks(Faithfulness, noContexts(s), "no retrieved contexts to check the answer against") {
		return
	}
	stmts, err := j.Statements(ctx, s)
	if err != nil {
		r.fail(Faithfulness, err)
		return
	}
	if len(stmts) == 0 {
		r.Faithfulness = &FaithfulnessTrace{Statements: []StatementVerdict{}}
		r.set(Faithfulness, StatusNoStatements, nil, "the judge extracted no statements from the answer")
		return
	}
	verdicts, err := j.Verdicts(ctx, s, stmts)
	if err != nil {
		r.fail(Faithfulness, err)
		return
	}
	if len(verdicts) != len(stmts) {
		// The judge contract is one verdict per statement sent; a judge
		// implementation that breaks it must not shift the denominator.
		r.fail(Faithfulness, NewStepError(StatusParseError, "judge returned %d verdicts for %d statements", len(verdicts), len(stmts)))
		return
	}
	tr := &FaithfulnessTrace{Statements: verdicts}
	for i := range verdicts {
		verdicts[i].Evidence.Check(s.Contexts)
	}
	if len(s.History) > 0 {
		if err := lookBack(ctx, j, s, cfg.HistorySupport, tr); err != nil {
			r.fail(Faithfulness, err)
			return
		}
	}
	var score float64
	tr.Supported, score = FaithfulnessScore(verdicts)
	r.Faithfulness = tr
	r.set(Faithfulness, StatusOK, &score, "")
}

// FaithfulnessScore is supported / statements sent for a non-empty list:
// the metric's one formula, which labelled scores use too.
func FaithfulnessScore(verdicts []StatementVerdict) (supported int, score float64) {
	for _, v := range verdicts {
		supported += v.Verdict
	}
	return supported, float64(supported) / float64(len(verdicts))
}

// answer_relevancy = mean cosine(E(generated question), E(question)), 0 when
// every generated question is flagged noncommittal.
func runAnswerRelevancy(ctx context.Context, j Judge, s *Sample, cfg *RunnerConfig, r *Result) {
	if r.lacks(AnswerRelevancy, blank(s.Question) || blank(s.Answer), "answer relevancy needs both a question and an answer") {
		return
	}
	if sj, ok := j.(AnswerSimilarityJudge); ok {
		runAnswerSimilarity(ctx, sj, s, r)
		return
	}
	qs, err := j.Questions(ctx, s, cfg.Strictness)
	if err != nil {
		r.fail(AnswerRelevancy, err)
		return
	}
	var kept []GeneratedQuestion
	for _, q := range qs {
		if strings.TrimSpace(q.Question) != "" {
			kept = append(kept, q)
		}
	}
	if len(kept) == 0 {
		r.AnswerRelevancy = &AnswerRelevancyTrace{Mode: "questions", Questions: []GeneratedQuestion{}}
		r.set(AnswerRelevancy, StatusNoQuestions, nil, "the judge generated no question from the answer")
		return
	}
	texts := make([]string, 0, len(kept)+1)
	texts = append(texts, s.Question)
	for _, q := range kept {
		texts = append(texts, q.Question)
	}
	vecs, err := embed(ctx, j, s, texts, "embedding endpoint")
	if err != nil {
		r.fail(AnswerRelevancy, err)
		return
	}
	tr := &AnswerRelevancyTrace{Mode: "questions", Questions: kept}
	for i := range kept {
		tr.Questions[i].Cosine = Cosine(vecs[0], vecs[i+1])
	}
	var score float64
	score, tr.AllNoncommittal = RelevancyScore(tr.Questions)
	r.AnswerRelevancy = tr
	r.set(AnswerRelevancy, StatusOK, &score, "")
}

// answerSimilarityUnsupported is why answer relevancy is unsupported
// without generated questions: a correct answer in other words would read
// as off-topic.
const answerSimilarityUnsupported = "answer relevancy needs questions generated from the answer (an LLM judge); " +
	"the offline judge's cosine of the answer to the question only counts shared words, so it is kept in the trace, not scored"

// runAnswerSimilarity keeps what a judge that cannot generate questions
// sees (the cosine of answer and question, an evasive phrase) in the
// trace, and leaves the metric unsupported.
func runAnswerSimilarity(ctx context.Context, j AnswerSimilarityJudge, s *Sample, r *Result) {
	vecs, err := embed(ctx, j, s, []string{s.Question, s.Answer}, "embedder")
	if err != nil {
		r.fail(AnswerRelevancy, err)
		return
	}
	nc, hint := j.Noncommittal(s)
	tr := &AnswerRelevancyTrace{Mode: AnswerSimilarityMode, Questions: []GeneratedQuestion{}, AnswerCosine: Cosine(vecs[0], vecs[1])}
	why := answerSimilarityUnsupported
	if nc {
		tr.AllNoncommittal = true
		tr.NoncommittalHint = hint
		why += fmt.Sprintf("; the answer is noncommittal (%q)", hint)
	}
	r.AnswerRelevancy = tr
	r.set(AnswerRelevancy, StatusUnsupported, nil, why)
}

// RelevancyScore is the mean cosine of a non-empty list of generated
// questions, 0 when every one is flagged noncommittal.
func RelevancyScore(qs []GeneratedQuestion) (score float64, allNoncommittal bool) {
	allNoncommittal = true
	var sum float64
	for _, q := range qs {
		sum += q.Cosine
		if q.Noncommittal == 0 {
			allNoncommittal = false
		}
	}
	if allNoncommittal {
		return 0, true
	}
	return sum / float64(len(qs)), false
}

// context_precision = Σk vk·precision@k / Σk vk over the ranked chunks; 0
// when no chunk is useful.
func runContextPrecision(ctx context.Context, j Judge, s *Sample, _ *RunnerConfig, r *Result) {
	if r.lacks(ContextPrecision, blank(s.Reference), "context precision needs a reference answer") ||
		r.lacks(ContextPrecision, noContexts(s), "there are no retrieved contexts to rank") {
		return
	}
	if tr := judgeChunks(ctx, ContextPrecision, j.ChunkVerdict, s, r); tr != nil {
		r.ContextPrecision = tr
	}
}

// context_utilization is context precision with the answer in place of
// the reference: the same formula, AveragePrecision.
func runContextUtilization(ctx context.Context, j Judge, s *Sample, _ *RunnerConfig, r *Result) {
	if r.lacks(ContextUtilization, blank(s.Answer), "context utilization needs an answer") ||
		r.lacks(ContextUtilization, noContexts(s), "there are no retrieved contexts to rank") {
		return
	}
	if tr := judgeChunks(ctx, ContextUtilization, j.UtilizationVerdict, s, r); tr != nil {
		r.ContextUtilization = tr
	}
}

// judgeChunks asks verdict of every chunk at once and scores m by average
// precision; nil, with the failure set on r, when some call failed.
func judgeChunks(ctx context.Context, m Metric, verdict func(context.Context, *Sample, int) (ChunkVerdict, error), s *Sample, r *Result) *ContextPrecisionTrace {
	chunks := make([]ChunkVerdict, len(s.Contexts))
	calls := make([]func() error, len(s.Contexts))
	for k := range s.Contexts {
		calls[k] = func() (err error) {
			chunks[k], err = verdict(ctx, s, k+1)
			chunks[k].Rank = k + 1
			return err
		}
	}
	if err := together(calls...); err != nil {
		r.fail(m, err)
		return nil
	}
	score, precisions := AveragePrecision(chunks)
	r.set(m, StatusOK, &score, "")
	return &ContextPrecisionTrace{Chunks: chunks, Precisions: precisions}
}

// AveragePrecision is the one formula of context precision and
// utilization; it returns precision@k for every rank too.
func AveragePrecision(chunks []ChunkVerdict) (float64, []float64) {
	precisions := make([]float64, len(chunks))
	var useful, num float64
	for k, c := range chunks {
		if c.Verdict == 1 {
			useful++
		}
		precisions[k] = useful / float64(k+1)
		if c.Verdict == 1 {
			num += precisions[k]
		}
	}
	if useful == 0 {
		return 0, precisions
	}
	return num / useful, precisions
}

// context_recall = attributed reference statements / reference statements.
func runContextRecall(ctx context.Context, j Judge, s *Sample, _ *RunnerConfig, r *Result) {
	// Nothing retrieved covers nothing: the judge is not asked (it would
	// attribute statements to chunks that do not exist), and the metric is
	// not computable, as faithfulness and context precision are.
	if r.lacks(ContextRecall, blank(s.Reference), "context recall needs a reference answer") ||
		r.lacks(ContextRecall, noContexts(s), "no retrieved contexts to attribute the reference to") {
		return
	}
	cls, err := j.Classify(ctx, s)
	if err != nil {
		r.fail(ContextRecall, err)
		return
	}
	if len(cls) == 0 {
		r.ContextRecall = &ContextRecallTrace{Classifications: []Classification{}}
		r.set(ContextRecall, StatusNoStatements, nil, "the judge found no statements in the reference")
		return
	}
	tr := &ContextRecallTrace{Classifications: cls}
	for i := range cls {
		cls[i].Evidence.Check(s.Contexts)
	}
	var score float64
	tr.Attributed, score = RecallScore(cls)
	r.ContextRecall = tr
	r.set(ContextRecall, StatusOK, &score, "")
}

// RecallScore is attributed / reference statements for a non-empty list.
func RecallScore(cls []Classification) (attributed int, score float64) {
	for _, c := range cls {
		attributed += c.Attributed
	}
	return attributed, float64(attributed) / float64(len(cls))
}

// set records a metric's outcome. Each metric of a sample writes into its
// own partial result (see Runner.evalSample), so no lock is needed here.
func (r *Result) set(m Metric, st Status, score *float64, msg string) {
	if r.Scores == nil {
		r.Scores = map[Metric]*float64{}
		r.Status = map[Metric]Status{}
	}
	if score != nil && (math.IsNaN(*score) || math.IsInf(*score, 0)) {
		st, score, msg = StatusJudgeError, nil, fmt.Sprintf("score is not a number (%v)", *score)
	}
	r.Scores[m] = score
	r.Status[m] = st
	if msg != "" {
		if r.Errors == nil {
			r.Errors = map[Metric]string{}
		}
		r.Errors[m] = msg
	}
}

func (r *Result) fail(m Metric, err error) {
	r.set(m, StatusOf(err), nil, err.Error())
}

// lacks ends m missing_input, saying why, when an input it needs is
// absent, and reports whether it was.
func (r *Result) lacks(m Metric, absent bool, why string) bool {
	if absent {
		r.set(m, StatusMissingInput, nil, why)
	}
	return absent
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// noContexts reports a sample with no retrieved chunk that has text.
func noContexts(s *Sample) bool { return len(nonEmpty(s.Contexts)) == 0 }

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
