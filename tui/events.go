package tui

import (
	"context"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
)

// EventsMsg carries a batch of one stream's runner events, in the order
// the runner emitted them (see Forward). Stream 0 is the run the program
// was started with; a re-run's stream is tagged with the model's gen of
// that re-run, so the events of a superseded one are recognised and
// dropped.
type EventsMsg struct {
	Stream int
	Events []eval.Event
}

// streamClosedMsg says a stream's channel closed and its Forward returned:
// every event of the stream has been delivered before it.
type streamClosedMsg struct{ stream int }

// forwardEvery is the frame interval of a live run: Forward sends a batch
// at most this often, and the program repaints once per batch, so the
// counters, the in-flight gauge and the results move four times a second
// however fast the runner goes. Often enough to look live; seldom enough
// that a run costs a slow SSH link a few frames a second, not one per
// result (scripts/sshbytes.sh measures it).
const forwardEvery = 250 * time.Millisecond

// stream runs Forward over a stream's channel in a command, for as long as
// the stream lasts. Once ctx is done Forward sends nothing more but keeps
// reading, so the runner never blocks on a model that has gone.
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

// progress is what the interface counts of one run's events: the header
// shows the first run's, the re-run line a re-run's.
type progress struct {
	total, done                                         int
	inFlight, calls, cacheHits, retries, errors, tokens int
	// cancelled counts the calls and the samples a stop cut short: they
	// are neither errors nor done (--resume evaluates the samples again).
	cancelledCalls, cancelled int
	// chat and embed split tokens by the model that prices them.
	chat, embed eval.Usage
	// reported are the totals the evaluator of a watched run last told
	// (EventProgress): they include the calls of samples not stored yet.
	reported *eval.Totals
}

// shown is the progress the header shows: the counts of the events, or
// the evaluator's totals of a watched run when they are ahead (its calls
// are otherwise counted only once their samples are stored).
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

// The counters mean what the run record's calls mean (eval.CallCounts), so
// the header, the headless progress and a report agree on one run: sent
// are calls that reached the endpoint and succeeded, errors are calls that
// failed, cache hits are calls the cache answered. A call the run's stop
// cut short is none of them.
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

// finish counts a sample's result: done, or cancelled when the run's stop
// cut it short (some metric ended cancelled).
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

// countStored counts a result given up front: a stored run has no retry
// or error events, its call records are the only record of them.
func (p *progress) countStored(res *eval.Result) {
	p.finish(res)
	for _, c := range res.Calls {
		p.countCall(c)
		p.retries += c.Retries
	}
}

// addCounts adds what countStored counted of a page of results
// elsewhere (storedRows.counts).
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

// applyEvents applies a batch of one stream, the first run's or a
// re-run's, to that run's progress and to the rows. A re-run's results
// replace the rows as they come; the row's result before the first of
// them is the comparison's "before".
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
	changed := false
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
			// A started event may carry the sample's texts (no scores):
			// the row shows them while it stays running. A row that has a
			// result (a re-run's sample) keeps it until the new one comes.
			if ev.Sample < 0 {
				continue
			}
			if _, ok := m.byIndex.get(ev.Sample); !ok {
				m.upsert(ev.Sample, nil)
				changed = true
			}
			if ev.Result != nil {
				if i, _ := m.byIndex.get(ev.Sample); !m.rows[i].done {
					m.rows[i].start(ev.Result, &m.extras)
					m.noteConversation(ev.Sample, ev.Result)
					changed = true
				}
			}
		case eval.EventSampleFinished:
			if ev.Result == nil {
				continue
			}
			// done counts samples, not events: a result sent again (a
			// watcher reloading after a takeover) is not progress. A
			// re-run's samples all had a result before it.
			if rr != nil {
				m.keepBefore(ev.Result.Index)
				p.finish(ev.Result)
			} else if !m.hasResult(ev.Result.Index) {
				p.finish(ev.Result)
			}
			m.upsert(ev.Result.Index, ev.Result)
			m.keepResult(ev.Result.Index, ev.Result)
			if rr == nil {
				m.watchResult(ev.Result, ev.Time)
			}
			changed = true
		case eval.EventError:
			// An error of no metric is the run's own (it stopped: the judge
			// refused the key, the disk is full): it must be read, not
			// counted.
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
				changed = true
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
	return m.rowsChanged()
}

