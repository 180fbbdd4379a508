package eval

import (
	"fmt"
	"strings"
)

// answerRelevancyDef: the mean cosine of the generated questions to the
// question, 0 when every one is noncommittal (runAnswerRelevancy).
var answerRelevancyDef = traced(MetricDef{
	Name: AnswerRelevancy, Abbrev: "AR", Aliases: []string{"relevancy"},
	Run: runAnswerRelevancy,
	Labels: itemLabels(LabelAnswerRelevancy, relevancyTrace, func(t *AnswerRelevancyTrace) *[]GeneratedQuestion { return &t.Questions },
		func(q GeneratedQuestion) LabelledItem { return LabelledItem{q.Question, q.Noncommittal} },
		func(q *GeneratedQuestion, value int) { q.Noncommittal = value },
		func(t *AnswerRelevancyTrace) (score float64) {
			score, t.AllNoncommittal = RelevancyScore(t.Questions)
			return score
		}),
}, relevancyTrace, (*AnswerRelevancyTrace).formula, func(t *AnswerRelevancyTrace) []string {
	if out := lines(t.Questions, func(q GeneratedQuestion) bool { return q.Noncommittal == 1 }, func(q GeneratedQuestion) string {
		return fmt.Sprintf("noncommittal: %q", q.Question)
	}); len(out) > 0 {
		return out
	}
	if out := lines(t.Questions, func(GeneratedQuestion) bool { return true }, func(q GeneratedQuestion) string {
		return fmt.Sprintf("generated question (cosine %.3f): %q", q.Cosine, q.Question)
	}); len(out) > 0 {
		return out
	}
	if t.NoncommittalHint != "" {
		return []string{"noncommittal: " + t.NoncommittalHint}
	}
	return nil
}, func(a, b *AnswerRelevancyTrace) []JudgementChange {
	return listChanges(AnswerRelevancy, "question", a.Questions, b.Questions, func(q GeneratedQuestion) (string, string) {
		// The question is the judgement itself: no separate text.
		return "", fmt.Sprintf("%s (cosine %.3f, noncommittal %d)", q.Question, q.Cosine, q.Noncommittal)
	})
})

func relevancyTrace(r *Result) **AnswerRelevancyTrace { return &r.AnswerRelevancy }

// formula is the mean of the generated questions' cosines and the
// zeroing rule the engine applied, or the offline judge's cosine.
func (t *AnswerRelevancyTrace) formula(r *Result) []string {
	score, scored := r.Score(AnswerRelevancy)
	if t.Mode == AnswerSimilarityMode {
		what := "cosine(answer, question) = %.3f, shared words only: no diagnosis uses it"
		if scored {
			what = "score = " + what
		}
		return []string{"offline judge: no questions generated; " + fmt.Sprintf(what, t.AnswerCosine)}
	}
	if len(t.Questions) == 0 {
		return nil
	}
	terms := make([]string, len(t.Questions))
	sum, anyNoncommittal := 0.0, false
	for i, q := range t.Questions {
		terms[i] = fmt.Sprintf("%.3f", q.Cosine)
		if terms[i] == "-0.000" { // as the terminal shows the cosine beside the question
			terms[i] = "0.000"
		}
		sum += q.Cosine
		anyNoncommittal = anyNoncommittal || q.Noncommittal == 1
	}
	mean := sum / float64(len(t.Questions))
	out := []string{fmt.Sprintf("mean(%s) = %.3f", strings.Join(terms, ", "), mean)}
	switch {
	case t.AllNoncommittal:
		out = append(out, "every generated question was flagged noncommittal: the answer evades, score zeroed = 0.000")
	case anyNoncommittal && scored && score == 0 && mean != 0:
		out = append(out, "a generated question was flagged noncommittal: the answer evades, score zeroed = 0.000")
	}
	return out
}
