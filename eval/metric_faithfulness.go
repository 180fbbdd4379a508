package eval

import "fmt"

// faithfulnessDef: supported statements / statements sent (runFaithfulness).
var faithfulnessDef = traced(MetricDef{
	Name: Faithfulness, Abbrev: "F", Aliases: []string{"faith"},
	Run: runFaithfulness,
	Labels: itemLabels(LabelFaithfulness, faithfulnessTrace, func(t *FaithfulnessTrace) *[]StatementVerdict { return &t.Statements },
		func(v StatementVerdict) LabelledItem { return LabelledItem{v.Statement, v.Verdict} },
		func(v *StatementVerdict, value int) { v.Verdict = value },
		func(t *FaithfulnessTrace) (score float64) {
			t.Supported, score = FaithfulnessScore(t.Statements)
			return score
		}),
}, faithfulnessTrace, func(t *FaithfulnessTrace, _ *Result) []string {
	return share(t.Supported, len(t.Statements), "statements supported")
}, func(t *FaithfulnessTrace) []string {
	return append(verdictLines(t.Statements, "unsupported"), contradictionLines(t.Statements)...)
}, func(a, b *FaithfulnessTrace) []JudgementChange {
	return listChanges(Faithfulness, "statement", a.Statements, b.Statements, func(v StatementVerdict) (string, string) {
		return v.Statement, fmt.Sprintf("%d: %s", v.Verdict, v.Reason)
	})
})

func faithfulnessTrace(r *Result) **FaithfulnessTrace { return &r.Faithfulness }
