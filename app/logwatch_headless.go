package app

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ragscope/ragscope/eval"
)

// FollowHeadless runs the watcher with a progress line on stderr every
// interval (when something changed) until ctx is done or, with --once,
// until what the logs held is evaluated. A clean stop on a signal is not a
// failure: it returns nil.
func FollowHeadless(ctx context.Context, f *Follower, stderr io.Writer, every time.Duration) error {
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
func ProgressLine(st eval.FollowStatus) string {
	line := fmt.Sprintf("run %s: %d read, %d evaluated, %d repeats, %d sampled out, %d invalid; behind: %d record(s) waiting, %s unread",
		orDash(st.RunID), st.Read, st.Evaluated, st.Duplicates, st.Sampled, st.Invalid, st.Behind, byteCount(st.BehindBytes))
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func byteCount(n int64) string {
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
