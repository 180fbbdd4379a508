// Package live is the live view of a run that another process evaluates:
// its stored results turned back into the runner's events as they are
// stored, so that the TUI and a waiting CLI follow it as a run of their own.
package live

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/holder"
)

const (
	// liveWait is how long one LiveUpdates waits for news before the
	// viewer checks that someone still evaluates the run.
	liveWait = 2 * time.Second
	// progressWait is liveWait when the evaluator's progress can be read,
	// to show the samples in flight before any of them is stored.
	progressWait = 500 * time.Millisecond
	// pollEvery bounds how often a viewer of a fast run reads its
	// progress: as often as the screen repaints.
	pollEvery = 250 * time.Millisecond
)

// progressReader tells what the evaluator of a live run last said of it.
type progressReader interface {
	RunProgress(id string) (holder.RunProgress, error)
}

// liveLister tells which runs are being evaluated right now.
type liveLister interface {
	Live() (map[string]holder.LiveRun, error)
}

// Events streams a run that another process evaluates as the runner events
// of a run of our own. The channel closes when the run ends, when its
// evaluator goes away without finishing it (the last event says so), or
// when ctx is done.
func Events(ctx context.Context, st cache.Store, runID string) <-chan eval.Event {
	out := make(chan eval.Event, 256)
	pr, _ := st.(progressReader)
	go func() {
		defer close(out)
		// gauge is the evaluator's last in-flight figure: every event
		// carries it, as the runner's own events do.
		gauge := 0
		send := func(ev eval.Event) bool {
			if ev.Time.IsZero() {
				ev.Time = time.Now()
			}
			if ev.Kind != eval.EventRunFinished {
				ev.InFlight = gauge
			}
			select {
			case out <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		}
		// sent remembers each sample's last result, so that a result read
		// twice is sent once (the TUI would count its calls twice), and one
		// rewritten (a resumed run redoing a failed sample) is sent again.
		var sent sentResults
		// started are the samples shown in flight and not yet finished.
		started := map[int]bool{}
		sendResult := func(r *eval.Result) bool {
			delete(started, r.Index)
			if !sent.changed(r) {
				return true
			}
			for _, c := range r.Calls {
				if !send(eval.Event{Kind: eval.EventCall, Sample: r.Index, Call: &c}) {
					return false
				}
			}
			return send(eval.Event{Kind: eval.EventSampleFinished, Sample: r.Index, Result: r})
		}
		ended := func(info report.RunInfo) bool {
			if info.FinishedAt == nil {
				return false
			}
			send(eval.Event{Kind: eval.EventRunFinished, Sample: -1, Time: *info.FinishedAt})
			return true
		}
		// load reads the whole run, a page at a time (a run of a million
		// samples is never in memory at once), then follows it from the
		// position taken before the read (sendResult drops what comes twice).
		load := func() (int64, bool) {
			pos, err := st.LiveUpdates(ctx, runID, -1, 0)
			if err != nil {
				return 0, false
			}
			info, _, _, err := st.RunPage(runID, 0, 0)
			if err != nil {
				send(eval.Event{Kind: eval.EventError, Sample: -1, Err: err.Error()})
				return 0, false
			}
			if !send(eval.Event{Kind: eval.EventRunStarted, Sample: -1, Total: info.Samples, Time: info.AttemptStart()}) {
				return 0, false
			}
			for from := 0; from >= 0; {
				var page []*eval.Result
				info, page, from, err = st.RunPage(runID, from, livePage)
				if err != nil {
					send(eval.Event{Kind: eval.EventError, Sample: -1, Err: err.Error()})
					return 0, false
				}
				for _, r := range page {
					if r != nil && !sendResult(r) {
						return 0, false
					}
				}
			}
			if ended(info) {
				return 0, false
			}
			return pos.Seq, true
		}
		// poll reads the evaluator's progress: the samples it has in
		// flight become rows, its totals the header's counts. It reports
		// whether the run is live, and known false when it cannot tell.
		var lastTotals eval.Totals
		poll := func() (live, known, ok bool) {
			if pr == nil {
				return true, false, true
			}
			rp, err := pr.RunProgress(runID)
			if err != nil {
				return true, false, true
			}
			if p := rp.Progress; p != nil {
				gauge = p.InFlight
				for _, smp := range p.Samples {
					if started[smp.Index] || sent.has(smp.Index) {
						continue
					}
					started[smp.Index] = true
					if !send(eval.Event{Kind: eval.EventSampleStarted, Sample: smp.Index, Time: smp.Started,
						Result: &eval.Result{Index: smp.Index, ID: smp.ID, Question: smp.Question, Answer: smp.Answer}}) {
						return false, true, false
					}
				}
				if t := (eval.Totals{Calls: p.Calls, Tokens: p.Tokens}); t != lastTotals {
					lastTotals = t
					if !send(eval.Event{Kind: eval.EventProgress, Sample: -1, Totals: &t}) {
						return false, true, false
					}
				}
			}
			return rp.Live, true, true
		}
		wait := liveWait
		if pr != nil {
			wait = progressWait
		}
		pos, ok := load()
		polled := time.Now()
		if ok {
			_, _, ok = poll()
		}
		// gone: the last poll found nobody evaluating the run; the next
		// LiveUpdates reads what it stored before it let go, if anything.
		gone := false
		for ok {
			b, err := st.LiveUpdates(ctx, runID, pos, wait)
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
			quiet := len(b.Results) == 0 && b.Run == nil
			if !quiet && time.Since(polled) < pollEvery {
				// Results pouring in: the run is live, and the progress
				// was read a moment ago.
				gone = false
				continue
			}
			polled = time.Now()
			live, known, sending := poll()
			if !sending {
				return
			}
			if !known {
				live = !quiet || stillLive(st, runID)
			}
			if quiet && gone && !live {
				send(eval.Event{Kind: eval.EventError, Sample: -1,
					Err: "the process evaluating run " + runID + " stopped before it finished; continue it with: ragscope run --resume " + runID})
				send(eval.Event{Kind: eval.EventRunFinished, Sample: -1})
				return
			}
			gone = !live
		}
	}()
	return out
}

// livePage is how many results a viewer reads at a time.
const livePage = 4096

// sentResults fingerprints the last result sent of each sample: 8 bytes a
// sample, so watching a run of a million costs 8 MB, not a string each.
type sentResults struct {
	dense  []uint64 // by sample index; 0: none sent
	sparse map[int]uint64
}

// changed records r and reports whether it differs from the last result
// sent for its sample (its statuses and its number of calls).
func (s *sentResults) changed(r *eval.Result) bool {
	h := fnv.New64a()
	for _, m := range eval.AllMetrics {
		st, ok := r.Status[m]
		if ok {
			h.Write([]byte(st))
		}
		h.Write([]byte{0})
	}
	fmt.Fprint(h, len(r.Calls))
	fp := h.Sum64() | 1 // never 0, which means "none sent"
	if r.Index >= 0 && r.Index < 1<<26 {
		if r.Index >= len(s.dense) {
			s.dense = slices.Grow(s.dense, r.Index+1-len(s.dense))[:r.Index+1]
		}
		if s.dense[r.Index] == fp {
			return false
		}
		s.dense[r.Index] = fp
		return true
	}
	if s.sparse == nil {
		s.sparse = map[int]uint64{}
	}
	if s.sparse[r.Index] == fp {
		return false
	}
	s.sparse[r.Index] = fp
	return true
}

// has says whether a result of sample index was sent.
func (s *sentResults) has(index int) bool {
	if index >= 0 && index < len(s.dense) {
		return s.dense[index] != 0
	}
	_, ok := s.sparse[index]
	return ok
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
