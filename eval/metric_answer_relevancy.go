package eval

import "fmt"

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
}, relevancyTrace, func(t *AnswerRelevancyTrace) []string {
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
