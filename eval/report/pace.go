package report

import (
	"time"

	"github.com/ragscope/ragscope/eval"
)

// Pace estimates when a run ends by Little's law: samples finish at
// (samples evaluated at once) / (time a sample takes), measured per sample
// from its own start event, so the estimate holds from the first finish
// on. A result with no start event, a sample cut short and an event with
// no time say nothing of the pace. The zero Pace is ready; not safe for
// concurrent use.
type Pace struct {
	started map[int]time.Time // the samples in flight
	peak    int               // the most samples in flight at once: the workers
	took    [paceWindow]time.Duration
	n, next int
	sum     time.Duration
}

// paceWindow is how many recent samples the time a sample takes is
// measured over: it follows a run whose pace changes (a rate limit).
const paceWindow = 64

// Observe reads a sample's start or finish; other events are ignored.
func (p *Pace) Observe(ev *eval.Event) {
	if ev.Sample < 0 || ev.Time.IsZero() {
		return
	}
	switch ev.Kind {
	case eval.EventSampleStarted:
		if p.started == nil {
			p.started = map[int]time.Time{}
		}
		p.started[ev.Sample] = ev.Time
	case eval.EventSampleFinished:
		t0, ok := p.started[ev.Sample]
		if !ok {
			return
		}
		// The workers: the samples that had started by this one's end,
		// by their times, not by the order the events came in (a client
		// following another process sees a start before an earlier end).
		inFlight := 0
		for _, t := range p.started {
			if !t.After(ev.Time) {
				inFlight++
			}
		}
		p.peak = max(p.peak, inFlight)
		delete(p.started, ev.Sample)
		if ev.Result != nil && ev.Result.Interrupted() {
			return
		}
		d := max(ev.Time.Sub(t0), 0)
		if p.n == paceWindow {
			p.sum -= p.took[p.next]
		} else {
			p.n++
		}
		p.took[p.next] = d
		p.sum += d
		p.next = (p.next + 1) % paceWindow
	}
}

// ETA is how long left more samples take at the run's pace; false before any finished.
func (p *Pace) ETA(left int) (time.Duration, bool) {
	if p.n == 0 {
		return 0, false
	}
	if left <= 0 {
		return 0, true
	}
	mean := p.sum / time.Duration(p.n)
	return time.Duration(float64(mean) * float64(left) / float64(max(p.peak, 1))), true
}
