package eval

// factualCorrectnessDef: the answer's claims against the reference and the
// reference's against the answer, as --fc-mode reads them
// (runFactualCorrectness).
var factualCorrectnessDef = traced(MetricDef{
	Name: FactualCorrectness, Abbrev: "FC", Aliases: []string{"factual"},
	Run: runFactualCorrectness,
}, func(r *Result) **FactualCorrectnessTrace { return &r.FactualCorrectness }, func(t *FactualCorrectnessTrace) []string {
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
