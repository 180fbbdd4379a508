package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/holder"
	"github.com/ragscope/ragscope/internal/labels"
	"github.com/ragscope/ragscope/internal/outfile"
	"github.com/ragscope/ragscope/internal/runreport"
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/internal/store"
	"github.com/ragscope/ragscope/internal/termtext"
)

// Everything printed that comes from data, the store or the user goes
// through sanitize: the terminal must show an escape sequence, not run it.

// errText is an error message as printed: one line, control characters
// and bidi controls shown as escapes.
func errText(err error) string { return sanitize.Line(err.Error()) }

// refError is the error of resolving a run reference: the user's (exit 2),
// unless the file is damaged (exit 1).
func refError(err error) error {
	if err == nil || errors.Is(err, cache.ErrDamaged) {
		return err
	}
	return exit.UsageError{Err: err}
}

// failed reports a command's error on stderr, one line after the command's
// name, and returns its exit code.
func failed(stderr io.Writer, name string, err error) int {
	fmt.Fprintln(stderr, name+":", fromSettings(errText(err)))
	return exitCode(err)
}

// failedAsIs is failed for an error whose lines are said as they are.
func failedAsIs(stderr io.Writer, name string, err error) int {
	fmt.Fprintln(stderr, name+":", fromSettings(err.Error()))
	return exitCode(err)
}

// settingOrigin is, for each flag the settings file set ("--lang"), where
// in the file (setSetting): an error about the value names the flag,
// which the user never typed.
var settingOrigin = map[string]string{}

// fromSettings adds to an error about a flag the settings file set where
// its value came from.
func fromSettings(msg string) string {
	for flag, where := range settingOrigin {
		if strings.HasPrefix(msg, flag+" ") || strings.HasPrefix(msg, flag+":") {
			return msg + " (the value is " + where + ")"
		}
	}
	return msg
}

// runsCommand is `ragscope runs`, with delete and prune below it.
func (c *cli) runsCommand() *cobra.Command {
	var dbPath string
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List the stored runs: running, interrupted, cancelled, finished",
		Example: `ragscope runs
ragscope runs --db team.db
ragscope runs delete 20240101-093000-ab12 latest
ragscope runs prune --older-than 30d --keep 10 --dry-run`,
		RunE: c.action(func(cmd *cobra.Command, args []string) int {
			if len(args) > 0 {
				return usageHint(c.stderr, cmd, "unknown command %q (delete RUN..., prune --older-than AGE)", args[0])
			}
			return listRuns(dbPath, c.width, c.stdout, c.stderr)
		}),
	}
	dbFlag(cmd.Flags(), &dbPath)
	cmd.AddCommand(c.runsDeleteCommand("delete"), c.runsDeleteCommand("prune"))
	return cmd
}

// dbFlag defines a command's --db.
func dbFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "db", "", dbUsage)
}

// asciiFlag defines the --ascii of a command with the interface.
func asciiFlag(fs *pflag.FlagSet, p *bool) {
	fs.BoolVar(p, "ascii", os.Getenv("RUNEWIDTH_EASTASIAN") == "1", "ASCII-only interface glyphs")
}

// runState is how runs and the completion of run ids describe a run.
func runState(r report.RunInfo, live map[string]holder.LiveRun) string {
	switch lr, ok := live[r.ID]; {
	case ok:
		return fmt.Sprintf("running (pid %d, %s)", lr.PID, sanitize.Line(lr.Role))
	case r.FinishedAt != nil && r.Cancelled:
		return "cancelled"
	case r.FinishedAt != nil:
		d, _ := r.Duration() // all the attempts of a resumed run
		return "finished " + d.Round(time.Millisecond).String()
	}
	return "interrupted"
}

