package report

import (
	"time"

	"github.com/ragscope/ragscope/eval"
)

// WatchStatus is what a watcher following a live log (ragscope watch)
// says about itself to its clients, polled about once a second. It lives
// here, not in internal/watch, because the TUI imports eval/report and
// nothing under internal. The zero WatchStatus is a watcher caught up with
// no alerts configured.
type WatchStatus struct {
	// Files is how many log files are followed now (a glob or a directory
	// grows as the service rotates).
	Files int
	// Read is how many records were read since the watcher started;
	// Evaluated how many of them were evaluated and stored; Duplicates,
	// Sampled and Invalid how many were skipped as seen, by --sample, or as
	// unreadable.
	Read, Evaluated, Duplicates, Sampled, Invalid int64
	// Behind is how many records read wait for the judge; BehindBytes how
	// many bytes of the logs are not read yet (a full queue stops reading).
	Behind      int
	BehindBytes int64
	// OldestUnread is the age of the oldest record not evaluated yet (how
	// far behind the log the judge is, in time); 0 when caught up.
	OldestUnread time.Duration
	// RunID is the run the results go to now (the rolling run of the
	// current window).
	RunID string
	// Alerts is the state of every --alert rule, in the order given.
	Alerts []AlertState
	// Elsewhere names the watcher when it is another process: its counts
	// are known only there.
	Elsewhere string
}

// AlertState is one --alert rule (METRIC<X over N) and where it stands.
type AlertState struct {
	// Rule is the rule as written, e.g. "faithfulness<0.7 over 50".
	Rule   string
	Metric eval.Metric
	// Below is true for '<' (breach when the mean falls under Threshold),
	// false for '>'.
	Below     bool
	Threshold float64
	// Window is N: the mean is over the last N scored samples.
	Window int
	// Mean is the rolling mean over the last Count (≤ Window) scored
	// samples; nil before the first score.
	Mean  *float64
	Count int
	// Firing is true while the mean is in breach (fired once on crossing);
	// Fired counts the crossings and Since is when the breach began.
	Firing bool
	Fired  int
	Since  time.Time
}
