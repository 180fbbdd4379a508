package eval

import (
	"context"
	"fmt"
)

// contextEntityRecallDef: the share of the reference's entities found among
// the contexts' (runContextEntityRecall).
var contextEntityRecallDef = MetricDef{
	Name: ContextEntityRecall, Abbrev: "ER", Aliases: []string{"entity_recall"},
	Run: func(ctx context.Context, j Judge, s *Sample, _ *RunnerConfig, part *Result) {
		runContextEntityRecall(ctx, j, s, part)
	},
	CopyTrace: func(dst, src *Result) { dst.ContextEntityRecall = src.ContextEntityRecall },
	Evidence: func(r *Result) []string {
		if t := r.ContextEntityRecall; t != nil {
			return lines(t.Reference, func(e EntityMatch) bool { return !e.Found }, func(e EntityMatch) string {
				return fmt.Sprintf("entity of the reference not in the contexts: %q", e.Entity)
			})
		}
		return nil
	},
	Changes: func(a, b *Result) []JudgementChange {
		if a.ContextEntityRecall == nil || b.ContextEntityRecall == nil {
			return nil
		}
		return entityChanges(a.ContextEntityRecall, b.ContextEntityRecall)
	},
}