// storedRunList is the runs of a database, newest first, and which of them
// are being evaluated now; the caller closes the store.
func storedRunList(dbPath string, opt store.OpenOptions) (*store.Shared, []report.RunInfo, map[string]holder.LiveRun, error) {
	opt.Mode = store.Read
	db, err := store.Open(dbPath, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	runs, err := db.Runs()
	live, lerr := db.Live()
	if err := cmp.Or(err, lerr); err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	return db, runs, live, nil
}

func listRuns(dbPath string, width int, stdout, stderr io.Writer) int {
	db, runs, live, err := storedRunList(dbPath, store.OpenOptions{})
	if err != nil {
		return failed(stderr, "ragscope runs", err)
	}
	defer db.Close()
	if len(runs) == 0 {
		fmt.Fprintf(stdout, "no runs in %s yet\n", sanitize.Line(db.Path()))
		return exit.OK
	}
	rows := [][]string{{"RUN", "STARTED", "STATE", "SAMPLES", "COST", "JUDGE", "DATASET", "PARENT"}}
	var notes []string
	for _, r := range runs {
		// "-": still running, interrupted, or recorded before costs were.
		cost := r.CostText()
		rows = append(rows, []string{sanitize.Line(r.ID), r.StartedAt.Local().Format("2006-01-02 15:04:05"), runState(r, live), r.SamplesText(),
			cmp.Or(cost, "-"), sanitize.Line(r.Judge.Name), sanitize.Line(r.Dataset), sanitize.Line(r.Parent)})
		// Why a cost is "—" (a model without a price) or ends in "+" (a
		// floor: an interrupted attempt recorded nothing).
		switch {
		case cost == "—":
			notes = append(notes, "—: "+r.Pricing.Note())
		case strings.HasSuffix(cost, "+"):
			notes = append(notes, "+: at least: an interrupted attempt of the run recorded no usage")
		}
	}
	termtext.WriteTable(stdout, width, rows)
	// Why a cost is missing or a floor goes to stderr: stdout stays a table.
	for _, n := range slices.Compact(slices.Sorted(slices.Values(notes))) {
		fmt.Fprintln(stderr, "ragscope runs:", sanitize.Line(n))
	}
	return exit.OK
}

// reportCommand is `ragscope report`.
func (c *cli) reportCommand() *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report RUN|latest",
		Short: "Write a stored run's report as JSON, CSV, Markdown, GitHub annotations, JSON Lines or one HTML page",
		Example: `ragscope report latest --format md --out runreport.md
ragscope report 20240101-093000-ab12 --format csv > scores.csv
ragscope report latest --format html --out report.html`,
		ValidArgsFunction: completeRunIDs(1),
		Args:              exactArgs(1, oneRun),
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			return o.write(cmd, pos, c.stdout, c.stderr)
		}),
	}
	fs := cmd.Flags()
	dbFlag(fs, &o.db)
	fs.StringVar(&o.format, "format", "json", "report format: json, csv, md, github (workflow annotations; with $GITHUB_STEP_SUMMARY, a Markdown summary appended to it) jsonl (one sample per line) or html (one self-contained page with each sample's drill-down)")
	fs.StringVar(&o.out, "out", "", "write to FILE instead of stdout")
	fs.IntVar(&o.worst, "worst", 10, "how many of the worst samples a Markdown report lists")
	passFlag(fs, &o.pass)
	fs.BoolVar(&o.withLabels, "with-labels", false, "apply the human labels: labelled items take the human's value and their metrics are rescored (see 'ragscope labels')")
	completeFlagWords(cmd, "format", reportFormats)
	return cmd
}

// oneRun is what a command that takes one RUN says when it is not given one.
const oneRun = "give one RUN id (or latest); see 'ragscope runs'"

var reportFormats = []string{"json", "csv", "md", "github", "jsonl", "html"}

type reportOptions struct {
	db, format, out string
	worst           int
	withLabels      bool
	pass            string
}

