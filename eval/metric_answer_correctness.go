package eval

import "fmt"

// answerCorrectnessDef: the F-score of the answer's statements against the
// reference's, weighed with answer similarity (runAnswerCorrectness).
var answerCorrectnessDef = traced(MetricDef{
	Name: AnswerCorrectness, Abbrev: "AC", Aliases: []string{"correctness"},
	Run: runAnswerCorrectness,
}, func(r *Result) **AnswerCorrectnessTrace { return &r.AnswerCorrectness }, (*AnswerCorrectnessTrace).formula, func(t *AnswerCorrectnessTrace) []string {
	out := lines(t.Classes.FP, func(CorrectnessItem) bool { return true }, func(c CorrectnessItem) string {
		return fmt.Sprintf("FP, not in the reference: %q: %s", c.Statement, c.Reason)
	})
	return append(out, lines(t.Classes.FN, func(CorrectnessItem) bool { return true }, func(c CorrectnessItem) string {
		return fmt.Sprintf("FN, missing from the answer: %q: %s", c.Statement, c.Reason)
	})...)
}, func(a, b *AnswerCorrectnessTrace) []JudgementChange {
	var out []JudgementChange
	for _, side := range []struct {
		what string
		fn   func(*AnswerCorrectnessTrace) []correctnessJudgement
	}{{"answer statement", answerJudgements}, {"reference statement", referenceJudgements}} {
		out = append(out, listChanges(AnswerCorrectness, side.what, side.fn(a), side.fn(b), func(j correctnessJudgement) (string, string) {
			return j.text, j.judgement
		})...)
	}
	return out
})

// formula is how the score came from the classes and the similarity.
func (t *AnswerCorrectnessTrace) formula(r *Result) []string {
	if r.Status[AnswerCorrectness] != StatusOK {
		return nil
	}
	c := t.Classes
	tp, fp, fn := len(c.TP), len(c.FP), len(c.FN)
	out := []string{fmt.Sprintf("F1 = 2*TP / (2*TP + FP + FN) = 2*%d / (2*%d + %d + %d) = %.3f", tp, tp, fp, fn, t.FScore)}
	w := t.Weights
	if t.Similarity == nil {
		return append(out, fmt.Sprintf("score = F1 = %.3f (similarity weight 0)", t.FScore))
	}
	score := CorrectnessScore(t.FScore, *t.Similarity, w)
	return append(out, fmt.Sprintf("score = (%g*F1 + %g*similarity) / (%g + %g) = (%g*%.3f + %g*%.3f) / %g = %.3f",
		w[0], w[1], w[0], w[1], w[0], t.FScore, w[1], *t.Similarity, w[0]+w[1], score))
}
