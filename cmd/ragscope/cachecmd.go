package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ragscope/ragscope/app"
	"github.com/ragscope/ragscope/app/outfile"
	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/sanitize"
)

const cacheUsage = `Usage:
  ragscope cache stats   [--db FILE]                 entries and bytes per kind, hit rate of the last run
  ragscope cache compact [--db FILE]                 rewrite the file without free pages (bbolt never shrinks)
  ragscope cache clear   [--db FILE] [--older-than 30d]   remove judge-call cache entries (runs are kept)
  ragscope cache export  [--db FILE] FILE            write the call cache as JSONL (share it with a team)
  ragscope cache import  [--db FILE] FILE            merge an exported cache
`

func cmdCache(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, cacheUsage)
		return exitUsage
	}
	sub := args[0]
	fs := flag.NewFlagSet("ragscope cache "+sub, flag.ContinueOnError)
	fs.SetOutput(flagOutput(stderr))
	dbPath := fs.String("db", "", "database file")
	olderThan := fs.String("older-than", "", "clear: only entries older than this (e.g. 30d, 12h)")
	pos, code, ok := parseArgs(fs, args[1:], stderr)
	if !ok {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "ragscope cache %s: %s\n", sanitize.Line(sub), errText(err))
		return exitCode(err)
	}
	needFile := func() (string, bool) {
		if len(pos) != 1 {
			fmt.Fprintf(stderr, "ragscope cache %s: give one FILE\n", sanitize.Line(sub))
			return "", false
		}
		return pos[0], true
	}
	switch sub {
	case "stats", "clear", "export", "import", "compact":
	default:
		fmt.Fprintf(stderr, "ragscope cache: unknown command %q\n%s", sub, cacheUsage)
		return exitUsage
	}
	if sub == "compact" {
		path := *dbPath
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
		fmt.Fprintf(stdout, "compacted %s: %s -> %s\n", sanitize.Line(path), humanBytes(before), humanBytes(after))
		return exitOK
	}
	mode := app.Write
	if sub == "stats" || sub == "export" {
		mode = app.Read
	}
	db, err := app.Open(*dbPath, app.OpenOptions{Mode: mode})
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
		fmt.Fprintf(stdout, "database %s (%s on disk)\n", sanitize.Line(st.Path), humanBytes(st.FileSize))
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "KIND\tENTRIES\tBYTES")
		for _, k := range st.Kinds {
			fmt.Fprintf(tw, "%s\t%d\t%s\n", sanitize.Line(k.Kind), k.Entries, humanBytes(k.Bytes))
		}
		tw.Flush()
		if r := st.LastRun; r != nil {
			fmt.Fprintf(stdout, "last run %s: %d calls sent, %d cache hits (hit rate %.1f%%)\n", sanitize.Line(r.ID), r.Calls.Sent(), r.Calls.CacheHits, r.Calls.HitRate())
		}
	case "clear":
		var d time.Duration
		if *olderThan != "" {
			if d, err = parseAge(*olderThan); err != nil {
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

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
