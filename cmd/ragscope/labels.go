package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	reportlabels "github.com/ragscope/ragscope/eval/report/labels"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/labels"
	"github.com/ragscope/ragscope/internal/outfile"
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/internal/store"
)

// labelsCommand is `ragscope labels`: sharing human labels as JSON Lines.
func (c *cli) labelsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "labels",
		Short: "Share the human labels of judged items: export them, import them against a run",
		Long: `Analysts mark the judge's verdicts in the sample detail page (a agree, d disagree). The labels are stored in the database by the content they judge (the sample's inputs, the task and the item), not by run, so they stay attached across re-runs, prompt edits and judge models.

A label file has one JSON object per line:
  {"sample": "<id, or index when the dataset has no ids>", "task": "<TASK>", "item": "<statement, chunk rank, reference statement or generated question>", "label": 0 or 1, "note": "…"}
TASK is faithfulness_verdicts, answer_relevancy_question, context_precision_verdict, context_recall_classifications or context_utilization_verdict, or the name of one of the run's criteria (--criteria), whose item is "verdict" (a yes_no or an exact check) or a checklist's item; "label" is the value the item should have had.`,
		Example: `ragscope labels export team-labels.jsonl
ragscope labels import team-labels.jsonl --run latest`,
		RunE: c.action(func(cmd *cobra.Command, args []string) int { return missingSubcommand(c.stderr, cmd, args) }),
	}
	cmd.AddCommand(c.labelsExportCommand(), c.labelsImportCommand())
	return cmd
}

func (c *cli) labelsExportCommand() *cobra.Command {
	var dbPath, run string
	cmd := &cobra.Command{
		Use:   "export FILE",
		Short: "Write every human label (or those of --run's items) as JSON Lines; - for stdout",
		Args:  exactArgs(1, "give the FILE to write (- for stdout)"),
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			return exportLabels(dbPath, run, pos[0], c.stdout, c.stderr)
		}),
	}
	dbFlag(cmd.Flags(), &dbPath)
	cmd.Flags().StringVar(&run, "run", "", "export only the labels of this run's items, under its sample ids (RUN or latest)")
	_ = cmd.RegisterFlagCompletionFunc("run", completeRunIDs(-1))
	return cmd
}

func exportLabels(dbPath, run, file string, stdout, stderr io.Writer) int {
	const name = "ragscope labels export"
	st, err := store.Open(dbPath, store.OpenOptions{Mode: store.Read})
	if err != nil {
		return failed(stderr, name, err)
	}
	defer st.Close()
	if run != "" {
		if _, _, _, err := st.RunPage(run, 0, 0); err != nil {
			return failed(stderr, name, refError(err))
		}
	}
	path := file
	if file == "-" {
		path = ""
	}
	w, fh, err := outfile.CreateOr(path, stdout)
	if err != nil {
		return failed(stderr, name, exit.Usagef("%v", err))
	}
	defer fh.Abort()
	n, err := labels.Export(st, run, w)
	if err == nil {
		err = fh.Commit()
	}
	if err != nil {
		return failed(stderr, name, err)
	}
	if fh != nil {
		fmt.Fprintf(stderr, "%s: %d labels written to %s\n", name, n, sanitize.Line(file))
	}
	return exit.OK
}

func (c *cli) labelsImportCommand() *cobra.Command {
	var dbPath, run string
	cmd := &cobra.Command{
		Use:     "import FILE --run RUN|latest",
		Short:   "Store the labels of a label file against the samples of a run; - for stdin",
		Long:    `Each line's sample (its id, or its index when the dataset has no ids) and item are looked up in the run given with --run, and the label is stored against the content they judge. A line that matches nothing in the run is listed and the command exits 3; the other lines are imported. A bad line (not JSON, a missing field, a "label" other than 0 or 1, an unknown task) is named with its file and line and nothing is imported (exit 2). Importing the same labels again changes nothing.`,
		Example: `ragscope labels import team-labels.jsonl --run latest`,
		Args:    exactArgs(1, "give the label FILE to read (- for stdin)"),
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			if run == "" {
				return usageHint(c.stderr, cmd, "give the run whose samples the labels name with --run RUN (or --run latest)")
			}
			return importLabels(dbPath, run, pos[0], cmd.InOrStdin(), c.stdout, c.stderr)
		}),
	}
	dbFlag(cmd.Flags(), &dbPath)
	cmd.Flags().StringVar(&run, "run", "", "the run whose sample ids the file names (RUN or latest); required")
	_ = cmd.RegisterFlagCompletionFunc("run", completeRunIDs(-1))
	return cmd
}

