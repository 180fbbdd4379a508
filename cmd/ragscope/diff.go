package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/sanitize"
)

func cmdDiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ragscope diff", flag.ContinueOnError)
	fs.SetOutput(flagOutput(stderr))
	dbPath := fs.String("db", "", "database file")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	pos, code, ok := parseArgs(fs, args, stderr)
	if !ok {
		return code
	}
	if len(pos) != 2 {
		fmt.Fprintln(stderr, "ragscope diff: give two runs, RUN_A RUN_B (ids, unique prefixes or latest); see `ragscope runs`")
		return exitUsage
	}
	db, infos, runs, err := storedRuns(*dbPath, pos...)
	if err != nil {
		fmt.Fprintln(stderr, "ragscope diff:", errText(err))
		return exitCode(err)
	}
	db.Close()
	infoA, infoB, a, b := infos[0], infos[1], runs[0], runs[1]
	if infoA.DatasetHash != "" && infoB.DatasetHash != "" && infoA.DatasetHash != infoB.DatasetHash {
		fmt.Fprintf(stderr, "ragscope diff: warning: the runs evaluated different data (%s, %s); samples are matched by index\n", sanitize.Line(infoA.Dataset), sanitize.Line(infoB.Dataset))
	}
	metrics := commonMetrics(infoA.Metrics, infoB.Metrics)
	d := eval.Diff(metrics, a, b)
	d.A, d.B = infoA.ID, infoB.ID
	if *asJSON {
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
	writeDiff(stdout, infoA, infoB, metrics, d)
	return exitOK
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
func writeDiff(w io.Writer, a, b eval.RunInfo, metrics []eval.Metric, d *eval.RunDiff) {
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
			text := ""
			if c.Text != "" {
				text = " " + sanitize.Line(strconv.Quote(c.Text))
			}
			fmt.Fprintf(w, "    %s %s%s\n      before: %s\n      after:  %s\n", sanitize.Line(string(c.Metric)), sanitize.Line(c.What), text,
				sanitize.Line(c.Before), sanitize.Line(c.After))
		}
	}
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
