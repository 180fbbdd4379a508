package report

import (
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
)

// TestPaceETA: the ETA is the time a sample takes times the samples left,
// over the samples evaluated at once, from the first finish on; results an
// earlier attempt left (no start event) and samples a stop cut short say
// nothing of the pace.
func TestPaceETA(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ok := &eval.Result{Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}}
	cut := &eval.Result{Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.ContextRecall: eval.StatusCancelled}}
	start := func(i, ms int) eval.Event { return eval.Event{Kind: eval.EventSampleStarted, Sample: i, Time: at(ms)} }
	finish := func(i, ms int, r *eval.Result) eval.Event {
		return eval.Event{Kind: eval.EventSampleFinished, Sample: i, Time: at(ms), Result: r}
	}
	tests := []struct {
		name   string
		events []eval.Event
		left   int
		want   time.Duration // -1: no ETA yet
	}{
		{"nothing finished", []eval.Event{start(0, 0), start(1, 0)}, 24, -1},
		// 24 samples, 4 at a time, 3.6 s each: after the first, 23 left
		// take 23/4 × 3.6 s (the mean since the start said 23 × 3.6 s).
		{"the first finish of four workers", []eval.Event{start(0, 0), start(1, 0), start(2, 0), start(3, 0), finish(0, 3600, ok), start(4, 3600)},
			23, 20700 * time.Millisecond},
		{"a resumed result has no start", []eval.Event{start(0, 0), start(1, 0), finish(7, 10, ok), finish(0, 2000, ok)}, 10, 10 * time.Second},
		{"a cut sample is no pace", []eval.Event{start(0, 0), start(1, 0), finish(1, 10, cut), finish(0, 2000, ok)}, 10, 10 * time.Second},
		{"nothing left", []eval.Event{start(0, 0), finish(0, 2000, ok)}, 0, 0},
		// Four workers finishing together at first: the sample's time
		// over the workers, not the few milliseconds between them.
		{"the first workers' finishes come together", []eval.Event{start(0, 0), start(1, 0), start(2, 0), start(3, 0),
			finish(0, 4000, ok), finish(1, 4010, ok), finish(2, 4020, ok)}, 12, 12030 * time.Millisecond},
		// Finished samples waiting to be stored: many in flight, a quick
		// sample each, one finish every 500 ms: the finishes' pace decides.
		{"the pace of the finishes", func() []eval.Event {
			var evs []eval.Event
			for i := range 10 {
				evs = append(evs, start(i, 0))
			}
			for i := range 10 {
				evs = append(evs, finish(i, 1000+500*i, ok))
			}
			return evs
		}(), 100, 50 * time.Second},
		// One worker, followed from another process: the next start is
		// seen before the end before it; the times say one at a time.
		{"a start seen before an earlier end", []eval.Event{start(0, 0), start(1, 2100), finish(0, 2000, ok)}, 10, 20 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Pace
			for i := range tt.events {
				p.Observe(&tt.events[i])
			}
			got, known := p.ETA(tt.left)
			if tt.want < 0 {
				if known {
					t.Fatalf("ETA %s before any sample finished", got)
				}
				return
			}
			if !known || got != tt.want {
				t.Fatalf("ETA %s (%v), want %s", got, known, tt.want)
			}
		})
	}
}
