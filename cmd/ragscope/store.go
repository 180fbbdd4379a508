package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/ragscope/ragscope/app"
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
