package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
)

// drainMax bounds how many already-waiting events an immediate batch
// takes; the rest go in the next slot.
const drainMax = 4096

// Forward moves runner events into the program from one goroutine, in
// batches sent at most once every `every`: the program repaints after each
// message, so the batch rate is the frame rate of a live run, and over a
// slow SSH link every frame costs bytes. An event that arrives when the
// last batch is older than `every` goes at once, with whatever else is
// already waiting (a sparse run looks immediate); otherwise it waits for
// the next slot, with everything that arrives until then (a run pouring in
// results costs a few frames a second, whatever their number). The run's
// end and a run-level error are the exception: they go at once, so the
// user reads why a run stopped without waiting. Nothing is dropped and the
// order is kept. Every batch is tagged with stream (see EventsMsg).
//
// It returns when events is closed, after a last flush. Once ctx is done
// it stops sending but keeps draining, so the runner never blocks on a
// reader that has gone away.
func Forward(ctx context.Context, send func(tea.Msg), stream int, events <-chan eval.Event, every time.Duration) {
	if every <= 0 {
		every = forwardEvery
	}
	var pending []eval.Event
	var last time.Time // when the last batch went; zero: none yet
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if ctx.Err() == nil {
			send(EventsMsg{Stream: stream, Events: pending})
		}
		pending = nil
		last = time.Now()
	}
	timer := time.NewTimer(every)
	timer.Stop()
	armed := false
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				flush()
				return
			}
			pending = append(pending, ev)
			wait := every - time.Since(last)
			if !final(ev) && wait > 0 {
				if !armed {
					timer.Reset(wait)
					armed = true
				}
				continue
			}
			// Take what is already waiting, so a burst goes as one batch;
			// bounded, so a runner that never pauses still gets flushed.
		drain:
			for range drainMax {
				select {
				case ev, ok := <-events:
					if !ok {
						flush()
						return
					}
					pending = append(pending, ev)
				default:
					break drain
				}
			}
			flush()
		case <-timer.C:
			armed = false
			flush()
		}
	}
}

// final is an event the user must see without waiting for the next slot:
// the run's end, and an error of the run itself (it stopped).
func final(ev eval.Event) bool {
	return ev.Kind == eval.EventRunFinished || ev.Kind == eval.EventError && runError(&ev)
}

// runError is an error event of the run itself, not of one metric: the
// run stopped, and the user must read why.
func runError(ev *eval.Event) bool { return ev.Metric == "" && ev.Err != "" }
