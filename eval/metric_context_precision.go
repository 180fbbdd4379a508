package eval

import (
	"context"
	"fmt"
	"slices"
	"strconv"
)

// contextPrecisionDef: the average precision of the chunks judged useful
// for arriving at the reference (runContextPrecision).
var contextPrecisionDef = chunkMetric(ContextPrecision, "CP", "precision", runContextPrecision,
	func(r *Result) **ContextPrecisionTrace { return &r.ContextPrecision }, "not useful", LabelContextPrecision)

// contextUtilizationDef: context precision judged against the answer
// (runContextUtilization), the same trace and formula.
var contextUtilizationDef = chunkMetric(ContextUtilization, "CU", "utilization", runContextUtilization,
	func(r *Result) **ContextPrecisionTrace { return &r.ContextUtilization }, "not useful for the answer", LabelContextUtilization)

// chunkMetric is a metric whose trace is a verdict per ranked chunk, in
// the result's field: context precision and context utilization.
func chunkMetric(name Metric, abbrev, alias string, run func(context.Context, Judge, *Sample, *Result),
	field func(r *Result) **ContextPrecisionTrace, notUseful, labelTask string) MetricDef {
	return MetricDef{
		Name: name, Abbrev: abbrev, Aliases: []string{alias},
		Run: func(ctx context.Context, j Judge, s *Sample, _ *RunnerConfig, part *Result) {
			run(ctx, j, s, part)
		},
		CopyTrace: func(dst, src *Result) { *field(dst) = *field(src) },
		Evidence:  func(r *Result) []string { return chunkEvidence(*field(r), notUseful) },
		Changes: func(a, b *Result) []JudgementChange {
			return chunkChanges(name, *field(a), *field(b))
		},
		Labels: chunkLabels(labelTask, field),
	}
}

func chunkEvidence(t *ContextPrecisionTrace, what string) []string {
	if t == nil {
		return nil
	}
	return lines(t.Chunks, func(c ChunkVerdict) bool { return c.Verdict == 0 }, func(c ChunkVerdict) string {
		return fmt.Sprintf("chunk %d %s: %s", c.Rank, what, c.Reason)
	})
}

func chunkChanges(m Metric, ta, tb *ContextPrecisionTrace) []JudgementChange {
	if ta == nil || tb == nil {
		return nil
	}
	return listChanges(m, "chunk", ta.Chunks, tb.Chunks, func(c ChunkVerdict) (string, string) {
		return "", fmt.Sprintf("%d: %s", c.Verdict, c.Reason)
	})
}

// chunkLabels labels the chunk verdicts of the trace field names: a chunk
// is named by its rank.
func chunkLabels(task string, field func(r *Result) **ContextPrecisionTrace) *LabelDef {
	return &LabelDef{
		Task: task,
		Items: func(r *Result) []LabelledItem {
			t := *field(r)
			if t == nil {
				return nil
			}
			out := make([]LabelledItem, len(t.Chunks))
			for i, c := range t.Chunks {
				out[i] = LabelledItem{strconv.Itoa(c.Rank), c.Verdict}
			}
			return out
		},
		Rescore: func(c *Result, values map[int]int) float64 {
			tr := **field(c)
			tr.Chunks = slices.Clone(tr.Chunks)
			for pos, v := range values {
				tr.Chunks[pos].Verdict = v
			}
			var score float64
			score, tr.Precisions = AveragePrecision(tr.Chunks)
			*field(c) = &tr
			return score
		},
	}
}
