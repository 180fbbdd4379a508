package tui

import (
	"context"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
)

// EventsMsg carries a batch of one stream's runner events, in order (see
// Forward). Stream 0 is the first run; a re-run's is tagged with its gen,
// so a superseded one's events are dropped.
type EventsMsg struct {
	Stream int
	Events []eval.Event
}

// streamClosedMsg follows the last event of a stream.
type streamClosedMsg struct{ stream int }

// forwardEvery is the frame interval of a live run: often enough to look
// live, seldom enough to spare a slow SSH link a frame per result.
const forwardEvery = 250 * time.Millisecond

// stream runs Forward over a stream's channel in a command.
func (m *Model) stream(ctx context.Context, tag int, events <-chan eval.Event) tea.Cmd {
	send := m.send
	return func() tea.Msg {
		if events != nil {
			Forward(ctx, send, tag, events, forwardEvery)
		}
		return streamClosedMsg{stream: tag}
	}
}

// drain reads a channel to its end for the reader that has gone.
func drain(events <-chan eval.Event) {
	for range events {
	}
}

// progress is what the interface counts of one run's events.
type progress struct {
	total, done                                         int
	inFlight, calls, cacheHits, retries, errors, tokens int
	cancelledCalls, cancelled                           int // cut short by a stop: neither errors nor done
	chat, embed                                         eval.Usage
	// reported are a watched run's totals (EventProgress), which count
	// samples not stored yet.
	reported *eval.Totals
}

// shown is the progress the header shows: the events' counts, or a
// watched run's totals when they are ahead.
func (p progress) shown() progress {
	r := p.reported
	if r == nil {
		return p
	}
	calls := r.Calls.Sent() + r.Calls.CacheHits + r.Calls.Errors
	if calls <= p.calls {
		return p
	}
	p.calls, p.cacheHits, p.errors = calls, r.Calls.CacheHits, r.Calls.Errors
	p.retries = max(p.retries, r.Calls.Retries)
	p.tokens = max(p.tokens, r.Tokens.PromptTokens+r.Tokens.CompletionTokens)
	return p
}

// sent counts as eval.CallCounts does, so the header and a report agree.
func (p *progress) sent() int { return p.calls - p.cacheHits - p.errors - p.cancelledCalls }

func (p *progress) count(ev *eval.Event) {
	p.inFlight = ev.InFlight
	switch ev.Kind {
	case eval.EventRunStarted:
		if ev.Total > 0 {
			p.total = ev.Total
		}
	case eval.EventCall:
		if ev.Call != nil {
			p.countCall(*ev.Call)
		}
	case eval.EventRetry:
		p.retries++
	case eval.EventProgress:
		if ev.Totals != nil {
			t := *ev.Totals
			p.reported = &t
		}
	}
}

func (p *progress) countCall(c eval.CallRecord) {
	p.calls++
	if c.Error != "" {
		if c.Cancelled {
			p.cancelledCalls++
		} else {
			p.errors++
		}
		return
	}
	if c.Cached {
		p.cacheHits++
		return
	}
	// A cached reply keeps the usage of the call that paid for it.
	p.tokens += c.Tokens.PromptTokens + c.Tokens.CompletionTokens
	u := &p.chat
	if c.Task == eval.TaskEmbeddings {
		u = &p.embed
	}
	u.PromptTokens += c.Tokens.PromptTokens
	u.CompletionTokens += c.Tokens.CompletionTokens
}

// finish counts a sample's result: done, or cancelled by a stop.
func (p *progress) finish(res *eval.Result) {
	if res.Interrupted() {
		p.cancelled++
		return
	}
	p.done++
}

// hasResult reports whether the row of a sample holds a finished result.
func (m *Model) hasResult(index int) bool {
	i, ok := m.byIndex.get(index)
	return ok && m.rows[i].done
}

// countStored counts a result given up front from its call records.
func (p *progress) countStored(res *eval.Result) {
	p.finish(res)
	for _, c := range res.Calls {
		p.countCall(c)
		p.retries += c.Retries
	}
}

// addCounts adds what countStored counted elsewhere.
func (p *progress) addCounts(q *progress) {
	p.done += q.done
	p.cancelled += q.cancelled
	p.calls += q.calls
	p.cacheHits += q.cacheHits
	p.errors += q.errors
	p.cancelledCalls += q.cancelledCalls
	p.tokens += q.tokens
	p.retries += q.retries
	p.chat.PromptTokens += q.chat.PromptTokens
	p.chat.CompletionTokens += q.chat.CompletionTokens
	p.embed.PromptTokens += q.embed.PromptTokens
	p.embed.CompletionTokens += q.embed.CompletionTokens
}

