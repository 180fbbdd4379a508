package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/internal/holder"
	"github.com/ragscope/ragscope/internal/store"
)

// dbCommand is `ragscope db`: checking a damaged database and copying
// what is readable out of it.
func (c *cli) dbCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Check a damaged database; salvage what is readable into a new one",
		Example: `ragscope db check
ragscope db salvage --db ragscope.db --out ragscope.salvaged.db`,
		RunE: c.action(func(cmd *cobra.Command, args []string) int { return missingSubcommand(c.stderr, cmd, args) }),
	}
	cmd.AddCommand(
		c.dbSubcommand("check", "Check the database file without writing to it; exit 1 when it is damaged"),
		c.dbSubcommand("salvage --out NEW", "Copy every run, result and cache entry still readable into a new database"))
	return cmd
}

func (c *cli) dbSubcommand(use, short string) *cobra.Command {
	var o dbOptions
	cmd := &cobra.Command{Use: use, Short: short, ValidArgsFunction: cobra.NoFileCompletions}
	fs := cmd.Flags()
	dbFlag(fs, &o.db)
	if cmd.Name() == "salvage" {
		fs.StringVar(&o.out, "out", "", "the new database to write (it must not exist)")
	}
	fs.BoolVar(&o.json, "json", false, "print the report as JSON")
	cmd.RunE = c.action(func(cmd *cobra.Command, pos []string) int { return o.run(cmd, pos, c.stdout, c.stderr) })
	return cmd
}

type dbOptions struct {
	db, out string
	json    bool
}

func (o *dbOptions) run(cmd *cobra.Command, pos []string, stdout, stderr io.Writer) int {
	sub := cmd.Name()
	if len(pos) > 0 {
		return usageHint(stderr, cmd, "unexpected argument %q (the database is given with --db FILE)", pos[0])
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "ragscope db %s: %v\n", sub, err)
		return exitCode(err)
	}
	path, err := store.DBPath(o.db)
	if err != nil {
		return fail(err)
	}
	if sub == "salvage" && o.out == "" {
		fmt.Fprintf(stderr, "ragscope db salvage: give the new database to write with --out NEW, e.g. --out %s.salvaged\n", path)
		return exitUsage
	}
	// A database that another ragscope process holds and serves opened
	// cleanly; its file is in use, and checking or copying it under a
	// writer would read pages being rewritten.
	if h, held, _ := heldBy(path); held {
		return fail(fmt.Errorf("database %s is in use by pid %d (ragscope %s), which opened it without finding damage; stop that process first to %s the file",
			path, h.PID, h.Role, sub))
	}
	if sub == "check" {
		return dbCheck(path, o.json, stdout, stderr)
	}
	return dbSalvage(path, o.out, o.json, stdout, stderr)
}

// heldBy names the process serving the database, if one does; the error
// is for a socket path that cannot be had at all.
func heldBy(path string) (holder.Hello, bool, error) {
	sock, err := holder.SocketPath(path)
	if err != nil {
		return holder.Hello{}, false, err
	}
	cl, err := holder.Dial(sock, 2*time.Second)
	if err != nil {
		return holder.Hello{}, false, nil
	}
	defer cl.Close()
	return cl.Hello(), true, nil
}

