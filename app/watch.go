package app

import (
	"context"
	"fmt"
	"time"

	"github.com/ragscope/ragscope/app/holder"
	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

// watchWait is how long one Watch waits for news before the watcher checks
// that the run is still being evaluated by someone.
const watchWait = 2 * time.Second

// liveLister tells which runs are being evaluated right now.
type liveLister interface {
	Live() (map[string]holder.LiveRun, error)
}

// WatchRun streams a run that another process (or the server) evaluates as
// the same runner events a run of our own gives, built from the results as
// they are stored: the TUI shows it through its one event path. The channel
// closes when the run ends, when its evaluator goes away without finishing
// it (the last event then says so), or when ctx is done.
func WatchRun(ctx context.Context, st cache.Store, runID string) <-chan eval.Event {
	out := make(chan eval.Event, 256)
	go func() {
		defer close(out)
		send := func(ev eval.Event) bool {
			if ev.Time.IsZero() {
				ev.Time = time.Now()
			}
			select {
			case out <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		}
		// sent remembers what each sample's last result was, so a result
		// read twice (stored between taking a position and reading the
		// run, or read again after the holder changed) is sent once: the
		// TUI would count its calls twice. A result rewritten (a resumed
		// run redoing a failed sample) differs, and is sent.
		sent := map[int]string{}
		sendResult := func(r *eval.Result) bool {
			fp := fmt.Sprint(r.Status, len(r.Calls))
			if sent[r.Index] == fp {
				return true
			}
			sent[r.Index] = fp
			for i := range r.Calls {
				c := r.Calls[i]
				if !send(eval.Event{Kind: eval.EventCall, Sample: r.Index, Call: &c}) {
					return false
				}
			}
			return send(eval.Event{Kind: eval.EventSampleFinished, Sample: r.Index, Result: r})
		}
		ended := func(info eval.RunInfo) bool {
			if info.FinishedAt == nil {
				return false
			}
			send(eval.Event{Kind: eval.EventRunFinished, Sample: -1, Time: *info.FinishedAt})
			return true
		}
		// load reads the whole run, then follows it from the position taken
		// before the read (sendResult drops what comes twice).
		load := func() (int64, bool) {
			pos, err := st.Watch(ctx, runID, -1, 0)
			if err != nil {
				return 0, false
			}
			info, results, err := st.Run(runID)
			if err != nil {
				send(eval.Event{Kind: eval.EventError, Sample: -1, Err: err.Error()})
				return 0, false
			}
			if !send(eval.Event{Kind: eval.EventRunStarted, Sample: -1, Total: info.Samples, Time: info.StartedAt}) {
				return 0, false
			}
			for _, r := range results {
				if r != nil && !sendResult(r) {
					return 0, false
				}
			}
			if ended(info) {
				return 0, false
			}
			return pos.Seq, true
		}
		pos, ok := load()
		for ok {
			b, err := st.Watch(ctx, runID, pos, watchWait)
			if err != nil {
				if ctx.Err() == nil {
					send(eval.Event{Kind: eval.EventError, Sample: -1, Err: "watching the run: " + err.Error()})
				}
				return
			}
			if b.Reset {
				pos, ok = load()
				continue
			}
			for _, r := range b.Results {
				if !sendResult(r) {
					return
				}
			}
			if b.Run != nil && ended(*b.Run) {
				return
			}
			pos = b.Seq
			if len(b.Results) == 0 && b.Run == nil && !stillLive(st, runID) {
				send(eval.Event{Kind: eval.EventError, Sample: -1,
					Err: "the process evaluating run " + runID + " stopped before it finished; continue it with: ragscope run --resume " + runID})
				send(eval.Event{Kind: eval.EventRunFinished, Sample: -1})
				return
			}
		}
	}()
	return out
}

// stillLive says whether someone is evaluating the run; true when the store
// cannot tell.
func stillLive(st cache.Store, runID string) bool {
	ll, ok := st.(liveLister)
	if !ok {
		return true
	}
	live, err := ll.Live()
	if err != nil {
		return true
	}
	_, ok = live[runID]
	return ok
}
