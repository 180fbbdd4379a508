package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/internal/outfile"
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/internal/store"
)

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
	cmd := &cobra.Command{Use: use, Short: short, ValidArgsFunction: cobra.NoFileCompletions}
	dbFlag(cmd.Flags(), &dbPath)
	switch cmd.Name() {
	case "clear":
		cmd.Flags().StringVar(&olderThan, "older-than", "", "only entries older than this (e.g. 30d, 12h)")
	case "export", "import":
		cmd.ValidArgsFunction = nil // FILE: the shell completes file names
	}
	cmd.RunE = c.action(func(cmd *cobra.Command, pos []string) int {
		return cacheRun(cmd, dbPath, olderThan, pos, c.stdout, c.stderr)
	})
	return cmd
}

func cacheRun(cmd *cobra.Command, dbPath, olderThan string, pos []string, stdout, stderr io.Writer) int {
	sub := cmd.Name()
	fail := func(err error) int { return failed(stderr, "ragscope cache "+sanitize.Line(sub), err) }
	needFile := func() (string, bool) {
		if len(pos) != 1 {
			usageHint(stderr, cmd, "give one FILE")
			return "", false
		}
		return pos[0], true
	}
	if takesFile := sub == "export" || sub == "import"; !takesFile && len(pos) > 0 {
		return usageHint(stderr, cmd, "unexpected argument %q", pos[0])
	}
	if sub == "compact" {
		path := dbPath
		if path == "" {
			var err error
			if path, err = cache.DefaultPath(); err != nil {
				return fail(err)
			}
		}
		if err := refuseWhileHeld(path); err != nil {
			return fail(err)
		}
		before, after, err := cache.Compact(path, cache.Options{})
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "compacted %s: %s -> %s\n", sanitize.Line(path), store.ByteCount(before), store.ByteCount(after))
		return exitOK
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
				return fail(errorf("--older-than: %v", err))
			}
		}
		n, err := db.Clear(d)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "removed %d cache entries from %s (run `ragscope cache compact` to shrink the file)\n", n, sanitize.Line(db.Path()))
	case "export":
		file, ok := needFile()
		if !ok {
			return exitUsage
		}
		// Whole or not at all, and owner-only: the export holds every
		// prompt sent, contexts included.
		fh, err := outfile.Create(file)
		if err != nil {
			return fail(errorf("%v", err))
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
		file, ok := needFile()
		if !ok {
			return exitUsage
		}
		fh, err := os.Open(file)
		if err != nil {
			return fail(errorf("%v", err))
		}
		defer fh.Close()
		n, err := db.Import(fh)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", file, err))
		}
		fmt.Fprintf(stdout, "imported %d new cache entries from %s into %s\n", n, sanitize.Line(file), sanitize.Line(db.Path()))
	}
	return exitOK
}

// refuseWhileHeld: compaction rewrites the file, which only a process that
// has it to itself may do; a holder serving it says who to stop.
func refuseWhileHeld(path string) error {
	h, held, err := heldBy(path)
	if err != nil || !held {
		return err // nobody serves it; Compact waits for the file lock
	}
	return fmt.Errorf("database %s is in use by pid %d (ragscope %s); compaction rewrites the file: stop that process first", path, h.PID, h.Role)
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
