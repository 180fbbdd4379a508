package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/sanitize"
)

// diffCommand is `ragscope diff RUN_A RUN_B`.
func (c *cli) diffCommand() *cobra.Command {
	var dbPath string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff RUN_A RUN_B",
		Short: "Compare two runs: each metric's mean, and every sample and judgement that changed",
		Long:  `Compare two stored runs sample by sample (matched by index): the change of each metric's mean, how many samples went up, down or changed status, and for each changed sample the judgements (statement verdicts, chunk verdicts) that differ, with the judge's reasons before and after.`,
		Example: `ragscope diff 20240101-093000-ab12 latest
ragscope diff --json RUN_A RUN_B > changes.json`,
		ValidArgsFunction: completeRunIDs(2),
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			return diffRuns(cmd, dbPath, asJSON, pos, c.stdout, c.stderr)
		}),
	}
	dbFlag(cmd.Flags(), &dbPath)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	return cmd
}

func diffRuns(cmd *cobra.Command, dbPath string, asJSON bool, pos []string, stdout, stderr io.Writer) int {
	if len(pos) != 2 {
		return usageHint(stderr, cmd, "give two runs, RUN_A RUN_B (ids, unique prefixes or latest); see 'ragscope runs'")
	}
	infos, runs, err := storedRuns(dbPath, pos...)
	if err != nil {
		return failed(stderr, "ragscope diff", err)
	}
	infoA, infoB, a, b := infos[0], infos[1], runs[0], runs[1]
	if infoA.DatasetHash != "" && infoB.DatasetHash != "" && infoA.DatasetHash != infoB.DatasetHash {
		fmt.Fprintf(stderr, "ragscope diff: warning: the runs evaluated different data (%s, %s); samples are matched by index\n", sanitize.Line(infoA.Dataset), sanitize.Line(infoB.Dataset))
	}
	if infoA.ID == infoB.ID {
		fmt.Fprintf(stderr, "ragscope diff: warning: both sides are run %s; nothing can have changed\n", sanitize.Line(infoA.ID))
	} else if differ := judgeDifferences(infoA.Judge, infoB.Judge); len(differ) > 0 {
		fmt.Fprintf(stderr, "ragscope diff: warning: the runs used different judges (%s); a change may be the judge's, not the data's\n", strings.Join(differ, "; "))
	}
	metrics := commonMetrics(infoA.Metrics, infoB.Metrics)
	d := eval.Diff(metrics, a, b)
	d.A, d.B = infoA.ID, infoB.ID
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(struct {
			A string `json:"run_a"`
			B string `json:"run_b"`
			*eval.RunDiff
		}{infoA.ID, infoB.ID, d}); err != nil {
			fmt.Fprintln(stderr, "ragscope diff:", errText(err))
			return exitFatal
		}
		return exitOK
	}
	writeDiff(stdout, infoA, infoB, metrics, d, sideTexts(a, b))
	return exitOK
}

