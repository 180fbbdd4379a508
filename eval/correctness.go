package eval

import (
	"cmp"
	"context"
	"sync"
)

// DefaultACWeights are RAGAS's weights of answer correctness: factuality
// (the F-score) 0.75, answer similarity 0.25.
var DefaultACWeights = [2]float64{0.75, 0.25}

// correctnessBeta is the β of answer correctness's F-score (RAGAS's default).
const correctnessBeta = 1.0

// fBetaScore is (1+β²)·TP / ((1+β²)·TP + β²·FN + FP), and 0 when TP is 0.
// RAGAS computes it from precision and recall with 1e-10 guards, which gives
// 0 for all-empty lists; ragscope never scores that case (the caller gives
// it a status), so no epsilon is needed and the value is exact.
func fBetaScore(tp, fp, fn int, beta float64) float64 {
	if tp == 0 {
		return 0
	}
	b2 := beta * beta
	return (1 + b2) * float64(tp) / ((1+b2)*float64(tp) + b2*float64(fn) + float64(fp))
}

// CorrectnessScore is the weighted mean of the F-score and the similarity
// (similarity unused when its weight is 0).
func CorrectnessScore(f, sim float64, w [2]float64) float64 {
	if w[1] == 0 {
		return f
	}
	return (w[0]*f + w[1]*sim) / (w[0] + w[1])
}

// answer_similarity = cosine(E(answer), E(reference)).
func runSemanticSimilarity(ctx context.Context, j Judge, s *Sample, _ *RunnerConfig, r *Result) {
	if r.lacks(AnswerSimilarity, blank(s.Answer) || blank(s.Reference), "answer similarity needs both an answer and a reference") {
		return
	}
	c, err := similarity(ctx, j, s)
	if err != nil {
		r.fail(AnswerSimilarity, err)
		return
	}
	r.AnswerSimilarity = &AnswerSimilarityTrace{Cosine: c}
	r.set(AnswerSimilarity, StatusOK, &c, "")
}

// similarity embeds answer and reference in one request; embeddings are
// cached per text, so a run pays for them once.
func similarity(ctx context.Context, j Judge, s *Sample) (float64, error) {
	vecs, err := embed(ctx, j, s, []string{s.Answer, s.Reference}, "embedder")
	if err != nil {
		return 0, err
	}
	return Cosine(vecs[0], vecs[1]), nil
}

// embed is Judge.Embed held to its contract: one vector per text, or a
// judge error that says what (who) returned otherwise.
func embed(ctx context.Context, j Judge, s *Sample, texts []string, who string) ([][]float64, error) {
	vecs, err := j.Embed(ctx, s, texts)
	if err == nil && len(vecs) != len(texts) {
		err = NewStepError(StatusJudgeError, "%s returned %d vectors for %d texts", who, len(vecs), len(texts))
	}
	return vecs, err
}

// answer_correctness = (w0·F1(TP, FP, FN) + w1·answer_similarity) / (w0 + w1).
func runAnswerCorrectness(ctx context.Context, j Judge, s *Sample, cfg *RunnerConfig, r *Result) {
	if r.lacks(AnswerCorrectness, blank(s.Answer) || blank(s.Reference), "answer correctness needs both an answer and a reference") {
		return
	}
	weights := cfg.ACWeights
	if weights == ([2]float64{}) {
		weights = DefaultACWeights
	}
	// The two extractions and the embedding are independent.
	var (
		sim      float64
		ans, ref []string
	)
	calls := []func() error{func() (err error) { ans, ref, err = statementsOfBoth(ctx, j, s, true); return err }}
	if weights[1] != 0 {
		calls = append(calls, func() (err error) { sim, err = similarity(ctx, j, s); return err })
	}
	if err := together(calls...); err != nil {
		r.fail(AnswerCorrectness, err)
		return
	}
	tr := &AnswerCorrectnessTrace{AnswerStatements: orEmpty(ans), ReferenceStatements: orEmpty(ref), Weights: weights,
		Classes: CorrectnessClasses{TP: []CorrectnessItem{}, FP: []CorrectnessItem{}, FN: []CorrectnessItem{}}}
	if weights[1] != 0 {
		tr.Similarity = &sim
	}
	if len(ans) == 0 || len(ref) == 0 {
		from := "the answer nor from the reference"
		if len(ans) > 0 {
			from = "the reference"
		} else if len(ref) > 0 {
			from = "the answer"
		}
		r.AnswerCorrectness = tr
		r.set(AnswerCorrectness, StatusNoStatements, nil, "the judge extracted no statements from "+from)
		return
	}
	cls, err := j.CorrectnessClassify(ctx, s, ans, ref)
	if err != nil {
		r.fail(AnswerCorrectness, err)
		return
	}
	tr.Classes = CorrectnessClasses{TP: orEmpty(cls.TP), FP: orEmpty(cls.FP), FN: orEmpty(cls.FN)}
	tr.FScore = fBetaScore(len(cls.TP), len(cls.FP), len(cls.FN), correctnessBeta)
	score := CorrectnessScore(tr.FScore, sim, weights)
	r.AnswerCorrectness = tr
	r.set(AnswerCorrectness, StatusOK, &score, "")
}

// statementsOfBoth extracts the answer's statements and, with reference,
// the reference's, at once; the error is the answer's, else the reference's.
func statementsOfBoth(ctx context.Context, j Judge, s *Sample, reference bool) (ans, ref []string, err error) {
	calls := []func() error{func() (err error) { ans, err = j.Statements(ctx, s); return err }}
	if reference {
		calls = append(calls, func() (err error) { ref, err = j.ReferenceStatements(ctx, s); return err })
	}
	err = together(calls...)
	return ans, ref, err
}

// together makes the calls at once (they are independent) and returns
// the first error in their order, nil when none failed.
func together(calls ...func() error) error {
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, call := range calls {
		wg.Go(func() {
			defer func() {
				if p := recover(); p != nil {
					errs[i] = panicked(p)
				}
			}()
			errs[i] = call()
		})
	}
	wg.Wait()
	return cmp.Or(errs...)
}

// orEmpty is s, or [] for none: a trace lists no item as [], not null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
