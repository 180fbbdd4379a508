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

// Forward moves runner events into the program in batches tagged with
// stream, at most one every `every` (the frame rate of a live run); an
// event after a quiet spell, the run's end and a run-level error go at
// once. Nothing is dropped or reordered. It returns when events is
// closed; once ctx is done it stops sending but keeps draining.
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
			// A burst goes as one batch, bounded.
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

// final is an event the user must see without waiting for the next slot.
func final(ev eval.Event) bool {
	return ev.Kind == eval.EventRunFinished || ev.Kind == eval.EventError && runError(&ev)
}

// runError is an error event of the run itself, not of one metric.
func runError(ev *eval.Event) bool { return ev.Metric == "" && ev.Err != "" }