// judgeDifferences names what differs between two runs' judges: the kind,
// the model, the base URL, the embedding model.
func judgeDifferences(a, b eval.JudgeInfo) []string {
	var out []string
	for _, f := range []struct{ what, a, b string }{
		{"kind", a.Kind, b.Kind},
		{"model", a.Model, b.Model},
		{"base URL", a.BaseURL, b.BaseURL},
		{"embedding model", a.EmbeddingModel, b.EmbeddingModel},
	} {
		if f.a != f.b {
			out = append(out, fmt.Sprintf("%s %s vs %s", f.what, quoteLine(orNone(f.a)), quoteLine(orNone(f.b))))
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// quoteLine quotes a text for a line of output: backslashes and quotes are
// escaped, and sanitize.Line shows control characters as escapes.
func quoteLine(s string) string {
	return `"` + sanitize.Line(quoteEscaper.Replace(s)) + `"`
}

var quoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// textsOf gives the judged text of each item of a change's list on one side
// of the diff (sample index, metric, item number from 1), ok false when that
// side has no such item; known false when the metric's items carry no text
// of their own.
type textsOf func(side, sample int, m eval.Metric, item int) (text string, ok, known bool)

// sideTexts reads the items' texts from the runs' results: a change's Text
// joins the two sides' texts when they differ, and each side must be shown
// with its own.
func sideTexts(a, b []*eval.Result) textsOf {
	return func(side, sample int, m eval.Metric, item int) (string, bool, bool) {
		rs := a
		if side == 1 {
			rs = b
		}
		if sample < 0 || sample >= len(rs) || rs[sample] == nil || item < 1 {
			return "", false, true
		}
		r, i := rs[sample], item-1
		switch m {
		case eval.Faithfulness:
			if r.Faithfulness == nil || i >= len(r.Faithfulness.Statements) {
				return "", false, true
			}
			return r.Faithfulness.Statements[i].Statement, true, true
		case eval.ContextRecall:
			if r.ContextRecall == nil || i >= len(r.ContextRecall.Classifications) {
				return "", false, true
			}
			return r.ContextRecall.Classifications[i].Statement, true, true
		}
		return "", false, false
	}
}

// itemNumber is the number at the end of a change's What ("statement 2").
func itemNumber(what string) int {
	n, err := strconv.Atoi(what[strings.LastIndexByte(what, ' ')+1:])
	if err != nil {
		return 0
	}
	return n
}

func commonMetrics(a, b []eval.Metric) []eval.Metric {
	in := map[eval.Metric]bool{}
	for _, m := range a {
		in[m] = true
	}
	var out []eval.Metric
	for _, m := range b {
		if in[m] {
			out = append(out, m)
		}
	}
	return out
}

// writeDiff prints the comparison for a reader. Every text in it comes
// from the store (ids, judge names) or from the dataset and the judge
// (statements, reasons) and goes through sanitize.Line; the JSON form
// (--json) keeps them exact.
func writeDiff(w io.Writer, a, b eval.RunInfo, metrics []eval.Metric, d *eval.RunDiff, texts textsOf) {
	fmt.Fprintf(w, "run A %s  %s  judge %s\n", sanitize.Line(a.ID), a.StartedAt.Local().Format("2006-01-02 15:04"), sanitize.Line(a.Judge.Name))
	fmt.Fprintf(w, "run B %s  %s  judge %s\n\n", sanitize.Line(b.ID), b.StartedAt.Local().Format("2006-01-02 15:04"), sanitize.Line(b.Judge.Name))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tmean A\tmean B\tdelta\tup\tdown\tstatus changed")
	for _, m := range metrics {
		mc, cc := d.Means[m], d.Counts[m]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\n", sanitize.Line(string(m)), fmtScore(mc.Before), fmtScore(mc.After), fmtDelta(mc.Delta), cc.Up, cc.Down, cc.StatusChanged)
	}
	tw.Flush()
	if len(d.Samples) == 0 {
		fmt.Fprintln(w, "\nno sample changed")
		return
	}
	fmt.Fprintf(w, "\n%d samples changed:\n", len(d.Samples))
	for _, s := range d.Samples {
		fmt.Fprintf(w, "\nsample %d %s\n", s.Index, sanitize.Line(s.ID))
		for _, m := range metrics {
			sc := s.Scores[m]
			delta, ok := sc.Delta()
			if ok && delta == 0 && sc.StatusBefore == sc.StatusAfter {
				continue
			}
			if !ok && sc.StatusBefore == sc.StatusAfter {
				continue
			}
			line := fmt.Sprintf("  %-18s %s -> %s", sanitize.Line(string(m)), scoreOrStatus(sc.Before, sc.StatusBefore), scoreOrStatus(sc.After, sc.StatusAfter))
			if ok {
				line += fmt.Sprintf("  (%+.3f)", delta)
			}
			fmt.Fprintln(w, line)
		}
		for _, c := range s.Changes {
			writeChange(w, s.Index, c, texts)
		}
	}
}

// writeChange prints one changed judgement. When the judged text is the
// same on both sides it heads the change, quoted; when it differs (the
// judge split the answer differently), before: and after: each quote their
// own side's text, so that neither is mistaken for the other's.
func writeChange(w io.Writer, sample int, c eval.JudgementChange, texts textsOf) {
	head := sanitize.Line(string(c.Metric)) + " " + sanitize.Line(c.What)
	item := itemNumber(c.What)
	ta, okA, known := texts(0, sample, c.Metric, item)
	tb, okB, _ := texts(1, sample, c.Metric, item)
	if !known || (okA && okB && ta == tb) || (!okA && !okB) {
		if c.Text != "" {
			head += " " + quoteLine(c.Text)
		}
		fmt.Fprintf(w, "    %s\n      before: %s\n      after:  %s\n", head, sanitize.Line(c.Before), sanitize.Line(c.After))
		return
	}
	side := func(text string, ok bool, judgement string) string {
		if !ok {
			return "(no " + sanitize.Line(c.What) + ")"
		}
		return quoteLine(text) + "  " + sanitize.Line(judgement)
	}
	fmt.Fprintf(w, "    %s\n      before: %s\n      after:  %s\n", head, side(ta, okA, c.Before), side(tb, okB, c.After))
}

func fmtScore(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *v)
}

func fmtDelta(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.3f", *v)
}

func scoreOrStatus(v *float64, st eval.Status) string {
	if v != nil {
		return fmt.Sprintf("%.3f", *v)
	}
	if st == "" {
		return "-"
	}
	return sanitize.Line(string(st))
}