func (o *reportOptions) write(cmd *cobra.Command, pos []string, stdout, stderr io.Writer) int {
	levels, err := report.ParseLevels(o.pass)
	if err != nil {
		return failedAsIs(stderr, "ragscope report", exit.UsageError{Err: err})
	}
	if !slices.Contains(reportFormats, o.format) {
		return failedAsIs(stderr, "ragscope report", exit.Usagef("--format %q is not one of %s", o.format, strings.Join(reportFormats, ", ")))
	}
	st, err := store.Open(o.db, store.OpenOptions{Mode: store.Read})
	var info report.RunInfo
	if err == nil {
		defer st.Close()
		// The run is resolved before --out is created: a mistyped id
		// leaves no file behind.
		info, _, _, err = st.RunPage(pos[0], 0, 0)
		err = refError(err)
	}
	if err != nil {
		return failed(stderr, "ragscope report", err)
	}
	out, fh, err := outfile.CreateOr(o.out, stdout)
	if err != nil {
		return failed(stderr, "ragscope report", exit.Usagef("--out: %v", err))
	}
	defer fh.Abort()
	// Streamed from the store a page at a time: a report of a million
	// samples is never in memory.
	var from cache.Store = st
	if info.FinishedAt == nil {
		// No end recorded: live, or killed. Every format says which.
		if live, err := st.Live(); err == nil {
			if _, ok := live[info.ID]; !ok {
				from = interrupted{from}
			}
		}
	}
	if o.withLabels {
		if from, err = labels.Apply(from); err != nil {
			return failed(stderr, "ragscope report", err)
		}
	}
	sr, err := runreport.Write(from, pos[0], o.format, o.worst, levels, out)
	if err == nil {
		err = fh.Commit()
	}
	if p := os.Getenv("GITHUB_STEP_SUMMARY"); err == nil && o.format == runreport.FormatGitHub && p != "" {
		err = sr.AppendStepSummary(p)
	}
	if err != nil {
		return failed(stderr, "ragscope report", err)
	}
	return exit.OK
}

// interrupted is a store whose run records read as interrupted: no end
// recorded, nobody evaluating them.
type interrupted struct{ cache.Store }

func (s interrupted) RunPage(ref string, from, limit int) (report.RunInfo, []*eval.Result, int, error) {
	info, page, next, err := s.Store.RunPage(ref, from, limit)
	info.Interrupted = info.FinishedAt == nil
	return info, page, next, err
}

// runsDeleteCommand is `ragscope runs delete RUN...` and `ragscope runs
// prune --older-than AGE [--keep N]`: they remove run records and all their
// results (never judge-call cache entries). A run being evaluated is not
// deleted: delete refuses, prune keeps it and says so.
func (c *cli) runsDeleteCommand(sub string) *cobra.Command {
	var o deleteOptions
	cmd := &cobra.Command{
		Use:               "delete RUN...",
		Short:             "Delete the given runs and their results (ids, unique prefixes or latest)",
		Example:           "ragscope runs delete 20240101-093000-ab12 latest --dry-run",
		ValidArgsFunction: completeRunIDs(-1),
	}
	fs := cmd.Flags()
	dbFlag(fs, &o.db)
	fs.BoolVar(&o.dryRun, "dry-run", false, "print what would be deleted and delete nothing")
	if sub == "prune" {
		cmd.Use = "prune --older-than AGE"
		cmd.Short = "Delete the runs started longer ago than AGE, except the newest --keep N"
		cmd.Example = "ragscope runs prune --older-than 30d --keep 10"
		cmd.ValidArgsFunction = cobra.NoFileCompletions
		fs.StringVar(&o.olderThan, "older-than", "", "delete runs started more than this long ago (e.g. 30d, 12h); required")
		fs.IntVar(&o.keep, "keep", 0, "always keep the newest N runs")
	}
	cmd.RunE = c.action(func(cmd *cobra.Command, pos []string) int {
		return o.delete(cmd, sub, pos, c.stdout, c.stderr)
	})
	return cmd
}

type deleteOptions struct {
	db, olderThan string
	keep          int
	dryRun        bool
}

