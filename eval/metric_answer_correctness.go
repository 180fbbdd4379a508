package eval

import "fmt"

// answerCorrectnessDef: the F-score of the answer's statements against the
// reference's, weighed with answer similarity (runAnswerCorrectness).
var answerCorrectnessDef = traced(MetricDef{
	Name: AnswerCorrectness, Abbrev: "AC", Aliases: []string{"correctness"},
	Run: runAnswerCorrectness,
}, func(r *Result) **AnswerCorrectnessTrace { return &r.AnswerCorrectness }, func(t *AnswerCorrectnessTrace) []string {
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
