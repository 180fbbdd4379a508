package report

import (
	"time"

	"github.com/ragscope/ragscope/eval"
)

// Pace estimates when a run ends. Once as many samples finished as were
// evaluated at once, and their finishes span the time a sample takes, it
// is the rate they come at over the last paceSpan to 2×paceSpan: that holds whatever the concurrency, follows a
// run whose pace changes (a rate limit), and counts no worker for a
// sample finished but waiting to be stored (the offline judge outruns the
// store). Before that, when the first workers' finishes come together, it
// is Little's law: (samples evaluated at once) / (time a sample takes),
// each measured from the sample's own start event. A result with no start
// event, a sample cut short and an event with no time say nothing of the
// pace. The zero Pace is ready; not safe for concurrent use.
type Pace struct {
	started map[int]time.Time // the samples in flight
	peak    int               // the most samples in flight at once: the workers
	took    [paceWindow]time.Duration
	n, next int
	sum     time.Duration

	// finished counts the finishes measured; from and mid are two marks
	// (a time and the count then) the rate is measured since: from at most
	// 2×paceSpan back, mid the next one.
	finished  int
	last      time.Time
	from, mid paceMark
}

type paceMark struct {
	at    time.Time
	count int
}

// paceWindow is how many recent samples the time a sample takes is
// measured over; paceSpan how far back the rate of finishes is.
const (
	paceWindow = 64
	paceSpan   = 10 * time.Second
)

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
		p.finished++
		if ev.Time.After(p.last) {
			p.last = ev.Time
		}
		switch {
		case p.finished == 1:
			p.from, p.mid = paceMark{at: ev.Time, count: 1}, paceMark{at: ev.Time, count: 1}
		case p.last.Sub(p.mid.at) >= paceSpan:
			p.from, p.mid = p.mid, paceMark{at: p.last, count: p.finished}
		default:
			// Finishes at a mark's instant (a batch) are before the rate.
			for _, m := range []*paceMark{&p.from, &p.mid} {
				if ev.Time.Equal(m.at) {
					m.count = p.finished
				}
			}
		}
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
	if span, done := p.last.Sub(p.from.at), p.finished-p.from.count; p.finished >= p.peak && done > 0 && span > 0 && span >= mean {
		return time.Duration(float64(span) / float64(done) * float64(left)), true
	}
	return time.Duration(float64(mean) * float64(left) / float64(max(p.peak, 1))), true
}
