package eval

import "fmt"

// contextEntityRecallDef: the share of the reference's entities found among
// the contexts' (runContextEntityRecall).
var contextEntityRecallDef = traced(MetricDef{
	Name: ContextEntityRecall, Abbrev: "ER", Aliases: []string{"entity_recall"},
	Run: runContextEntityRecall,
}, func(r *Result) **EntityRecallTrace { return &r.ContextEntityRecall }, func(t *EntityRecallTrace) []string {
	return lines(t.Reference, func(e EntityMatch) bool { return !e.Found }, func(e EntityMatch) string {
		return fmt.Sprintf("entity of the reference not in the contexts: %q", e.Entity)
	})
}, entityChanges)
