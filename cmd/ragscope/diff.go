package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/diff"
	"github.com/ragscope/ragscope/internal/baseline"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/outfile"
	"github.com/ragscope/ragscope/internal/runreport"
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/internal/store"
)

// diffCommand is `ragscope diff RUN_A RUN_B`.
func (c *cli) diffCommand() *cobra.Command {
	var dbPath, format, out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff RUN_A RUN_B",
		Short: "Compare two runs: each metric's mean, and every sample and judgement that changed",
		Long:  `Compare two stored runs sample by sample (matched by id; samples without an id by their content: question, answer, contexts and reference): the change of each metric's mean, how many samples went up, down or changed status, and for each changed sample the judgements (statement verdicts, chunk verdicts) that differ, with the judge's reasons before and after. When both runs have conversations, each conversation's mean, minimum and first failing turn per metric before and after.`,
		Example: `ragscope diff 20240101-093000-ab12 latest
ragscope diff --format json RUN_A RUN_B > changes.json
ragscope diff RUN_A RUN_B --format html --out compare.html`,
		ValidArgsFunction: completeRunIDs(2),
		Args:              exactArgs(2, "give two runs, RUN_A RUN_B (ids, unique prefixes or latest); see 'ragscope runs'"),
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			if asJSON && format == "text" {
				format = "json"
			}
			return diffRuns(cmd, dbPath, format, out, pos, c.stdout, c.stderr)
		}),
	}
	dbFlag(cmd.Flags(), &dbPath)
	cmd.Flags().StringVar(&format, "format", "text", "text, json, or html: run B's HTML report (see 'ragscope report') with the comparison in it: the means before and after, a Δ column per metric and each changed sample's changed judgements")
	cmd.Flags().BoolVar(&asJSON, "json", false, "the same as --format json")
	cmd.Flags().StringVar(&out, "out", "", "write to FILE instead of stdout")
	completeFlagWords(cmd, "format", diffFormats)
	return cmd
}

var diffFormats = []string{"text", "json", "html"}

func diffRuns(cmd *cobra.Command, dbPath, format, outPath string, pos []string, stdout, stderr io.Writer) int {
	if !slices.Contains(diffFormats, format) {
		return usageHint(stderr, cmd, "--format %q is not one of %s", format, strings.Join(diffFormats, ", "))
	}
	st, err := store.Open(dbPath, store.OpenOptions{Mode: store.Read})
	if err != nil {
		return failed(stderr, "ragscope diff", err)
	}
	defer st.Close()
	infoA, _, _, errA := st.RunPage(pos[0], 0, 0)
	infoB, _, _, errB := st.RunPage(pos[1], 0, 0)
	if err := cmp.Or(errA, errB); err != nil {
		return failed(stderr, "ragscope diff", refError(err))
	}
	if infoA.DatasetHash != "" && infoB.DatasetHash != "" && infoA.DatasetHash != infoB.DatasetHash {
		fmt.Fprintf(stderr, "ragscope diff: warning: the runs evaluated different data (%s, %s); samples are matched by id, else by content\n", sanitize.Line(infoA.Dataset), sanitize.Line(infoB.Dataset))
	}
	if infoA.ID == infoB.ID {
		fmt.Fprintf(stderr, "ragscope diff: warning: both sides are run %s; nothing can have changed\n", sanitize.Line(infoA.ID))
	} else if differ := judgeDifferences(infoA.Judge, infoB.Judge); len(differ) > 0 {
		fmt.Fprintf(stderr, "ragscope diff: warning: the runs used different judges (%s); a change may be the judge's, not the data's\n", strings.Join(differ, "; "))
	}
	// The metrics and criteria both runs scored, in run B's order.
	metrics := slices.DeleteFunc(slices.Clone(infoB.Scored()), func(m eval.Metric) bool { return !slices.Contains(infoA.Scored(), m) })
	// Both runs are resolved before --out is created: a mistyped id
	// leaves no file behind.
	out, fh, err := outfile.CreateOr(outPath, stdout)
	if err != nil {
		return failed(stderr, "ragscope diff", exit.Usagef("--out: %v", err))
	}
	defer fh.Abort()
	done := func() int {
		if err := fh.Commit(); err != nil {
			return failed(stderr, "ragscope diff", fmt.Errorf("--out: %v", err))
		}
		return exit.OK
	}
	if format == "html" {
		// Run B's page, streamed from the store; run A is held as its
		// scores and read one changed sample at a time.
		base, err := baseline.Stored(st, infoA.ID, metrics)
		var sr *runreport.Pass
		if err == nil {
			sr, err = runreport.ReadGated(st, infoB.ID, 0, report.Gate{}, nil, report.Levels{})
		}
		if err == nil {
			sr.HTMLBaseline = base
			err = sr.Write(st, runreport.FormatHTML, out)
		}
		if err != nil {
			return failed(stderr, "ragscope diff", err)
		}
		return done()
	}
	_, a, errA := st.Run(infoA.ID)
	_, b, errB := st.Run(infoB.ID)
	if err := cmp.Or(errA, errB); err != nil {
		return failed(stderr, "ragscope diff", refError(err))
	}
	// By id, else by content, as a run is matched with its --baseline:
	// runs of the same data pair exactly as by index, and runs of edited
	// or reordered data pair the same samples rather than the same places.
	d := report.Diff(metrics, a, b)
	d.A, d.B = infoA.ID, infoB.ID
	d.Conversations = diff.Conversations(metrics, a, b, report.RunLevels(infoA), report.RunLevels(infoB))
	if d.Unmatched > 0 {
		fmt.Fprintf(stderr, "ragscope diff: %d of run B's samples have no counterpart in run A (%d shared): samples are matched by id, and those without an id only when question, answer, contexts and reference are unchanged\n", d.Unmatched, d.Shared)
	}
	if format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(struct {
			A string `json:"run_a"`
			B string `json:"run_b"`
			*report.RunDiff
		}{infoA.ID, infoB.ID, d}); err != nil {
			return failed(stderr, "ragscope diff", err)
		}
		return done()
	}
	diff.Write(out, infoA, infoB, metrics, d)
	return done()
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
			out = append(out, fmt.Sprintf("%s %s vs %s", f.what, diff.QuoteLine(cmp.Or(f.a, "(none)")), diff.QuoteLine(cmp.Or(f.b, "(none)"))))
		}
	}
	return out
}
