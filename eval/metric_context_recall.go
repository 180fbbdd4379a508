package eval

import "fmt"

// contextRecallDef: the reference's statements attributed to the chunks /
// its statements (runContextRecall).
var contextRecallDef = traced(MetricDef{
	Name: ContextRecall, Abbrev: "CR", Aliases: []string{"recall"},
	Run: runContextRecall,
	Labels: itemLabels(LabelContextRecall, recallTrace, func(t *ContextRecallTrace) *[]Classification { return &t.Classifications },
		func(c Classification) LabelledItem { return LabelledItem{c.Statement, c.Attributed} },
		func(c *Classification, value int) { c.Attributed = value },
		func(t *ContextRecallTrace) (score float64) {
			t.Attributed, score = RecallScore(t.Classifications)
			return score
		}),
}, recallTrace, func(t *ContextRecallTrace, _ *Result) []string {
	return share(t.Attributed, len(t.Classifications), "reference statements attributed")
}, func(t *ContextRecallTrace) []string {
	return lines(t.Classifications, func(c Classification) bool { return c.Attributed == 0 }, func(c Classification) string {
		return fmt.Sprintf("not attributed: %q: %s", c.Statement, c.Reason)
	})
}, func(a, b *ContextRecallTrace) []JudgementChange {
	return listChanges(ContextRecall, "reference statement", a.Classifications, b.Classifications, func(c Classification) (string, string) {
		return c.Statement, fmt.Sprintf("%d: %s", c.Attributed, c.Reason)
	})
})

func recallTrace(r *Result) **ContextRecallTrace { return &r.ContextRecall }
