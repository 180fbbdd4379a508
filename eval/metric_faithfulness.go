package eval

import (
	"context"
	"fmt"
	"slices"
)

// faithfulnessDef: supported statements / statements sent (runFaithfulness).
var faithfulnessDef = MetricDef{
	Name: Faithfulness, Abbrev: "F", Aliases: []string{"faith"},
	Run: func(ctx context.Context, j Judge, s *Sample, cfg *RunnerConfig, part *Result) {
		runFaithfulness(ctx, j, s, cfg.HistorySupport, part)
	},
	CopyTrace: func(dst, src *Result) { dst.Faithfulness = src.Faithfulness },
	Evidence: func(r *Result) []string {
		if t := r.Faithfulness; t != nil {
			return append(verdictLines(t.Statements, "unsupported"), contradictionLines(t.Statements)...)
		}
		return nil
	},
	Changes: func(a, b *Result) []JudgementChange {
		if a.Faithfulness == nil || b.Faithfulness == nil {
			return nil
		}
		sa, sb := a.Faithfulness.Statements, b.Faithfulness.Statements
		return listChanges(Faithfulness, "statement", sa, sb, func(v StatementVerdict) (string, string) {
			return v.Statement, fmt.Sprintf("%d: %s", v.Verdict, v.Reason)
		})
	},
	Labels: &LabelDef{
		Task: LabelFaithfulness,
		Items: func(r *Result) []LabelledItem {
			if r.Faithfulness == nil {
				return nil
			}
			out := make([]LabelledItem, len(r.Faithfulness.Statements))
			for i, v := range r.Faithfulness.Statements {
				out[i] = LabelledItem{v.Statement, v.Verdict}
			}
			return out
		},
		Rescore: func(c *Result, values map[int]int) float64 {
			tr := *c.Faithfulness
			tr.Statements = slices.Clone(tr.Statements)
			for pos, v := range values {
				tr.Statements[pos].Verdict = v
			}
			var score float64
			tr.Supported, score = FaithfulnessScore(tr.Statements)
			c.Faithfulness = &tr
			return score
		},
	},
}
