package eval

import (
	"context"
	"fmt"
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
// the result's field; a chunk is labelled by its rank.
func chunkMetric(name Metric, abbrev, alias string, run func(context.Context, Judge, *Sample, *RunnerConfig, *Result),
	field func(r *Result) **ContextPrecisionTrace, notUseful, labelTask string) MetricDef {
	return traced(MetricDef{
		Name: name, Abbrev: abbrev, Aliases: []string{alias},
		Run: run,
		Labels: itemLabels(labelTask, field, func(t *ContextPrecisionTrace) *[]ChunkVerdict { return &t.Chunks },
			func(c ChunkVerdict) LabelledItem { return LabelledItem{strconv.Itoa(c.Rank), c.Verdict} },
			func(c *ChunkVerdict, value int) { c.Verdict = value },
			func(t *ContextPrecisionTrace) (score float64) {
				score, t.Precisions = AveragePrecision(t.Chunks)
				return score
			}),
	}, field, func(t *ContextPrecisionTrace) []string {
		return lines(t.Chunks, func(c ChunkVerdict) bool { return c.Verdict == 0 }, func(c ChunkVerdict) string {
			return fmt.Sprintf("chunk %d %s: %s", c.Rank, notUseful, c.Reason)
		})
	}, func(a, b *ContextPrecisionTrace) []JudgementChange {
		return listChanges(name, "chunk", a.Chunks, b.Chunks, func(c ChunkVerdict) (string, string) {
			return "", fmt.Sprintf("%d: %s", c.Verdict, c.Reason)
		})
	})
}