// applyEvents applies a batch of one stream to that run's progress and to
// the rows; a re-run's results replace the rows as they come.
func (m *Model) applyEvents(msg EventsMsg) tea.Cmd {
	p := &m.progress
	var rr *rerunState
	if msg.Stream != 0 {
		if rr = m.rerun; rr == nil || rr.gen != msg.Stream {
			return nil // a superseded re-run's last events
		}
		p = &rr.progress
	}
	m.takePresort(true) // it reads the rows
	changed, ended := false, false
	for i := range msg.Events {
		ev := &msg.Events[i]
		p.count(ev)
		if rr == nil {
			m.pace.Observe(ev)
		}
		switch ev.Kind {
		case eval.EventRunStarted:
			if rr == nil && m.opts.Started.IsZero() && !ev.Time.IsZero() {
				m.opts.Started = ev.Time
			}
		case eval.EventSampleStarted:
			// The row shows the texts it may carry; a row with a result
			// keeps it until the new one comes.
			if ev.Sample < 0 {
				continue
			}
			if _, ok := m.byIndex.get(ev.Sample); !ok {
				m.upsert(ev.Sample, nil)
				changed = true
			}
			if i, _ := m.byIndex.get(ev.Sample); ev.Result != nil && !m.rows[i].done {
				m.rows[i].start(ev.Result, &m.extras)
				m.noteConversation(ev.Sample, ev.Result)
				changed = true
			}
		case eval.EventSampleFinished:
			if ev.Result == nil {
				continue
			}
			// done counts samples, not events (a watcher may send one again).
			if rr != nil {
				m.keepBefore(ev.Result.Index)
				p.finish(ev.Result)
			} else if !m.hasResult(ev.Result.Index) {
				p.finish(ev.Result)
			}
			m.upsert(ev.Result.Index, ev.Result)
			m.full.put(ev.Result.Index, ev.Result, m.opts.Load == nil || m.rerun != nil) // pinned when Load cannot read it back
			if rr == nil {
				m.watchResult(ev.Result, ev.Time)
			}
			changed = true
		case eval.EventError:
			// An error of no metric is the run's own: it must be read.
			if runError(ev) {
				m.setError(ev.Err)
			}
		case eval.EventNotice:
			m.notice = ev.Err
			changed = true
		case eval.EventRunFinished:
			// A re-run ends when its stream closes (finishRerun).
			if rr == nil {
				m.endRun(ev.Time)
				changed, ended = true, true
			}
		}
	}
	m.progress.total = max(m.progress.total, len(m.rows))
	if !changed {
		return nil
	}
	if rr != nil && m.cmp != nil {
		m.cmp.summarize(m)
	}
	if ended {
		// The marks were read at the start, before most samples were
		// stored: a label on one stored later had none.
		return tea.Batch(m.rowsChanged(), m.loadMarks())
	}
	return m.rowsChanged()
}

// keepBefore records what a row showed the first time a re-run returns
// its sample: later results compare with the parent.
func (m *Model) keepBefore(index int) {
	if m.cmp == nil {
		return
	}
	if _, seen := m.cmp.base[index]; seen {
		return
	}
	if p, ok := m.byIndex.get(index); ok && m.rows[p].done {
		prior := *m.rows[p]
		m.cmp.base[index] = beforeSide{row: &prior, res: m.result(m.rows[p])}
		return
	}
	m.cmp.base[index] = beforeSide{}
}

// endRun is the first run's EventRunFinished: the clock stops, and a
// question about the run no longer applies.
func (m *Model) endRun(at time.Time) {
	m.live = false
	if m.opts.EndBanner != "" {
		m.opts.Banner = m.opts.EndBanner
	}
	if m.mode == modeAsk && m.ask.aboutRun {
		m.mode, m.ask = m.ask.resume, nil
	}
	m.ended = at
	if m.ended.IsZero() {
		m.ended = m.now()
	}
	m.syncRunKeys()
	m.held = heldOrder{} // the full order at the next derive
}

func (m *Model) upsert(index int, res *eval.Result) {
	m.takePresort(true) // it reads the rows
	var r *row
	if i, ok := m.byIndex.get(index); ok {
		if r = m.rows[i]; !r.done {
			m.running--
		}
	} else {
		m.byIndex.set(index, len(m.rows))
		r = m.slab.alloc()
		r.index = index
		m.rows = append(m.rows, r)
	}
	r.set(res, &m.extras, m.st.levels)
	if !r.done {
		m.running++
	}
	r.setCriteria(res, m.st.crit)
	m.noteNegative(r)
	m.noteConversation(index, res)
}

// derive recomputes the rows shown and their statistics, keeping the
// cursor on the same sample (on the top row in follow order, the newest).
func (m *Model) derive() {
	keep, kept := int32(0), false
	if m.cursor >= 0 && m.cursor < len(m.lines) && !(m.cursor == 0 && m.watchOrder()) {
		keep, kept = m.lines[m.cursor], true
	}
	s, ok := m.sorted[m.sortIdx]
	if !ok {
		// The index needs no waiting for a presort in flight.
		m.takePresort(m.sortKeys[m.sortIdx].slot != slotIndex)
		s, ok = m.sorted[m.sortIdx]
	}
	if !ok {
		s = m.sortRows(m.sortKeys[m.sortIdx])
		setIn(&m.sorted, m.sortIdx, s)
	}
	m.shown = m.holdOrder(order(s, m.rows, m.filter, m.matchEnv(), m.desc))
	m.lines = m.groupLines(m.shown)
	if m.dirty || m.statsFilter != m.filter || !m.statsValid {
		m.stats = computeStats(m.rows, m.shown, m.metrics, &m.extras)
		m.statsFilter, m.statsValid = m.filter, true
	}
	m.dirty = false
	m.lastDerive = m.now()
	if kept {
		if pos := slices.Index(m.lines, keep); pos >= 0 {
			m.cursor = pos
		}
	}
	m.clampTable()
}

// drainMax bounds how many already-waiting events an immediate batch
// takes; the rest go in the next slot.
const drainMax = 4096

// Forward moves runner events into the program in batches tagged with
// stream, at most one every `every` (the frame rate of a live run); an
// event after a quiet spell, the run's end and a run-level error go at
// once. Nothing is dropped or reordered. It returns when events is
// closed; once ctx is done it stops sending but keeps draining.
func Forward(ctx context.Context, send func(tea.Msg), stream int, events <-chan eval.Event, every time.Duration) {
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
