package diff

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/internal/show"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// Conversations compares the conversations of two runs, matched by
// conversation id: those of b in b's order, then those only a has. nil
// unless both runs have conversations. la and lb are each run's pass
// levels (report.RunLevels), which decide its first failing turns.
func Conversations(metrics []eval.Metric, a, b []*eval.Result, la, lb report.Levels) []report.ConversationDiff {
	sa, sb := summarize(metrics, a, la), summarize(metrics, b, lb)
	if len(sa) == 0 || len(sb) == 0 {
		return nil
	}
	byA := make(map[string]report.ConversationSummary, len(sa))
	for _, c := range sa {
		byA[c.ID] = c
	}
	out := make([]report.ConversationDiff, 0, len(sb))
	seen := map[string]bool{}
	for _, cb := range sb {
		seen[cb.ID] = true
		ca, ok := byA[cb.ID]
		if !ok {
			ca = report.ConversationSummary{ID: cb.ID}
		}
		out = append(out, diffConversation(metrics, ca, cb))
	}
	for _, ca := range sa {
		if !seen[ca.ID] {
			out = append(out, diffConversation(metrics, ca, report.ConversationSummary{ID: ca.ID}))
		}
	}
	return out
}

// summarize is a run's conversations, as its tally sums them.
func summarize(metrics []eval.Metric, rs []*eval.Result, levels report.Levels) []report.ConversationSummary {
	t := report.NewTallyAt(metrics, levels)
	for _, r := range rs {
		t.Add(r)
	}
	return t.Conversations()
}

func diffConversation(metrics []eval.Metric, a, b report.ConversationSummary) report.ConversationDiff {
	d := report.ConversationDiff{ID: b.ID, TurnsBefore: a.Turns, TurnsAfter: b.Turns, Metrics: make(map[eval.Metric]report.ConversationMetricDiff, len(metrics))}
	for _, m := range metrics {
		var md report.ConversationMetricDiff
		if cm := a.Metrics[m]; cm != nil {
			md.MeanBefore, md.MinBefore, md.FirstFailingTurnBefore = cm.Mean, cm.Min, cm.FirstFailingTurn
		}
		if cm := b.Metrics[m]; cm != nil {
			md.MeanAfter, md.MinAfter, md.FirstFailingTurnAfter = cm.Mean, cm.Min, cm.FirstFailingTurn
		}
		d.Metrics[m] = md
	}
	return d
}

// WriteConversations prints each conversation of a comparison, a line per
// metric: mean, minimum and first failing turn before -> after.
func WriteConversations(w io.Writer, metrics []eval.Metric, convs []report.ConversationDiff) {
	if len(convs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%d conversations:\n", len(convs))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "conversation\tturns\tmetric\tmean\tmin\tfirst failing turn\n")
	for _, c := range convs {
		for i, m := range metrics {
			md := c.Metrics[m]
			id, turns := "", ""
			if i == 0 {
				id, turns = sanitize.Line(c.ID), fmt.Sprintf("%d -> %d", c.TurnsBefore, c.TurnsAfter)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s -> %s\t%s -> %s\t%s -> %s\n", id, turns, sanitize.Line(string(m)),
				show.Score(md.MeanBefore), show.Score(md.MeanAfter), show.Score(md.MinBefore), show.Score(md.MinAfter),
				fmtTurn(md.FirstFailingTurnBefore), fmtTurn(md.FirstFailingTurnAfter))
		}
	}
	tw.Flush()
}

// fmtTurn is a first failing turn, "none" when no turn fails.
func fmtTurn(t *int) string {
	if t == nil {
		return "none"
	}
	return strconv.Itoa(*t)
}
