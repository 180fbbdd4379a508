package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/ragscope/ragscope/app"
	"github.com/ragscope/ragscope/app/holder"
	"github.com/ragscope/ragscope/app/outfile"
	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/sanitize"
)

// Everything this command line prints that comes from data, the store or
// the user (dataset names, ids, judge names, paths, error messages, which
// quote all of these) goes through sanitize: a file name may carry an
// escape sequence, and the terminal must show it, not run it.

// errText is an error message as printed: one line, control characters
// and bidi controls shown as escapes.
func errText(err error) string { return sanitize.Line(err.Error()) }

// flagOutput is where a flag set prints its errors and usage: they quote
// the arguments as given.
func flagOutput(stderr io.Writer) io.Writer { return sanitize.Writer(stderr) }

// storedRuns loads the runs named by refs (ids, unique prefixes or latest)
// through whoever holds the database; the caller closes the store.
func storedRuns(dbPath string, refs ...string) (*app.Shared, []eval.RunInfo, [][]*eval.Result, error) {
	st, err := app.Open(dbPath, app.OpenOptions{Mode: app.Read})
	if err != nil {
		return nil, nil, nil, err
	}
	infos := make([]eval.RunInfo, len(refs))
	results := make([][]*eval.Result, len(refs))
	for i, ref := range refs {
		if infos[i], results[i], err = st.Run(ref); err != nil {
			st.Close()
			if errors.Is(err, cache.ErrDamaged) {
				return nil, nil, nil, err // the file's fault, not the user's: exit 1
			}
			return nil, nil, nil, usageError{Err: err}
		}
	}
	return st, infos, results, nil
}

func cmdRuns(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "delete", "prune":
			return cmdRunsDelete(args[0], args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("ragscope runs", flag.ContinueOnError)
	fs.SetOutput(flagOutput(stderr))
	dbPath := fs.String("db", "", "database file")
	if _, code, ok := parseArgs(fs, args, stderr); !ok {
		return code
	}
	db, err := app.Open(*dbPath, app.OpenOptions{Mode: app.Read})
	if err != nil {
		fmt.Fprintln(stderr, "ragscope runs:", errText(err))
		return exitCode(err)
	}
	defer db.Close()
	runs, err := db.Runs()
	if err != nil {
		fmt.Fprintln(stderr, "ragscope runs:", errText(err))
		return exitFatal
	}
	if len(runs) == 0 {
		fmt.Fprintf(stdout, "no runs in %s yet\n", sanitize.Line(db.Path()))
		return exitOK
	}
	live, err := db.Live()
	if err != nil {
		fmt.Fprintln(stderr, "ragscope runs:", errText(err))
		return exitFatal
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTARTED\tSTATE\tSAMPLES\tJUDGE\tDATASET\tPARENT")
	for _, r := range runs {
		state := "interrupted"
		switch lr, ok := live[r.ID]; {
		case ok:
			state = fmt.Sprintf("running (pid %d, %s)", lr.PID, sanitize.Line(lr.Role))
		case r.FinishedAt != nil && r.Cancelled:
			state = "cancelled"
		case r.FinishedAt != nil:
			state = "finished " + r.FinishedAt.Sub(r.StartedAt).Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", sanitize.Line(r.ID), r.StartedAt.Local().Format("2006-01-02 15:04:05"), state, r.Samples,
			sanitize.Line(r.Judge.Name), sanitize.Line(r.Dataset), sanitize.Line(r.Parent))
	}
	tw.Flush()
	return exitOK
}

func cmdReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ragscope report", flag.ContinueOnError)
	fs.SetOutput(flagOutput(stderr))
	dbPath := fs.String("db", "", "database file")
	format := fs.String("format", "json", "json, csv or md")
	outPath := fs.String("out", "", "write to FILE instead of stdout")
	worst := fs.Int("worst", 10, "md: how many of the worst samples to list")
	pos, code, ok := parseArgs(fs, args, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "ragscope report: give one RUN id (or latest); see `ragscope runs`")
		return exitUsage
	}
	if *format != "json" && *format != "csv" && *format != "md" {
		fmt.Fprintf(stderr, "ragscope report: --format %q is not one of json, csv, md\n", *format)
		return exitUsage
	}
	db, infos, runs, err := storedRuns(*dbPath, pos[0])
	if err != nil {
		fmt.Fprintln(stderr, "ragscope report:", errText(err))
		return exitCode(err)
	}
	defer db.Close()
	info, results := infos[0], runs[0]
	var out io.Writer = stdout
	var fh *outfile.File
	if *outPath != "" {
		if fh, err = outfile.Create(*outPath); err != nil {
			fmt.Fprintln(stderr, "ragscope report: --out:", errText(err))
			return exitUsage
		}
		defer fh.Abort()
		out = fh
	}
	rep := eval.NewReport(info, results)
	switch *format {
	case "json":
		err = rep.WriteJSON(out)
	case "csv":
		err = rep.WriteCSV(out)
	case "md":
		err = rep.WriteMarkdown(out, *worst)
	}
	if err == nil && fh != nil {
		err = fh.Commit()
	}
	if err != nil {
		fmt.Fprintln(stderr, "ragscope report:", errText(err))
		return exitFatal
	}
	return exitOK
}

