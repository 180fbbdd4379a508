package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/holder"
	"github.com/ragscope/ragscope/internal/outfile"
	"github.com/ragscope/ragscope/internal/sanitize"
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
	cmd := &cobra.Command{Use: use, Short: short, ValidArgsFunction: cobra.NoFileCompletions, Args: noArgs(" (the database is given with --db FILE)")}
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
	fail := func(err error) int { return failedAsIs(stderr, "ragscope db "+sub, err) }
	path, err := store.DBPath(o.db)
	if err != nil {
		return fail(err)
	}
	if sub == "salvage" && o.out == "" {
		fmt.Fprintf(stderr, "ragscope db salvage: give the new database to write with --out NEW, e.g. --out %s.salvaged\n", path)
		return exit.Usage
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
	if err == nil && asJSON {
		err = writeJSON(stdout, rep)
	}
	if err != nil {
		return failedAsIs(stderr, "ragscope db check", err)
	}
	code := exit.OK
	if !rep.OK() {
		code = exit.Fatal
	}
	if asJSON {
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
	if err == nil && asJSON {
		err = writeJSON(stdout, rep)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ragscope db salvage: %v\n", err)
		if errors.Is(err, fs.ErrExist) {
			return exit.Usage
		}
		return exit.Fatal
	}
	if asJSON {
		return exit.OK
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
	return exit.OK
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

// cacheCommand is `ragscope cache` and its maintenance commands.
func (c *cli) cacheCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "Look after the judge-call cache: stats, compact, clear, export, import",
		Long:  `Every judge call (chat and embeddings) is cached in the database by the exact request, so an identical call is never paid twice. These commands show, shrink, clear and share that cache; stored runs are kept by all of them.`,
		Example: `ragscope cache stats
ragscope cache clear --older-than 30d && ragscope cache compact
ragscope cache export team-cache.jsonl`,
		RunE: c.action(func(cmd *cobra.Command, args []string) int { return missingSubcommand(c.stderr, cmd, args) }),
	}
	for _, sub := range []struct{ use, short string }{
		{"stats", "Entries and bytes per kind, and the hit rate of the last run"},
		{"compact", "Rewrite the file without its free pages (bbolt files never shrink by themselves)"},
		{"clear", "Remove judge-call cache entries (all, or those older than --older-than); runs are kept"},
		{"export FILE", "Write the call cache as JSONL, e.g. to share it with a team"},
		{"import FILE", "Merge an exported cache into the database"},
	} {
		cmd.AddCommand(c.cacheSubcommand(sub.use, sub.short))
	}
	return cmd
}

// missingSubcommand is a parent command run by itself, or with a word
// that names none of its commands.
func missingSubcommand(stderr io.Writer, cmd *cobra.Command, args []string) int {
	var names []string
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	if len(args) == 0 {
		return usageHint(stderr, cmd, "give a command: %s", strings.Join(names, ", "))
	}
	return usageHint(stderr, cmd, "unknown command %q (one of %s)", args[0], strings.Join(names, ", "))
}

func (c *cli) cacheSubcommand(use, short string) *cobra.Command {
	var dbPath, olderThan string
	cmd := &cobra.Command{Use: use, Short: short, ValidArgsFunction: cobra.NoFileCompletions, Args: noArgs("")}
	dbFlag(cmd.Flags(), &dbPath)
	switch cmd.Name() {
	case "clear":
		cmd.Flags().StringVar(&olderThan, "older-than", "", "only entries older than this (e.g. 30d, 12h)")
	case "export", "import":
		cmd.ValidArgsFunction = nil // FILE: the shell completes file names
		cmd.Args = exactArgs(1, "give one FILE")
	}
	cmd.RunE = c.action(func(cmd *cobra.Command, pos []string) int {
		return cacheRun(cmd, dbPath, olderThan, pos, c.stdout, c.stderr)
	})
	return cmd
}

func cacheRun(cmd *cobra.Command, dbPath, olderThan string, pos []string, stdout, stderr io.Writer) int {
	sub := cmd.Name()
	fail := func(err error) int { return failed(stderr, "ragscope cache "+sanitize.Line(sub), err) }
	if sub == "compact" {
		path := dbPath
		if path == "" {
			var err error
			if path, err = cache.DefaultPath(); err != nil {
				return fail(err)
			}
		}
		// Compaction rewrites the file, which only a process that has it to
		// itself may do: a holder serving it says who to stop. Nobody
		// serving it, Compact waits for the file lock.
		if h, held, err := heldBy(path); err != nil {
			return fail(err)
		} else if held {
			return fail(fmt.Errorf("database %s is in use by pid %d (ragscope %s); compaction rewrites the file: stop that process first", path, h.PID, h.Role))
		}
		before, after, err := cache.Compact(path, cache.Options{})
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "compacted %s: %s -> %s\n", sanitize.Line(path), store.ByteCount(before), store.ByteCount(after))
		return exit.OK
	}
	mode := store.Write
	if sub == "stats" || sub == "export" {
		mode = store.Read
	}
	db, err := store.Open(dbPath, store.OpenOptions{Mode: mode})
	if err != nil {
		return fail(err)
	}
	defer db.Close()
	switch sub {
	case "stats":
		st, err := db.Stats()
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "database %s (%s on disk)\n", sanitize.Line(st.Path), store.ByteCount(st.FileSize))
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "KIND\tENTRIES\tBYTES")
		for _, k := range st.Kinds {
			fmt.Fprintf(tw, "%s\t%d\t%s\n", sanitize.Line(k.Kind), k.Entries, store.ByteCount(k.Bytes))
		}
		tw.Flush()
		if r := st.LastRun; r != nil {
			fmt.Fprintf(stdout, "last run %s: %d calls sent, %d cache hits (hit rate %.1f%%)\n", sanitize.Line(r.ID), r.Calls.Sent(), r.Calls.CacheHits, r.Calls.HitRate())
		}
	case "clear":
		var d time.Duration
		if olderThan != "" {
			if d, err = parseAge(olderThan); err != nil {
				return fail(exit.Usagef("--older-than: %v", err))
			}
		}
		n, err := db.Clear(d)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "removed %d cache entries from %s (run `ragscope cache compact` to shrink the file)\n", n, sanitize.Line(db.Path()))
	case "export":
		file := pos[0]
		// Whole or not at all, and owner-only: the export holds every
		// prompt sent, contexts included.
		fh, err := outfile.Create(file)
		if err != nil {
			return fail(exit.Usagef("%v", err))
		}
		defer fh.Abort()
		n, err := db.Export(fh)
		if err == nil {
			err = fh.Commit()
		}
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "exported %d cache entries to %s\n", n, sanitize.Line(file))
	case "import":
		file := pos[0]
		fh, err := os.Open(file)
		if err != nil {
			return fail(exit.Usagef("%v", err))
		}
		defer fh.Close()
		n, err := db.Import(fh)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", file, err))
		}
		fmt.Fprintf(stdout, "imported %d new cache entries from %s into %s\n", n, sanitize.Line(file), sanitize.Line(db.Path()))
	}
	return exit.OK
}

// parseAge accepts Go durations plus a day suffix (30d).
func parseAge(s string) (time.Duration, error) {
	if strings.HasSuffix(s, "d") {
		n, err := strconv.Atoi(strings.TrimSuffix(s, "d"))
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not a number of days like 30d", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration like 30d or 12h", s)
	}
	return d, nil
}
