package eval

import (
	"cmp"
	"fmt"

	"github.com/ragscope/ragscope/internal/sanitize"
)

// factualCorrectnessDef: the answer's claims against the reference and the
// reference's against the answer, as --fc-mode reads them
// (runFactualCorrectness).
var factualCorrectnessDef = traced(MetricDef{
	Name: FactualCorrectness, Abbrev: "FC", Aliases: []string{"factual"},
	Run: runFactualCorrectness,
}, func(r *Result) **FactualCorrectnessTrace { return &r.FactualCorrectness }, (*FactualCorrectnessTrace).formula, func(t *FactualCorrectnessTrace) []string {
	return append(verdictLines(t.AnswerClaims, "FP, the reference does not support"),
		verdictLines(t.ReferenceClaims, "FN, missing from the answer")...)
}, func(a, b *FactualCorrectnessTrace) []JudgementChange {
	var out []JudgementChange
	for _, side := range []struct {
		what    string
		va, vb  []StatementVerdict
		yes, no string
	}{
		{"answer claim", a.AnswerClaims, b.AnswerClaims, "TP", "FP"},
		{"reference claim", a.ReferenceClaims, b.ReferenceClaims, "covered", "FN"},
	} {
		out = append(out, listChanges(FactualCorrectness, side.what, side.va, side.vb, func(v StatementVerdict) (string, string) {
			class := side.no
			if v.Verdict == 1 {
				class = side.yes
			}
			return v.Statement, class + ": " + v.Reason
		})...)
	}
	return out
})

// formula is the precision, the recall and the F-score the mode scores,
// from the counts the score was computed from.
func (t *FactualCorrectnessTrace) formula(r *Result) []string {
	if r.Status[FactualCorrectness] != StatusOK {
		return nil
	}
	beta := cmp.Or(t.Beta, 1) // a trace from before β was recorded has none
	tp, fp, fn := t.TP, t.FP, t.FN
	prec, rec := factualScore(FCModePrecision, tp, fp, fn, beta), factualScore(FCModeRecall, tp, fp, fn, beta)
	var out []string
	if t.Mode != FCModeRecall {
		out = append(out, fmt.Sprintf("precision = TP / (TP + FP) = %d / (%d + %d) = %.3f", tp, tp, fp, prec))
	}
	if t.Mode != FCModePrecision {
		out = append(out, fmt.Sprintf("recall = TP / (TP + FN) = %d / (%d + %d) = %.3f", tp, tp, fn, rec))
	}
	b2 := beta * beta
	switch {
	case t.Mode == FCModePrecision || t.Mode == FCModeRecall:
	case tp == 0:
		out = append(out, "F1 = 0.000 (TP = 0: no claim of the answer is in the reference)")
	case beta == 1:
		out = append(out, fmt.Sprintf("F1 = 2*P*R / (P + R) = 2*%.3f*%.3f / (%.3f + %.3f) = %.3f", prec, rec, prec, rec, 2*prec*rec/(prec+rec)))
	default:
		out = append(out, fmt.Sprintf("F(beta=%g) = (1 + %g)*P*R / (%g*P + R) = %g*%.3f*%.3f / (%g*%.3f + %.3f) = %.3f",
			beta, b2, b2, 1+b2, prec, rec, b2, prec, rec, (1+b2)*prec*rec/(b2*prec+rec)))
	}
	return out
}

// ModeLine names the mode the claims were checked in, and β when not 1.
func (t *FactualCorrectnessTrace) ModeLine() string {
	line := "mode " + sanitize.Line(t.Mode)
	if beta := cmp.Or(t.Beta, 1); beta != 1 { // a trace from before β was recorded has none
		line += fmt.Sprintf(" (beta = %g)", beta)
	}
	return line
}
