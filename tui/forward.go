package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
)

// maxBatch bounds a batch so a burst of cached results still reaches the
// screen in slices rather than one long stall.
const maxBatch = 512

// Forward moves runner events into the program from one goroutine.
// Per-sample and run events are sent at once, together with whatever else
// is already waiting in the channel; call and retry events, which can come
// by the thousand per second, are held and sent at most every `every`.
// Order is preserved. Every batch is tagged with stream (see EventsMsg).
// It returns when events is closed, after a last flush. Once ctx is done
// it stops sending but keeps draining, so the runner never blocks on a
// reader that has gone away.
func Forward(ctx context.Context, send func(tea.Msg), stream int, events <-chan eval.Event, every time.Duration) {
	if every <= 0 {
		every = 50 * time.Millisecond
	}
	var pending []eval.Event
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if ctx.Err() == nil {
			send(EventsMsg{Stream: stream, Events: pending})
		}
		pending = nil
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
			if !urgent(ev) {
				if !armed {
					timer.Reset(every)
					armed = true
				}
				continue
			}
		drain:
			for len(pending) < maxBatch {
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

func urgent(ev eval.Event) bool {
	return ev.Kind != eval.EventCall && ev.Kind != eval.EventRetry
}
