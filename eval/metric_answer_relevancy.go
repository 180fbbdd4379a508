package eval

import (
	"context"
	"fmt"
	"slices"
)

// answerRelevancyDef: the mean cosine of the generated questions to the
// question, 0 when every one is noncommittal (runAnswerRelevancy).
var answerRelevancyDef = MetricDef{
	Name: AnswerRelevancy, Abbrev: "AR", Aliases: []string{"relevancy"},
	Run: func(ctx context.Context, j Judge, s *Sample, cfg *RunnerConfig, part *Result) {
		runAnswerRelevancy(ctx, j, s, cfg.Strictness, part)
	},
	CopyTrace: func(dst, src *Result) { dst.AnswerRelevancy = src.AnswerRelevancy },
	Evidence: func(r *Result) []string {
		t := r.AnswerRelevancy
		if t == nil {
			return nil
		}
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
	},
	Changes: func(a, b *Result) []JudgementChange {
		if a.AnswerRelevancy == nil || b.AnswerRelevancy == nil {
			return nil
		}
		qa, qb := a.AnswerRelevancy.Questions, b.AnswerRelevancy.Questions
		return listChanges(AnswerRelevancy, "question", qa, qb, func(q GeneratedQuestion) (string, string) {
			// The question is the judgement itself: no separate text.
			return "", fmt.Sprintf("%s (cosine %.3f, noncommittal %d)", q.Question, q.Cosine, q.Noncommittal)
		})
	},
	Labels: &LabelDef{
		Task: LabelAnswerRelevancy,
		Items: func(r *Result) []LabelledItem {
			if r.AnswerRelevancy == nil {
				return nil
			}
			out := make([]LabelledItem, len(r.AnswerRelevancy.Questions))
			for i, q := range r.AnswerRelevancy.Questions {
				out[i] = LabelledItem{q.Question, q.Noncommittal}
			}
			return out
		},
		Rescore: func(c *Result, values map[int]int) float64 {
			tr := *c.AnswerRelevancy
			tr.Questions = slices.Clone(tr.Questions)
			for pos, v := range values {
				tr.Questions[pos].Noncommittal = v
			}
			var score float64
			score, tr.AllNoncommittal = RelevancyScore(tr.Questions)
			c.AnswerRelevancy = &tr
			return score
		},
	},
}
