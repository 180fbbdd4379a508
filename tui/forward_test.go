package tui

import (
	"context"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
)

func callEvents(n, sample int) []eval.Event {
	out := make([]eval.Event, n)
	for i := range out {
		out[i] = eval.Event{Kind: eval.EventCall, Sample: sample, InFlight: i, Call: &eval.CallRecord{Task: "t"}}
	}
	return out
}

func resultEvents(n int) []eval.Event {
	out := make([]eval.Event, n)
	for i := range out {
		out[i] = eval.Event{Kind: eval.EventSampleFinished, Sample: i, Result: &eval.Result{Index: i}}
	}
	return out
}

// collectForward forwards in as stream 3 and returns the batches sent,
// failing the test if one carries another tag.
func collectForward(t *testing.T, ctx context.Context, every time.Duration, in []eval.Event) [][]eval.Event {
	t.Helper()
	const stream = 3
	ch := make(chan eval.Event)
	var batches [][]eval.Event
	var tags []int
	done := make(chan struct{})
	go func() {
		Forward(ctx, func(msg tea.Msg) {
			em := msg.(EventsMsg)
			batches = append(batches, em.Events)
			tags = append(tags, em.Stream)
		}, stream, ch, every)
		close(done)
	}()
	for _, ev := range in {
		ch <- ev
	}
	close(ch)
	<-done
	for i, tag := range tags {
		if tag != stream {
			t.Fatalf("batch %d tagged stream %d, want %d", i, tag, stream)
		}
	}
	return batches
}

func sameEvents(a, b eval.Event) bool {
	return a.Kind == b.Kind && a.Sample == b.Sample && a.InFlight == b.InFlight
}

// With an interval no test outlives, a batch can only go at once (the
// first, the run's end) or at the close: the count of batches is then the
// pacing's, whatever the number of events and however the goroutines are
// scheduled.
func TestForwardPacesBatches(t *testing.T) {
	var mixed []eval.Event
	mixed = append(mixed, eval.Event{Kind: eval.EventRunStarted, Total: 2, Sample: -1})
	mixed = append(mixed, callEvents(100, 0)...)
	mixed = append(mixed, eval.Event{Kind: eval.EventRetry, Sample: 0})
	mixed = append(mixed, eval.Event{Kind: eval.EventSampleFinished, Sample: 0, Result: &eval.Result{Index: 0}})
	mixed = append(mixed, callEvents(50, 1)...)
	mixed = append(mixed, eval.Event{Kind: eval.EventError, Sample: 1, Metric: eval.Faithfulness, Err: "HTTP 500"})
	mixed = append(mixed, callEvents(7, 1)...)
	tests := []struct {
		name       string
		in         []eval.Event
		maxBatches int
	}{
		{"a burst of 5000 results", resultEvents(5000), 2},
		{"calls, retries, results and a metric's error", mixed, 2},
		{"the run's end goes at once", append(append(resultEvents(300), eval.Event{Kind: eval.EventRunFinished, Sample: -1}), callEvents(20, 0)...), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			batches := collectForward(t, context.Background(), time.Hour, tt.in)
			if len(batches) > tt.maxBatches {
				t.Fatalf("%d batches for %d events, want at most %d: not paced", len(batches), len(tt.in), tt.maxBatches)
			}
			var all []eval.Event
			for i, b := range batches {
				if len(b) == 0 {
					t.Fatalf("batch %d is empty", i)
				}
				all = append(all, b...)
			}
			if !slices.EqualFunc(all, tt.in, sameEvents) {
				t.Fatalf("events lost or reordered: got %d, sent %d", len(all), len(tt.in))
			}
		})
	}
}

// Some events must not wait for the next slot: the first after a quiet
// spell (a sparse run looks immediate), the run's end, and the run's own
// error (it stopped: the user must read why). The channel stays open and
// the interval is an hour, so only the at-once rule can deliver them.
func TestForwardSendsAtOnce(t *testing.T) {
	tests := []struct {
		name string
		lead []eval.Event // sent first; the first of them goes at once
		last eval.Event   // must arrive without the timer or the close
	}{
		{"the first result", nil, eval.Event{Kind: eval.EventSampleFinished, Sample: 4, Result: &eval.Result{Index: 4}}},
		{"the run's end after a burst", resultEvents(200), eval.Event{Kind: eval.EventRunFinished, Sample: -1}},
		{"the run's error after calls", callEvents(50, 0), eval.Event{Kind: eval.EventError, Sample: -1, Err: "401 invalid key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := make(chan eval.Event)
			got := make(chan []eval.Event, 16)
			done := make(chan struct{})
			go func() {
				Forward(context.Background(), func(msg tea.Msg) { got <- msg.(EventsMsg).Events }, 0, ch, time.Hour)
				close(done)
			}()
			want := append(slices.Clone(tt.lead), tt.last)
			for _, ev := range want {
				ch <- ev
			}
			var all []eval.Event
			deadline := time.After(20 * time.Second)
			for len(all) < len(want) {
				select {
				case b := <-got:
					all = append(all, b...)
				case <-deadline:
					t.Fatalf("%d of %d events delivered while the channel is open", len(all), len(want))
				}
			}
			if !slices.EqualFunc(all, want, sameEvents) {
				t.Fatalf("events reordered")
			}
			close(ch)
			<-done
		})
	}
}

func TestForwardFlushesOnTheTimer(t *testing.T) {
	ch := make(chan eval.Event)
	got := make(chan []eval.Event, 4)
	go Forward(context.Background(), func(msg tea.Msg) { got <- msg.(EventsMsg).Events }, 0, ch, time.Millisecond)
	for _, ev := range callEvents(3, 0) {
		ch <- ev
	}
	// No run event and no close: what the first batch did not take, only
	// the timer can deliver.
	var n int
	for n < 3 {
		select {
		case b := <-got:
			n += len(b)
		case <-time.After(10 * time.Second):
			t.Fatalf("call events not delivered by the timer (%d of 3)", n)
		}
	}
	close(ch)
}

func TestForwardDrainsAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := append(callEvents(20, 0), eval.Event{Kind: eval.EventSampleFinished, Result: &eval.Result{}})
	// collectForward blocks on every send: it returning proves the runner
	// is never left blocked once the interface has gone.
	if b := collectForward(t, ctx, time.Hour, in); len(b) != 0 {
		t.Fatalf("%d batches sent after the context ended", len(b))
	}
}
