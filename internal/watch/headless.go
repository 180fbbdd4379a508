package watch

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/app"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/store"
)

// Headless runs the watcher with a progress line on stderr every
// interval (when something changed) until ctx is done or, with --once,
// until what the logs held is evaluated. A clean stop on a signal is not a
// failure: it returns nil.
func Headless(ctx context.Context, f *Watcher, stderr io.Writer, every time.Duration) error {
	fmt.Fprintf(stderr, "ragscope watch: %s; following %d LOG argument(s)\n", f.Banner(), len(f.fc.Logs))
	if h, ok := f.s.Store.(interface{ Holding() bool }); ok && !h.Holding() {
		fmt.Fprintln(stderr, "ragscope watch: the database is held by another ragscope process; results go through it")
	}
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	if every <= 0 {
		every = 5 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	last := ""
	for {
		select {
		case err := <-done:
			fmt.Fprintln(stderr, "ragscope watch: stopped; "+ProgressLine(f.Status()))
			return err
		case <-t.C:
			if line := ProgressLine(f.Status()); line != last {
				fmt.Fprintln(stderr, "ragscope watch: "+line)
				last = line
			}
		}
	}
}

// ProgressLine says where a watcher is: what it evaluated, skipped, and
// how far behind the log the judge is.
func ProgressLine(st report.WatchStatus) string {
	line := fmt.Sprintf("run %s: %d read, %d evaluated, %d repeats, %d sampled out, %d invalid; behind: %d record(s) waiting, %s unread",
		cmp.Or(st.RunID, "-"), st.Read, st.Evaluated, st.Duplicates, st.Sampled, st.Invalid, st.Behind, store.ByteCount(st.BehindBytes))
	if st.OldestUnread > 0 {
		line += fmt.Sprintf(", oldest %s", st.OldestUnread.Round(time.Second))
	}
	for _, a := range st.Alerts {
		if a.Firing {
			line += "; FIRING " + a.Rule
		}
	}
	return line
}

// Interactive runs the watcher under the TUI's watch mode: the screen of
// `open` on the live run the results go to, with the watcher's lag and
// alerts. A rolling run starts with its first record, so until then the
// wait is said on stderr. Quitting the screen stops the watcher.
func Interactive(ctx context.Context, f *Watcher, st *store.Shared, ascii bool, stderr io.Writer) (int, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f.Run(wctx) }()
	stopped := func() (int, error) {
		cancel()
		if err := <-done; err != nil && ctx.Err() == nil {
			return exit.Fatal, err
		}
		return exit.OK, nil
	}
	fmt.Fprintf(stderr, "ragscope watch: %s; waiting for the first record to evaluate (ctrl+c stops)\n", f.Banner())
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	// The screen follows a run the holder lists as live; the run id shows
	// in the status a moment before.
	live := func() bool {
		id := f.Status().RunID
		if id == "" {
			return false
		}
		l, err := st.Live()
		_, ok := l[id]
		return err == nil && ok
	}
	for !live() {
		select {
		case err := <-done:
			if err != nil {
				return exit.Fatal, err
			}
			fmt.Fprintln(stderr, "ragscope watch: stopped before any record was evaluated; "+ProgressLine(f.Status()))
			return exit.OK, nil
		case <-ctx.Done():
			return stopped()
		case <-tick.C:
		}
	}
	runID := f.Status().RunID
	code, err := app.Show(wctx, st, runID, ascii, report.Levels{}, f.Status, stderr)
	if err != nil {
		cancel()
		<-done
		return code, err
	}
	if now := f.Status().RunID; now != runID {
		fmt.Fprintf(stderr, "ragscope watch: the window of run %s ended; results went on to run %s\n", runID, now)
	}
	code, err = stopped()
	fmt.Fprintln(stderr, "ragscope watch: stopped; "+ProgressLine(f.Status()))
	return code, err
}
