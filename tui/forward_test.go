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

func TestForwardKeepsOrderAndCoalescesCalls(t *testing.T) {
	var in []eval.Event
	in = append(in, eval.Event{Kind: eval.EventRunStarted, Total: 2, Sample: -1})
	in = append(in, callEvents(100, 0)...)
	in = append(in, eval.Event{Kind: eval.EventRetry, Sample: 0})
	in = append(in, eval.Event{Kind: eval.EventSampleFinished, Sample: 0, Result: &eval.Result{Index: 0}})
	in = append(in, callEvents(50, 1)...)
	in = append(in, eval.Event{Kind: eval.EventError, Sample: 1, Metric: eval.Faithfulness})
	in = append(in, callEvents(7, 1)...)

	// A timer that never fires: only per-sample events and the close flush.
	batches := collectForward(t, context.Background(), time.Hour, in)
	var all []eval.Event
	for i, b := range batches {
		if len(b) == 0 {
			t.Fatalf("batch %d is empty", i)
		}
		if !slices.ContainsFunc(b, urgent) && i != len(batches)-1 {
			t.Fatalf("batch %d holds only call events: sent without a per-sample event or the timer", i)
		}
		all = append(all, b...)
	}
	if !slices.EqualFunc(all, in, func(a, b eval.Event) bool {
		return a.Kind == b.Kind && a.Sample == b.Sample && a.InFlight == b.InFlight
	}) {
		t.Fatalf("events lost or reordered: got %d, sent %d", len(all), len(in))
	}
	if len(batches) > 4 {
		t.Fatalf("%d batches for %d events: calls were not coalesced", len(batches), len(in))
	}
	if last := batches[len(batches)-1]; last[len(last)-1].Kind != eval.EventCall {
		t.Fatal("trailing calls not flushed on close")
	}
}

func TestForwardFlushesCallsOnTheTimer(t *testing.T) {
	ch := make(chan eval.Event)
	got := make(chan []eval.Event, 4)
	go Forward(context.Background(), func(msg tea.Msg) { got <- msg.(EventsMsg).Events }, 0, ch, time.Millisecond)
	for _, ev := range callEvents(3, 0) {
		ch <- ev
	}
	// No per-sample event and no close: only the timer can deliver them.
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
