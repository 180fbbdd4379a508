package eval

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// contextPrecisionDef: the average precision of the chunks judged useful
// for arriving at the reference (runContextPrecision).
var contextPrecisionDef = chunkMetric(ContextPrecision, "CP", "precision", runContextPrecision,
	func(r *Result) **ContextPrecisionTrace { return &r.ContextPrecision }, "", LabelContextPrecision)

// contextUtilizationDef: context precision judged against the answer
// (runContextUtilization), the same trace and formula.
var contextUtilizationDef = chunkMetric(ContextUtilization, "CU", "utilization", runContextUtilization,
	func(r *Result) **ContextPrecisionTrace { return &r.ContextUtilization }, " for the answer", LabelContextUtilization)

// chunkMetric is a metric whose trace is a verdict per ranked chunk, in
// the result's field, each judged useful (for what) or not; a chunk is
// labelled by its rank.
func chunkMetric(name Metric, abbrev, alias string, run func(context.Context, Judge, *Sample, *RunnerConfig, *Result),
	field func(r *Result) **ContextPrecisionTrace, what, labelTask string) MetricDef {
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
	}, field, func(t *ContextPrecisionTrace, _ *Result) []string {
		return t.formula(what)
	}, func(t *ContextPrecisionTrace) []string {
		return lines(t.Chunks, func(c ChunkVerdict) bool { return c.Verdict == 0 }, func(c ChunkVerdict) string {
			return fmt.Sprintf("chunk %d not useful%s: %s", c.Rank, what, c.Reason)
		})
	}, func(a, b *ContextPrecisionTrace) []JudgementChange {
		return listChanges(name, "chunk", a.Chunks, b.Chunks, func(c ChunkVerdict) (string, string) {
			return "", fmt.Sprintf("%d: %s", c.Verdict, c.Reason)
		})
	})
}

// formula is the average of the precisions at the useful chunks.
func (t *ContextPrecisionTrace) formula(what string) []string {
	var terms []string
	sum, useful := 0.0, 0
	for i, c := range t.Chunks {
		if c.Verdict != 1 {
			continue
		}
		useful++
		if i < len(t.Precisions) {
			terms = append(terms, fmt.Sprintf("%.3f", t.Precisions[i]))
			sum += t.Precisions[i]
		}
	}
	switch {
	case len(t.Chunks) == 0:
		return nil
	case useful == 0:
		return []string{"no chunk judged useful" + what + ": average precision = 0.000"}
	}
	return []string{fmt.Sprintf("average precision = (%s) / %d useful = %.3f", strings.Join(terms, " + "), useful, sum/float64(useful))}
}