// cmdRunsDelete is `ragscope runs delete RUN...` and `ragscope runs prune
// --older-than AGE [--keep N]`: they remove run records and all their
// results (never judge-call cache entries). A run being evaluated is not
// deleted: delete refuses, prune keeps it and says so.
func cmdRunsDelete(sub string, args []string, stdout, stderr io.Writer) int {
	name := "ragscope runs " + sub
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(flagOutput(stderr))
	dbPath := fs.String("db", "", "database file")
	dryRun := fs.Bool("dry-run", false, "print what would be deleted and delete nothing")
	var (
		olderThan = new(string)
		keep      = new(int)
	)
	if sub == "prune" {
		fs.StringVar(olderThan, "older-than", "", "delete runs started more than this long ago (e.g. 30d, 12h); required")
		fs.IntVar(keep, "keep", 0, "always keep the newest N runs")
	}
	pos, code, ok := parseArgs(fs, args, stderr)
	if !ok {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, name+":", errText(err))
		return exitCode(err)
	}
	var age time.Duration
	switch {
	case sub == "delete" && len(pos) == 0:
		return fail(errorf("give the RUNs to delete (ids, unique prefixes or %s); see `ragscope runs`", cache.LatestRun))
	case sub == "prune" && len(pos) > 0:
		return fail(errorf("takes no runs (got %q); use `ragscope runs delete RUN...` to delete given runs", pos))
	case sub == "prune" && *olderThan == "":
		return fail(errorf("--older-than is required (e.g. --older-than 30d)"))
	case sub == "prune" && *keep < 0:
		return fail(errorf("--keep must not be negative (got %d)", *keep))
	case sub == "prune":
		var err error
		if age, err = parseAge(*olderThan); err != nil {
			return fail(errorf("--older-than: %v", err))
		}
	}
	mode := app.Write
	if *dryRun {
		mode = app.Read
	}
	db, err := app.Open(*dbPath, app.OpenOptions{Mode: mode})
	if err != nil {
		return fail(err)
	}
	defer db.Close()
	live, err := db.Live()
	if err != nil {
		return fail(err)
	}

	type target struct {
		info    eval.RunInfo
		results int
	}
	var targets []target
	seen := map[string]bool{}
	add := func(ref string) error {
		info, rs, err := db.Run(ref)
		if err != nil {
			if errors.Is(err, cache.ErrDamaged) {
				return err
			}
			return usageError{Err: err}
		}
		if seen[info.ID] {
			return nil
		}
		seen[info.ID] = true
		n := 0
		for _, r := range rs {
			if r != nil {
				n++
			}
		}
		targets = append(targets, target{info, n})
		return nil
	}
	if sub == "delete" {
		for _, ref := range pos {
			if err := add(ref); err != nil {
				return fail(err)
			}
		}
		ids := make([]string, len(targets))
		for i, t := range targets {
			ids[i] = t.info.ID
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
			if i < *keep || !r.StartedAt.Before(cutoff) {
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
	if len(targets) == 0 {
		fmt.Fprintf(stdout, "no runs to delete in %s\n", sanitize.Line(db.Path()))
		return exitOK
	}

	verb := "deleting"
	if *dryRun {
		verb = "would delete"
	}
	ids := make([]string, len(targets))
	results := 0
	for i, t := range targets {
		ids[i] = t.info.ID
		results += t.results
		fmt.Fprintf(stdout, "%s run %s  started %s  %s\n", verb, sanitize.Line(t.info.ID),
			t.info.StartedAt.Local().Format("2006-01-02 15:04:05"), countOf(t.results, "result"))
	}
	if *dryRun {
		fmt.Fprintf(stdout, "would delete %s and %s from %s (dry run: nothing was deleted)\n", countOf(len(targets), "run"), countOf(results, "result"), sanitize.Line(db.Path()))
		return exitOK
	}
	nRuns, nResults, err := db.DeleteRuns(ids)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "deleted %s and %s from %s (run `ragscope cache compact` to shrink the file)\n", countOf(nRuns, "run"), countOf(nResults, "result"), sanitize.Line(db.Path()))
	return exitOK
}

func countOf(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
