package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ragscope/ragscope/internal/clidoc"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/store"
	"github.com/ragscope/ragscope/internal/watch"
)

// watchFlagsFromRun are the flags of run that watch shares: the judge,
// the record decoding, the database and the log.
var watchFlagsFromRun = []string{
	"judge", "base-url", "api-key", "api-type", "api-version", "model", "embedding-model", "embedding-base-url",
	"embedding-dimensions", "embedding-format", "response-format", "reasoning", "max-tokens", "temperature", "strictness", "ac-weights", "fc-mode", "ns-mode", "history-support", "no-n", "metrics", "criteria", "lang", "pass",
	"prompts", "offline", "concurrency", "request-timeout", "max-retries", "max-retry-after", "rpm", "tpm", "max-reply-bytes",
	"map", "max-record-bytes", "db", "no-cache", "cache-only", "headless", "log", "ascii", "config", "prices",
}

// watchCommand is `ragscope watch`: follow live logs and evaluate each new
// record once.
func (c *cli) watchCommand() *cobra.Command {
	var f runFlags
	var fc watch.Config
	var progress time.Duration
	cmd := &cobra.Command{
		Use:   "watch [flags] LOG...",
		Short: "Follow JSON Lines logs (files, globs, directories) and evaluate each new record once, into a rolling run",
		Long: `Follow one or more JSON Lines logs, in the record formats of run, and evaluate each record as it is appended. A LOG is a file, a glob ('logs/app.jsonl*', quoted) or a directory; rotation by rename, copytruncate and gzip'd rotated files are followed. Each record is evaluated exactly once: the place in every file and a hash of every record's content are stored with its result, so a restart (even after kill -9) goes on where the last one stopped, and a record logged twice is evaluated once.

Results go to one run per local day (or --window), which runs, report and open show while it grows. The default metrics need no reference: ` + watch.DefaultMetrics + `.

Exit status: 0 after a clean stop (SIGINT, SIGTERM) or, with --once, once what the logs held is evaluated; 1 when the watcher cannot go on (the judge down, the database unwritable); 2 bad flags.`,
		Example: `ragscope watch --headless 'logs/assistant.jsonl*'
ragscope watch --headless --sample 0.1 --max-rps 2 --alert 'faithfulness<0.7 over 50' --alert-exec 'mail -s ragscope ops@example.com' logs/
ragscope watch --headless --once --window 1h logs/app.jsonl`,
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			if len(pos) == 0 {
				return usageHint(c.stderr, cmd, "give at least one LOG: a JSON Lines file, a glob or a directory, e.g. ragscope watch --headless logs/app.jsonl")
			}
			if !f.headless && (!isTerminal(os.Stdout) || !isTerminal(os.Stdin)) {
				return failed(c.stderr, "ragscope watch", exit.Usagef("the follow screen needs a terminal; use --headless in scripts and services"))
			}
			if err := f.Validate(); err != nil {
				return failedAsIs(c.stderr, "ragscope", exit.UsageError{Err: err})
			}
			if fc.Sample == 0 {
				// Prepare reads an unset fraction as all; from the flag, 0 means none.
				return failed(c.stderr, "ragscope watch", exit.Usagef("--sample 0: give the fraction of records to evaluate, more than 0 and at most 1 (e.g. 0.1)"))
			}
			fc.Logs = pos
			ctx, stop := interruptible()
			defer stop()
			st, err := store.Open(f.DB, store.OpenOptions{Mode: store.Hold, Role: "watch", Stderr: c.stderr})
			if err != nil {
				return failedAsIs(c.stderr, "ragscope", err)
			}
			defer st.Close()
			// While the screen is up nothing else may write to the terminal:
			// the watcher's warnings (a bad line, a failed alert command)
			// are held and written when it closes.
			var warnings io.Writer = c.stderr
			held := &heldLines{max: 200}
			if !f.headless {
				warnings = held
			}
			w, err := watch.Prepare(&f.Config, fc, st, warnings)
			if err != nil {
				return failedAsIs(c.stderr, "ragscope", err)
			}
			defer w.Close()
			if !f.headless {
				code, err := watch.Interactive(ctx, w, st, f.ascii, c.stderr)
				held.writeTo(c.stderr)
				if err != nil {
					return failedAsIs(c.stderr, "ragscope watch", err)
				}
				return code
			}
			if err := watch.Headless(ctx, w, c.stderr, progress); err != nil {
				return failedAsIs(c.stderr, "ragscope watch", err)
			}
			return exit.OK
		}),
	}
	// run's own definitions, so that the shared flags read and default the
	// same in both commands; only those that mean something here are taken.
	fs := cmd.Flags()
	fs.SortFlags = false
	addRunFlagsOf(&f, fs, []clidoc.FlagGroup{{Flags: watchFlagsFromRun}})
	_ = fs.Lookup("metrics").Value.Set(watch.DefaultMetrics)
	fs.Lookup("metrics").DefValue = watch.DefaultMetrics
	fs.Lookup("headless").Usage = "follow without the TUI: progress and alerts on stderr, until SIGINT/SIGTERM (or --once)"
	fc.Sample = 1
	fs.Var(number(&fc.Sample), "sample", "evaluate this fraction of the records (0 < F <= 1), chosen by content hash: the same records after a restart")
	fs.Var(number(&fc.MaxRPS), "max-rps", "cap on records started per second (0: none); --rpm caps judge requests")
	fs.DurationVar(&fc.Window, "window", 0, "length of a rolling run, e.g. 1h (default: one run per local day)")
	fs.StringArrayVar(&fc.Alerts, "alert", nil, "alert when a rolling mean crosses a threshold: 'METRIC<X over N' or 'METRIC>X over N'; repeatable")
	fs.StringVar(&fc.AlertExec, "alert-exec", "", "run CMD (with sh -c) on each alert, the details as JSON on its stdin")
	fs.DurationVar(&fc.AlertTimeout, "alert-timeout", 10*time.Second, "kill an --alert-exec command still running after this long")
	fs.BoolVar(&fc.Once, "once", false, "evaluate what the logs hold now and exit (cron, tests)")
	fs.IntVar(&fc.Queue, "queue", 256, "records read ahead of the judge at most; when full, reading waits (the log is the buffer)")
	fs.DurationVar(&fc.Poll, "poll", 250*time.Millisecond, "how often the logs are looked at")
	fs.DurationVar(&progress, "progress", 5*time.Second, "how often the headless progress line is written (when it changed)")
	return cmd
}

// heldLines keeps the last max lines written to it, for writing later.
type heldLines struct {
	mu      sync.Mutex
	max     int
	lines   [][]byte
	dropped int
	part    []byte
}

func (h *heldLines) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.part = append(h.part, p...)
	for i := bytes.IndexByte(h.part, '\n'); i >= 0; i = bytes.IndexByte(h.part, '\n') {
		h.lines = append(h.lines, append([]byte(nil), h.part[:i+1]...))
		h.part = h.part[i+1:]
		if len(h.lines) > h.max {
			h.lines = h.lines[1:]
			h.dropped++
		}
	}
	return len(p), nil
}

func (h *heldLines) writeTo(w io.Writer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dropped > 0 {
		fmt.Fprintf(w, "ragscope watch: %d earlier warnings not shown (the last %d follow)\n", h.dropped, h.max)
	}
	for _, l := range h.lines {
		_, _ = w.Write(l)
	}
	if len(h.part) > 0 {
		fmt.Fprintf(w, "%s\n", h.part)
	}
}
