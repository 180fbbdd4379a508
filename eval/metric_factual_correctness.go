package eval

import "context"

// factualCorrectnessDef: the answer's claims against the reference and the
// reference's against the answer, as --fc-mode reads them
// (runFactualCorrectness).
var factualCorrectnessDef = MetricDef{
	Name: FactualCorrectness, Abbrev: "FC", Aliases: []string{"factual"},
	Run: func(ctx context.Context, j Judge, s *Sample, cfg *RunnerConfig, part *Result) {
		runFactualCorrectness(ctx, j, s, cfg.FCMode, part)
	},
	CopyTrace: func(dst, src *Result) { dst.FactualCorrectness = src.FactualCorrectness },
	Evidence: func(r *Result) []string {
		t := r.FactualCorrectness
		if t == nil {
			return nil
		}
		return append(verdictLines(t.AnswerClaims, "FP, the reference does not support"),
			verdictLines(t.ReferenceClaims, "FN, missing from the answer")...)
	},
	Changes: func(a, b *Result) []JudgementChange {
		if a.FactualCorrectness == nil || b.FactualCorrectness == nil {
			return nil
		}
		var out []JudgementChange
		for _, side := range []struct {
			what    string
			list    func(*FactualCorrectnessTrace) []StatementVerdict
			yes, no string
		}{
			{"answer claim", func(t *FactualCorrectnessTrace) []StatementVerdict { return t.AnswerClaims }, "TP", "FP"},
			{"reference claim", func(t *FactualCorrectnessTrace) []StatementVerdict { return t.ReferenceClaims }, "covered", "FN"},
		} {
			va, vb := side.list(a.FactualCorrectness), side.list(b.FactualCorrectness)
			out = append(out, listChanges(FactualCorrectness, side.what, va, vb, func(v StatementVerdict) (string, string) {
				class := side.no
				if v.Verdict == 1 {
					class = side.yes
				}
				return v.Statement, class + ": " + v.Reason
			})...)
		}
		return out
	},
}