// keepBefore records, the first time a re-run returns a sample, what its
// row showed: later results of the same re-run compare with the parent,
// not with each other.
func (m *Model) keepBefore(index int) {
	if m.cmp == nil {
		return
	}
	if _, seen := m.cmp.base[index]; seen {
		return
	}
	if p, ok := m.byIndex.get(index); ok && m.rows[p].done {
		// The row's compact copy gives the Δ columns; the full result,
		// when in memory, the detail page's before and after.
		prior := *m.rows[p]
		m.cmp.base[index] = beforeSide{row: &prior, res: m.result(m.rows[p])}
		return
	}
	m.cmp.base[index] = beforeSide{}
}

// endRun is the first run's EventRunFinished: the clock stops, and a
// question about the run (quit and stop it, stop it) no longer applies.
func (m *Model) endRun(at time.Time) {
	m.live = false
	if m.mode == modeAsk && m.ask.aboutRun {
		m.mode, m.ask = m.ask.resume, nil
	}
	m.ended = at
	if m.ended.IsZero() {
		m.ended = m.now()
	}
	m.syncRunKeys()
	// The order held while the run was live gives way to the full one at
	// the next derive, which the run's end asks for (applyEvents).
	m.held = heldOrder{}
}

func (m *Model) upsert(index int, res *eval.Result) {
	m.takePresort(true) // it reads the rows
	if i, ok := m.byIndex.get(index); ok {
		r := m.rows[i]
		if !r.done && res != nil {
			m.running--
		} else if r.done && res == nil {
			m.running++
		}
		r.set(res, &m.extras, m.st.levels)
		r.setCriteria(res, m.st.crit)
		m.noteNegative(r)
		m.noteConversation(index, res)
		return
	}
	if res == nil {
		m.running++
	}
	m.byIndex.set(index, len(m.rows))
	r := m.slab.alloc()
	r.index = index
	r.set(res, &m.extras, m.st.levels)
	r.setCriteria(res, m.st.crit)
	m.noteNegative(r)
	m.rows = append(m.rows, r)
	m.noteConversation(index, res)
}

// derive recomputes the rows shown and their statistics, keeping the
// cursor on the same sample when it is still shown.
func (m *Model) derive() {
	keep, kept := int32(0), false
	// On the top row in follow order the cursor follows the newest row.
	if m.cursor >= 0 && m.cursor < len(m.lines) && !(m.cursor == 0 && m.watchOrder()) {
		keep, kept = m.lines[m.cursor], true
	}
	if m.sorted == nil {
		m.sorted = map[int]sorted{}
	}
	s, ok := m.sorted[m.sortIdx]
	if !ok {
		// The index needs no waiting for a presort in flight.
		m.takePresort(m.sortKeys[m.sortIdx].slot != slotIndex)
		s, ok = m.sorted[m.sortIdx]
	}
	if !ok {
		s = m.sortRows(m.sortKeys[m.sortIdx])
		m.sorted[m.sortIdx] = s
	}
	m.shown = m.holdOrder(order(s, m.rows, m.filter, m.matchEnv(), m.desc))
	m.lines = m.groupLines(m.shown)
	// The aggregates depend on which rows are shown, not on their order.
	if m.dirty || m.statsFilter != m.filter || !m.statsValid {
		m.stats = computeStats(m.rows, m.shown, m.metrics, &m.extras)
		m.statsFilter, m.statsValid = m.filter, true
	}
	m.dirty = false
	m.lastDerive = m.now()
	if kept {
		for pos, i := range m.lines {
			if i == keep {
				m.cursor = pos
				break
			}
		}
	}
	m.clampTable()
}

// eastAsianAmbiguousWide reports a terminal set up to draw ambiguous-width
// glyphs two cells wide, where box and block characters would misalign.
func eastAsianAmbiguousWide() bool {
	v := os.Getenv("RUNEWIDTH_EASTASIAN")
	return v == "1" || strings.EqualFold(v, "true")
}