func dbCheck(path string, asJSON bool, stdout, stderr io.Writer) int {
	rep, err := cache.Check(path)
	if err != nil {
		fmt.Fprintf(stderr, "ragscope db check: %v\n", err)
		return exitFatal
	}
	code := exitOK
	if !rep.OK() {
		code = exitFatal
	}
	if asJSON {
		if err := writeJSON(stdout, rep); err != nil {
			fmt.Fprintf(stderr, "ragscope db check: %v\n", err)
			return exitFatal
		}
		return code
	}
	switch {
	case rep.OK():
		also := ""
		if rep.BoltChecked {
			also = " (bbolt's own check too)"
		}
		fmt.Fprintf(stdout, "database %s: ok, no problems found%s\n", path, also)
	case rep.NotDatabase:
		fmt.Fprintf(stdout, "database %s: NOT A RAGSCOPE DATABASE\n", path)
	default:
		fmt.Fprintf(stdout, "database %s: DAMAGED (%d problem%s)\n", path, rep.ProblemCount, plural(rep.ProblemCount))
	}
	if rep.PageSize > 0 {
		fmt.Fprintf(stdout, "  file %s; page size %d; the database extends to %s; transaction %d\n",
			store.ByteCount(rep.FileSize), rep.PageSize, store.ByteCount(rep.DBSize), rep.TxID)
	} else {
		fmt.Fprintf(stdout, "  file %s\n", store.ByteCount(rep.FileSize))
	}
	if !rep.NotDatabase {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  KIND\tREADABLE\tUNREADABLE")
		for _, k := range rep.Kinds {
			fmt.Fprintf(tw, "  %s\t%d\t%d\n", k.Kind, k.Readable, k.Unreadable)
		}
		tw.Flush()
	}
	if len(rep.Problems) > 0 {
		fmt.Fprintln(stdout, "problems:")
		for _, p := range rep.Problems {
			fmt.Fprintf(stdout, "  - %s\n", p)
		}
		if more := rep.ProblemCount - len(rep.Problems); more > 0 {
			fmt.Fprintf(stdout, "  ... and %d more\n", more)
		}
	}
	if len(rep.Warnings) > 0 {
		fmt.Fprintln(stdout, "warnings:")
		for _, w := range rep.Warnings {
			fmt.Fprintf(stdout, "  - %s\n", w)
		}
	}
	switch {
	case rep.OK():
	case rep.NotDatabase:
		fmt.Fprintf(stdout, "ragscope cannot use this file: pass --db FILE to use another database, or move %s aside\n", path)
	default:
		if len(rep.Salvageable) > 0 {
			var parts []string
			for _, k := range rep.Salvageable {
				parts = append(parts, fmt.Sprintf("%d %s", k.Copied, k.Kind))
			}
			fmt.Fprintf(stdout, "a salvage can copy about: %s\n", strings.Join(parts, ", "))
		}
		fmt.Fprintf(stdout, "to recover what is readable: ragscope db salvage --db %s --out %s\n", shq(path), shq(salvageName(path)))
	}
	return code
}

func dbSalvage(path, out string, asJSON bool, stdout, stderr io.Writer) int {
	rep, err := cache.Salvage(path, out)
	if err != nil {
		fmt.Fprintf(stderr, "ragscope db salvage: %v\n", err)
		if errors.Is(err, fs.ErrExist) {
			return exitUsage
		}
		return exitFatal
	}
	if asJSON {
		if err := writeJSON(stdout, rep); err != nil {
			fmt.Fprintf(stderr, "ragscope db salvage: %v\n", err)
			return exitFatal
		}
		return exitOK
	}
	how := map[string]string{
		cache.SalvageTree:        "the tree of the file was intact: everything was copied through it",
		cache.SalvageTreeAndScan: "the tree was damaged: what it still reached was copied, and every page of the file was scanned for the rest",
		cache.SalvageScan:        "no header page was readable: every page of the file was scanned",
	}[rep.Method]
	fmt.Fprintf(stdout, "salvaged %s into %s (method %s: %s)\n", path, out, rep.Method, how)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  KIND\tCOPIED\tLOST")
	for _, k := range rep.Kinds {
		lost := fmt.Sprint(k.Lost)
		switch {
		case k.AtLeast && k.Lost == 0:
			lost = "unknown"
		case k.AtLeast:
			lost = "at least " + lost
		}
		note := ""
		switch {
		case k.Kind == cache.KindRuns && len(rep.StubRuns) > 0:
			note = fmt.Sprintf("\t(%d more rebuilt from their results: dataset \"(salvaged)\")", len(rep.StubRuns))
		case k.Kind == cache.KindResults && rep.Unfinished > 0:
			note = fmt.Sprintf("\t(samples missing from %d unfinished run%s not counted)", rep.Unfinished, plural(rep.Unfinished))
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s%s\n", k.Kind, k.Copied, lost, note)
	}
	tw.Flush()
	if rep.BadPages > 0 {
		fmt.Fprintf(stdout, "%d page%s of the tree could not be read; what they held left no trace unless an older copy was found\n", rep.BadPages, plural(rep.BadPages))
	}
	if rep.FromScan > 0 {
		fmt.Fprintf(stdout, "%d entries came from the page scan only (it may also bring back entries deleted before the damage, e.g. by `cache clear`)\n", rep.FromScan)
	}
	if len(rep.Problems) > 0 {
		fmt.Fprintf(stdout, "damage found (%d): %s", rep.ProblemCount, rep.Problems[0])
		if rep.ProblemCount > 1 {
			fmt.Fprint(stdout, "; see `ragscope db check` for all of it")
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "%s is untouched. Use the new database with --db %s (e.g. ragscope runs --db %s), or move it into place: mv %s %s && mv %s %s\n",
		path, shq(out), shq(out), shq(path), shq(path+".damaged"), shq(out), shq(path))
	return exitOK
}

func salvageName(path string) string {
	if strings.HasSuffix(path, ".db") {
		return strings.TrimSuffix(path, ".db") + ".salvaged.db"
	}
	return path + ".salvaged"
}

// shq quotes a path for a command line the user may paste.
func shq(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeJSON writes v as indented JSON, as every --json of the CLI prints.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