func importLabels(dbPath, run, file string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "ragscope labels import"
	r, shown := stdin, "stdin"
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return failed(stderr, name, exit.Usagef("%v", err))
		}
		defer f.Close()
		r, shown = f, file
	}
	lines, err := labels.Parse(shown, r)
	if err != nil {
		// One bad line per message line, each with its file and line.
		for _, l := range strings.Split(err.Error(), "\n") {
			fmt.Fprintln(stderr, name+":", sanitize.Line(l))
		}
		return exitCode(err)
	}
	st, err := store.Open(dbPath, store.OpenOptions{Mode: store.Write})
	if err != nil {
		return failed(stderr, name, err)
	}
	defer st.Close()
	rep, err := labels.Import(st, run, lines, labels.Labeller(), time.Now())
	if err != nil {
		return failed(stderr, name, refError(err))
	}
	fmt.Fprintf(stdout, "%d labels from %s against run %s: %d added, %d changed, %d unchanged, %d matched nothing\n",
		len(lines), sanitize.Line(shown), sanitize.Line(rep.Run), rep.Added, rep.Changed, rep.Unchanged, len(rep.Unmatched))
	for _, u := range rep.Unmatched {
		fmt.Fprintf(stderr, "%s: %s:%d: %s\n", name, sanitize.Line(shown), u.Line, sanitize.Line(u.Why))
	}
	if len(rep.Unmatched) > 0 {
		return exit.Failures
	}
	return exit.OK
}

// agreementCommand is `ragscope agreement RUN|latest`.
func (c *cli) agreementCommand() *cobra.Command {
	var dbPath string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "agreement RUN|latest",
		Short: "The judge's agreement with the human labels: accuracy, Cohen's kappa, confusion, score changes",
		Long:  `For each judge task: how many of the run's judged items have a human label, the judge's accuracy against them, Cohen's kappa and the confusion counts (positive = value 1). A criterion of the run (--criteria) is a task and a metric under its name: its kappa says whether the judge reads it as the labellers do. For each metric: how many scored samples have labelled items, how many of them a label disputes, how many samples' scores change with the labels applied, and the mean before and with the labels. For a re-run (after a prompt edit), the run it re-ran is shown beside it: before -> after.`,
		Example: `ragscope agreement latest
ragscope agreement latest --json`,
		ValidArgsFunction: completeRunIDs(1),
		Args:              exactArgs(1, oneRun),
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			return showAgreement(dbPath, pos[0], asJSON, c.stdout, c.stderr)
		}),
	}
	dbFlag(cmd.Flags(), &dbPath)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the figures as JSON")
	return cmd
}

func showAgreement(dbPath, ref string, asJSON bool, stdout, stderr io.Writer) int {
	const name = "ragscope agreement"
	st, err := store.Open(dbPath, store.OpenOptions{Mode: store.Read})
	if err != nil {
		return failed(stderr, name, err)
	}
	defer st.Close()
	a, err := labels.Agreement(st, ref)
	if err != nil {
		return failed(stderr, name, refError(err))
	}
	if !asJSON {
		writeAgreement(stdout, a)
	} else if err := writeJSON(stdout, a); err != nil {
		return failed(stderr, name, err)
	}
	return exit.OK
}

// writeAgreement is the text form of an agreement; with a parent run each
// figure reads before -> after.
func writeAgreement(w io.Writer, a *reportlabels.Agreement) {
	if a.Before != nil {
		fmt.Fprintf(w, "run %s against the human labels (before: run %s, which it re-ran)\n", sanitize.Line(a.Run), sanitize.Line(a.Before.Run))
	} else {
		fmt.Fprintf(w, "run %s against the human labels\n", sanitize.Line(a.Run))
	}
	tab := a.Table(" -> ")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tLABELLED\tACCURACY\tKAPPA\tTP\tFP\tTN\tFN")
	for _, row := range tab.Tasks {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "METRIC\tLABELLED\tDISPUTED\tCHANGED\tMEAN\tWITH LABELS")
	for _, row := range tab.Metrics {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	for _, n := range tab.Notes {
		fmt.Fprintln(w, n)
	}
}
