package eval

import (
	"context"
	"fmt"
	"slices"
)

// contextRecallDef: the reference's statements attributed to the chunks /
// its statements (runContextRecall).
var contextRecallDef = MetricDef{
	Name: ContextRecall, Abbrev: "CR", Aliases: []string{"recall"},
	Run: func(ctx context.Context, j Judge, s *Sample, _ *RunnerConfig, part *Result) {
		runContextRecall(ctx, j, s, part)
	},
	CopyTrace: func(dst, src *Result) { dst.ContextRecall = src.ContextRecall },
	Evidence: func(r *Result) []string {
		if t := r.ContextRecall; t != nil {
			return lines(t.Classifications, func(c Classification) bool { return c.Attributed == 0 }, func(c Classification) string {
				return fmt.Sprintf("not attributed: %q: %s", c.Statement, c.Reason)
			})
		}
		return nil
	},
	Changes: func(a, b *Result) []JudgementChange {
		if a.ContextRecall == nil || b.ContextRecall == nil {
			return nil
		}
		ca, cb := a.ContextRecall.Classifications, b.ContextRecall.Classifications
		return listChanges(ContextRecall, "reference statement", ca, cb, func(c Classification) (string, string) {
			return c.Statement, fmt.Sprintf("%d: %s", c.Attributed, c.Reason)
		})
	},
	Labels: &LabelDef{
		Task: LabelContextRecall,
		Items: func(r *Result) []LabelledItem {
			if r.ContextRecall == nil {
				return nil
			}
			out := make([]LabelledItem, len(r.ContextRecall.Classifications))
			for i, c := range r.ContextRecall.Classifications {
				out[i] = LabelledItem{c.Statement, c.Attributed}
			}
			return out
		},
		Rescore: func(c *Result, values map[int]int) float64 {
			tr := *c.ContextRecall
			tr.Classifications = slices.Clone(tr.Classifications)
			for pos, v := range values {
				tr.Classifications[pos].Attributed = v
			}
			var score float64
			tr.Attributed, score = RecallScore(tr.Classifications)
			c.ContextRecall = &tr
			return score
		},
	},
}
