package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/internal/show"
)

// ConversationSummary is one conversation of a run over its evaluated
// turns: per metric the mean and the minimum of the turns' scores and the
// first turn that fails the metric's pass level — what a reviewer of a
// long chat looks for first.
type ConversationSummary struct {
	ID      string                              `json:"id"`
	Turns   int                                 `json:"turns"`
	Metrics map[eval.Metric]*ConversationMetric `json:"metrics"`
}

// ConversationMetric is one metric over a conversation's turns. Mean and
// Min are null when no turn scored; FirstFailingTurn is null when no turn
// fails the pass level. Scored counts the turns that scored (not written:
// the report gives mean, min and first_failing_turn).
type ConversationMetric struct {
	Mean             *float64 `json:"mean"`
	Min              *float64 `json:"min"`
	FirstFailingTurn *int     `json:"first_failing_turn"`
	Scored           int      `json:"-"`
	// Max is the highest score of the turns: the worst where lower is
	// better (a --fail-under-conversation message names it).
	Max *float64 `json:"-"`
	// FirstFailingIndex is the sample index of the first failing turn
	// (the HTML report links it), when there is one.
	FirstFailingIndex int `json:"-"`
}

// conversations accumulates the turns of a run's conversations as they
// come, keeping a few numbers per conversation and metric, never a result.
// What it gives does not depend on the order the turns came in (sums are
// exact, conversations in the order of their first sample), so a headless
// run and `report` write the same report. fails says a turn's score fails:
// its pass level for a Tally, a --fail-under-conversation for a gate.
type conversations struct {
	metrics []eval.Metric
	fails   func(m eval.Metric, v float64) bool
	order   []string
	by      map[string]*convAcc
}

func newConversations(metrics []eval.Metric, fails func(m eval.Metric, v float64) bool) *conversations {
	return &conversations{metrics: metrics, fails: fails, by: map[string]*convAcc{}}
}

type convAcc struct {
	first int // the lowest sample index of its turns
	sums  map[eval.Metric]*exactSum
	out   ConversationSummary
}

func (c *conversations) add(r *eval.Result) {
	if r.ConversationID == "" {
		return
	}
	a := c.by[r.ConversationID]
	if a == nil {
		a = &convAcc{first: r.Index, sums: map[eval.Metric]*exactSum{}, out: ConversationSummary{ID: r.ConversationID, Metrics: map[eval.Metric]*ConversationMetric{}}}
		for _, m := range c.metrics {
			a.out.Metrics[m] = &ConversationMetric{}
			a.sums[m] = &exactSum{}
		}
		c.by[r.ConversationID] = a
		c.order = append(c.order, r.ConversationID)
	}
	a.first = min(a.first, r.Index)
	a.out.Turns++
	for _, m := range c.metrics {
		v, ok := r.Score(m)
		if !ok || r.Status[m] != eval.StatusOK {
			continue
		}
		cm := a.out.Metrics[m]
		cm.Scored++
		a.sums[m].add(v)
		if cm.Min == nil || v < *cm.Min {
			cm.Min = &v
		}
		if cm.Max == nil || v > *cm.Max {
			cm.Max = &v
		}
		// Turns may come in any order (a resumed run); the first failing
		// one is the lowest-numbered.
		if c.fails(m, v) && (cm.FirstFailingTurn == nil || r.Turn < *cm.FirstFailingTurn) {
			turn := r.Turn
			cm.FirstFailingTurn, cm.FirstFailingIndex = &turn, r.Index
		}
	}
}

// summaries are the conversations so far, in the order of their first
// samples (copies); nil when the run has none.
func (c *conversations) summaries() []ConversationSummary {
	if len(c.order) == 0 {
		return nil
	}
	slices.SortStableFunc(c.order, func(x, y string) int { return cmp.Compare(c.by[x].first, c.by[y].first) })
	out := make([]ConversationSummary, 0, len(c.order))
	for _, id := range c.order {
		a := c.by[id]
		s := ConversationSummary{ID: id, Turns: a.out.Turns, Metrics: make(map[eval.Metric]*ConversationMetric, len(a.out.Metrics))}
		for m, cm := range a.out.Metrics {
			cp := *cm
			cp.Mean = meanOf(a.sums[m].value(), cp.Scored)
			if cp.Mean != nil && math.Abs(*cp.Mean) < 1e-12 {
				*cp.Mean = 0
			}
			s.Metrics[m] = &cp
		}
		out = append(out, s)
	}
	return out
}

// maxMarkdownConversations is how many failing conversations the Markdown
// report lists; the JSON report has them all.
const maxMarkdownConversations = 20

// WriteConversationsMarkdown writes the Markdown report's section on a
// run's conversations (nothing for a run without): how many there are and
// how many fail somewhere, then each failing one with, per metric, its
// mean, minimum and first failing turn, in the order they came.
func WriteConversationsMarkdown(w io.Writer, run RunInfo, convs []ConversationSummary) error {
	if len(convs) == 0 {
		return nil
	}
	var failing []ConversationSummary
	for _, c := range convs {
		for _, cm := range c.Metrics {
			if cm.FirstFailingTurn != nil {
				failing = append(failing, c)
				break
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Conversations\n\n%d conversations, %d with a turn below a pass level.\n", len(convs), len(failing))
	if len(failing) > 0 {
		b.WriteString("\n| conversation | turns |")
		metrics := run.Scored()
		for _, m := range metrics {
			fmt.Fprintf(&b, " %s mean / min / first failing |", mdCell(string(m)))
		}
		b.WriteString("\n|---|---:|" + strings.Repeat("---|", len(metrics)) + "\n")
		for i, c := range failing {
			if i == maxMarkdownConversations {
				fmt.Fprintf(&b, "\n%d more in the JSON report.\n", len(failing)-i)
				break
			}
			fmt.Fprintf(&b, "| %s | %d |", mdCell(c.ID), c.Turns)
			for _, m := range metrics {
				cm := c.Metrics[m]
				if cm == nil {
					b.WriteString(" - |")
					continue
				}
				first := "-"
				if cm.FirstFailingTurn != nil {
					first = fmt.Sprintf("turn %d", *cm.FirstFailingTurn)
				}
				fmt.Fprintf(&b, " %s / %s / %s |", show.Score(cm.Mean), show.Score(cm.Min), first)
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
