package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// MetricDef is one metric as a unit: its names, how it runs on a judge,
// and how its trace reads as judgements. The runner, reports, diff, gate
// evidence and labels go through the registry (Def), never a switch on the
// metric; each definition sits in a file of its own (metric_*.go).
type MetricDef struct {
	Name Metric
	// Abbrev is the column title in narrow tables; Aliases are the other
	// names analysts type in filters and gates.
	Abbrev  string
	Aliases []string
	// LowerIsBetter: a lower score is the better one (noise sensitivity).
	LowerIsBetter bool
	// Run evaluates the metric of one sample into part: its trace, status
	// and score (see Result.set and Result.fail).
	Run func(ctx context.Context, j Judge, s *Sample, cfg *RunnerConfig, part *Result)
	// CopyTrace sets dst's trace of the metric to src's.
	CopyTrace func(dst, src *Result)
	// Evidence lists the judgements behind a poor score, one line each;
	// nil when the trace has none.
	Evidence func(r *Result) []string
	// Changes lists what the judge decided differently for the metric
	// between two results of one sample (nil when a side has no trace).
	Changes func(a, b *Result) []JudgementChange
	// Formula is how the score came about, every term shown, as the
	// terminal and the HTML report print it under the judgements; nil
	// when there is none to show.
	Formula func(r *Result) []string
	// Labels, when set, are how a person labels the metric's judgements.
	Labels *LabelDef
}

// LabelDef is how a metric's judgements are labelled and rescored.
type LabelDef struct {
	// Task is the label task (the judge task that made the judgements).
	Task string
	// Items lists the judged items of a trace by position: the text a label
	// names and the judge's value; nil without a trace.
	Items func(r *Result) []LabelledItem
	// Rescore gives c, a shallow copy of a result, a trace of its own with
	// the values in place of the judge's, and returns its score.
	Rescore func(c *Result, values map[int]int) float64
}

// LabelledItem is a judged item's text and the judge's 0/1 value.
type LabelledItem struct {
	Text  string
	Value int
}

// metricDefs are the definitions, in the order of allMetrics.
var metricDefs = [NumMetrics]*MetricDef{
	&faithfulnessDef, &answerRelevancyDef, &contextPrecisionDef, &contextRecallDef, &contextUtilizationDef,
	&answerSimilarityDef, &answerCorrectnessDef, &factualCorrectnessDef, &contextEntityRecallDef, &noiseSensitivityDef,
}

// Def is the definition of a metric this version knows, nil otherwise.
func Def(m Metric) *MetricDef {
	if i := slices.Index(AllMetrics, m); i >= 0 {
		return metricDefs[i]
	}
	return nil
}

// metricAliases are the names analysts type (the TUI's filter, gates):
// short aliases and the public names, so a copied column title works.
var metricAliases = func() map[string]Metric {
	out := map[string]Metric{}
	for i, d := range metricDefs {
		if d.Name != allMetrics[i] {
			panic(fmt.Sprintf("eval: metric definition %d is %s, not %s", i, d.Name, allMetrics[i]))
		}
		out[string(d.Name)] = d.Name
		for _, a := range append([]string{strings.ToLower(d.Abbrev)}, d.Aliases...) {
			out[a] = d.Name
		}
	}
	return out
}()

// traced completes d, a metric whose trace is the result's field f, with
// the trace's copy, formula, evidence and changes (nil changes: none to
// compare).
func traced[T any](d MetricDef, f func(*Result) **T, formula func(*T, *Result) []string, evidence func(*T) []string, changes func(a, b *T) []JudgementChange) MetricDef {
	d.CopyTrace = func(dst, src *Result) { *f(dst) = *f(src) }
	d.Formula = func(r *Result) []string {
		if t := *f(r); t != nil {
			return formula(t, r)
		}
		return nil
	}
	d.Evidence = func(r *Result) []string {
		if t := *f(r); t != nil {
			return evidence(t)
		}
		return nil
	}
	d.Changes = func(a, b *Result) []JudgementChange {
		if ta, tb := *f(a), *f(b); ta != nil && tb != nil && changes != nil {
			return changes(ta, tb)
		}
		return nil
	}
	return d
}

// itemLabels labels the judged items of the list of the trace in the
// result's field f: item is an item's text and the judge's value, set
// puts a person's value in its place, and score rescores the trace by the
// metric's formula (setting its sums).
func itemLabels[T, I any](task string, f func(*Result) **T, list func(*T) *[]I, item func(I) LabelledItem, set func(*I, int), score func(*T) float64) *LabelDef {
	return &LabelDef{
		Task: task,
		Items: func(r *Result) []LabelledItem {
			t := *f(r)
			if t == nil {
				return nil
			}
			items := *list(t)
			out := make([]LabelledItem, len(items))
			for i, it := range items {
				out[i] = item(it)
			}
			return out
		},
		Rescore: func(c *Result, values map[int]int) float64 {
			tr := **f(c)
			items := list(&tr)
			*items = slices.Clone(*items)
			for pos, v := range values {
				set(&(*items)[pos], v)
			}
			*f(c) = &tr
			return score(&tr)
		},
	}
}

// share is the line of yes of n judged items for the score, none for no
// items.
func share(yes, n int, what string) []string {
	if n == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d of %d %s = %.3f", yes, n, what, float64(yes)/float64(n))}
}

// verdictLines lists the statements judged 0, in the given words.
func verdictLines(vs []StatementVerdict, what string) []string {
	return lines(vs, func(v StatementVerdict) bool { return v.Verdict == 0 }, func(v StatementVerdict) string {
		return fmt.Sprintf("%s: %q: %s", what, v.Statement, v.Reason)
	})
}

// lines is the line of each item that keep keeps, one line each.
func lines[T any](items []T, keep func(T) bool, line func(T) string) []string {
	var out []string
	for _, it := range items {
		if keep(it) {
			out = append(out, line(it))
		}
	}
	return out
}

// The judged items a human can label, named by the judge task that made
// them (the structured-output contract's names): a statement's verdict, a
// chunk's verdict, a reference statement's attribution, a generated
// question's noncommittal flag.
const (
	LabelFaithfulness     = "faithfulness_verdicts"
	LabelContextPrecision = "context_precision_verdict"
	LabelContextRecall    = "context_recall_classifications"
	LabelAnswerRelevancy  = "answer_relevancy_question"
	// LabelContextUtilization labels a chunk's verdict of context
	// utilization: its item is the chunk's rank, as for context precision.
	LabelContextUtilization = "context_utilization_verdict"
)
