package eval

import "fmt"

// answerSimilarityDef: the cosine of the answer's and the reference's
// embeddings (runSemanticSimilarity).
var answerSimilarityDef = traced(MetricDef{
	Name: AnswerSimilarity, Abbrev: "AS", Aliases: []string{"similarity"},
	Run: runSemanticSimilarity,
}, func(r *Result) **AnswerSimilarityTrace { return &r.AnswerSimilarity }, func(t *AnswerSimilarityTrace, _ *Result) []string {
	return []string{fmt.Sprintf("score = cosine(E(answer), E(reference)) = %.3f", t.Cosine)}
}, func(t *AnswerSimilarityTrace) []string {
	return []string{fmt.Sprintf("cosine of the answer to the reference %.3f", t.Cosine)}
}, nil)