func (o *deleteOptions) delete(cmd *cobra.Command, sub string, pos []string, stdout, stderr io.Writer) int {
	name := cmd.CommandPath()
	fail := func(err error) int { return failed(stderr, name, err) }
	var age time.Duration
	switch {
	case sub == "delete" && len(pos) == 0:
		return fail(exit.Usagef("give the RUNs to delete (ids, unique prefixes or %s); see `ragscope runs`", cache.LatestRun))
	case sub == "prune" && len(pos) > 0:
		return fail(exit.Usagef("takes no runs (got %q); use `ragscope runs delete RUN...` to delete given runs", pos))
	case sub == "prune" && o.olderThan == "":
		return fail(exit.Usagef("--older-than is required (e.g. --older-than 30d)"))
	case sub == "prune" && o.keep < 0:
		return fail(exit.Usagef("--keep must not be negative (got %d)", o.keep))
	case sub == "prune":
		var err error
		if age, err = parseAge(o.olderThan); err != nil {
			return fail(exit.Usagef("--older-than: %v", err))
		}
	}
	mode := store.Write
	if o.dryRun {
		mode = store.Read
	}
	db, err := store.Open(o.db, store.OpenOptions{Mode: mode})
	if err != nil {
		return fail(err)
	}
	defer db.Close()
	live, err := db.Live()
	if err != nil {
		return fail(err)
	}

	verb := "deleting"
	if o.dryRun {
		verb = "would delete"
	}
	// The runs to delete, each once, each said in a line of its own, and
	// how many results they have.
	var ids, lines []string
	results := 0
	add := func(ref string) error {
		info, rs, err := db.Run(ref)
		if err != nil || slices.Contains(ids, info.ID) {
			return refError(err)
		}
		n := len(slices.DeleteFunc(rs, func(r *eval.Result) bool { return r == nil }))
		ids, results = append(ids, info.ID), results+n
		lines = append(lines, fmt.Sprintf("%s run %s  started %s  %s\n", verb, sanitize.Line(info.ID),
			info.StartedAt.Local().Format("2006-01-02 15:04:05"), countOf(n, "result")))
		return nil
	}
	if sub == "delete" {
		for _, ref := range pos {
			if err := add(ref); err != nil {
				return fail(err)
			}
		}
		if err := holder.RefuseLive(live, ids); err != nil {
			return fail(fmt.Errorf("%v; nothing was deleted", err))
		}
	} else {
		runs, err := db.Runs() // newest first
		if err != nil {
			return fail(err)
		}
		cutoff := time.Now().Add(-age)
		for i, r := range runs {
			if i < o.keep || !r.StartedAt.Before(cutoff) {
				continue
			}
			if lr, ok := live[r.ID]; ok {
				fmt.Fprintf(stderr, "%s: keeping run %s: it is being evaluated now by pid %d (%s)\n", name, sanitize.Line(r.ID), lr.PID, sanitize.Line(lr.Role))
				continue
			}
			if err := add(r.ID); err != nil {
				return fail(err)
			}
		}
	}
	if len(ids) == 0 {
		fmt.Fprintf(stdout, "no runs to delete in %s\n", sanitize.Line(db.Path()))
		return exit.OK
	}

	fmt.Fprint(stdout, strings.Join(lines, ""))
	if o.dryRun {
		fmt.Fprintf(stdout, "would delete %s and %s from %s (dry run: nothing was deleted)\n", countOf(len(ids), "run"), countOf(results, "result"), sanitize.Line(db.Path()))
		return exit.OK
	}
	nRuns, nResults, err := db.DeleteRuns(ids)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "deleted %s and %s from %s (run `ragscope cache compact` to shrink the file)\n", countOf(nRuns, "run"), countOf(nResults, "result"), sanitize.Line(db.Path()))
	return exit.OK
}

func countOf(n int, noun string) string { return fmt.Sprintf("%d %s%s", n, noun, plural(n)) }
