// Package diff writes the comparison of two runs for a reader and
// compares their conversations; the matching and the counting stay in
// eval/report, where the baseline gate uses them too.
package diff

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/internal/show"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// The text form puts every text through sanitize.Line; diff --json keeps them exact.

// Write prints the comparison of run a with run b: each side, the means,
// the conversations, then every changed sample.
func Write(w io.Writer, a, b report.RunInfo, metrics []eval.Metric, d *report.RunDiff) {
	fmt.Fprintf(w, "run A %s  %s  judge %s\n", sanitize.Line(a.ID), a.StartedAt.Local().Format("2006-01-02 15:04"), sanitize.Line(a.Judge.Name))
	fmt.Fprintf(w, "run B %s  %s  judge %s\n\n", sanitize.Line(b.ID), b.StartedAt.Local().Format("2006-01-02 15:04"), sanitize.Line(b.Judge.Name))
	WriteTable(w, "", metrics, d, "mean A", "mean B")
	WriteConversations(w, metrics, d.Conversations)
	if len(d.Samples) == 0 {
		fmt.Fprintln(w, "\nno sample changed")
		return
	}
	fmt.Fprintf(w, "\n%d samples changed:\n", len(d.Samples))
	WriteSamples(w, metrics, d.Samples)
}

// WriteTable prints each metric's mean before and after, the change, and
// how many samples went up, down or changed status, each line indented.
func WriteTable(w io.Writer, indent string, metrics []eval.Metric, d *report.RunDiff, before, after string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%smetric\t%s\t%s\tdelta\tup\tdown\tstatus changed\n", indent, before, after)
	for _, m := range metrics {
		mc, cc := d.Means[m], d.Counts[m]
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%d\t%d\t%d\n", indent, sanitize.Line(string(m)), show.Score(mc.Before), show.Score(mc.After), show.Delta(mc.Delta), cc.Up, cc.Down, cc.StatusChanged)
	}
	tw.Flush()
}

// WriteSamples prints each changed sample: the scores before -> after
// of the metrics that changed, and each changed judgement.
func WriteSamples(w io.Writer, metrics []eval.Metric, samples []report.SampleDiff) {
	// The names line up in a column as wide as the longest of the run's
	// (18 for the default four, 21 with context_entity_recall).
	width := 18
	for _, m := range metrics {
		width = max(width, len(m)+1)
	}
	for _, s := range samples {
		head := fmt.Sprintf("\nsample %d %s", s.Index, sanitize.Line(s.ID))
		if s.IndexBefore != s.Index {
			head += fmt.Sprintf(" (index %d before)", s.IndexBefore)
		}
		fmt.Fprintln(w, head)
		for _, m := range metrics {
			sc := s.Scores[m]
			if !sc.Changed() {
				continue
			}
			line := fmt.Sprintf("  %-*s %s -> %s", width, sanitize.Line(string(m)), scoreOrStatus(sc.Before, sc.StatusBefore), scoreOrStatus(sc.After, sc.StatusAfter))
			if delta, ok := sc.Delta(); ok {
				line += fmt.Sprintf("  (%+.3f)", delta)
			}
			fmt.Fprintln(w, line)
		}
		for _, c := range s.Changes {
			l := show.ChangeOf(c)
			fmt.Fprintf(w, "    %s\n      before: %s\n      after:  %s\n", l.Head, l.Before, l.After)
		}
	}
}

// QuoteLine quotes a text for a line of output (show.Quote).
func QuoteLine(s string) string { return show.Quote(s) }

func scoreOrStatus(v *float64, st eval.Status) string {
	if v != nil {
		return fmt.Sprintf("%.3f", *v)
	}
	if st == "" {
		return "-"
	}
	return sanitize.Line(string(st))
}
