package eval

import "fmt"

// contextEntityRecallDef: the share of the reference's entities found among
// the contexts' (runContextEntityRecall).
var contextEntityRecallDef = traced(MetricDef{
	Name: ContextEntityRecall, Abbrev: "ER", Aliases: []string{"entity_recall"},
	Run: runContextEntityRecall,
}, func(r *Result) **EntityRecallTrace { return &r.ContextEntityRecall }, func(t *EntityRecallTrace, r *Result) []string {
	if r.Status[ContextEntityRecall] != StatusOK || len(t.Reference) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("entity recall = |found| / |reference entities| = %d/%d = %.3f",
		t.Found, len(t.Reference), float64(t.Found)/float64(len(t.Reference)))}
}, func(t *EntityRecallTrace) []string {
	return lines(t.Reference, func(e EntityMatch) bool { return !e.Found }, func(e EntityMatch) string {
		return fmt.Sprintf("entity of the reference not in the contexts: %q", e.Entity)
	})
}, entityChanges)
