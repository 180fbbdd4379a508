package eval

import (
	"context"
	"fmt"
)

// answerSimilarityDef: the cosine of the answer's and the reference's
// embeddings (runSemanticSimilarity).
var answerSimilarityDef = MetricDef{
	Name: AnswerSimilarity, Abbrev: "AS", Aliases: []string{"similarity"},
	Run: func(ctx context.Context, j Judge, s *Sample, _ *RunnerConfig, part *Result) {
		runSemanticSimilarity(ctx, j, s, part)
	},
	CopyTrace: func(dst, src *Result) { dst.AnswerSimilarity = src.AnswerSimilarity },
	Evidence: func(r *Result) []string {
		if t := r.AnswerSimilarity; t != nil {
			return []string{fmt.Sprintf("cosine of the answer to the reference %.3f", t.Cosine)}
		}
		return nil
	},
	Changes: func(a, b *Result) []JudgementChange { return nil },
}
