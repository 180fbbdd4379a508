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
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/internal/store"
)

// diffCommand is `ragscope diff RUN_A RUN_B`.
func (c *cli) diffCommand() *cobra.Command {
	var dbPath string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff RUN_A RUN_B",
		Short: "Compare two runs: each metric's mean, and every sample and judgement that changed",
		Long:  `Compare two stored runs sample by sample (matched by id; samples without an id by their content: question, answer, contexts and reference): the change of each metric's mean, how many samples went up, down or changed status, and for each changed sample the judgements (statement verdicts, chunk verdicts) that differ, with the judge's reasons before and after.`,
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
	st, err := store.Open(dbPath, store.OpenOptions{Mode: store.Read})
	if err != nil {
		return failed(stderr, "ragscope diff", err)
	}
	defer st.Close()
	infoA, a, errA := st.Run(pos[0])
	infoB, b, errB := st.Run(pos[1])
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
	// By id, else by content, as a run is matched with its --baseline:
	// runs of the same data pair exactly as by index, and runs of edited
	// or reordered data pair the same samples rather than the same places.
	d := report.Diff(metrics, a, b, report.MatchByKeyOf(a))
	d.A, d.B = infoA.ID, infoB.ID
	if d.Unmatched > 0 {
		fmt.Fprintf(stderr, "ragscope diff: %d of run B's samples have no counterpart in run A (%d shared): samples are matched by id, and those without an id only when question, answer, contexts and reference are unchanged\n", d.Unmatched, d.Shared)
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(struct {
			A string `json:"run_a"`
			B string `json:"run_b"`
			*report.RunDiff
		}{infoA.ID, infoB.ID, d}); err != nil {
			fmt.Fprintln(stderr, "ragscope diff:", errText(err))
			return exitFatal
		}
		return exitOK
	}
	report.WriteDiff(stdout, infoA, infoB, metrics, d)
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
			out = append(out, fmt.Sprintf("%s %s vs %s", f.what, report.QuoteLine(orNone(f.a)), report.QuoteLine(orNone(f.b))))
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
