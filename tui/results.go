package tui

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// results holds the full eval.Result of the samples that need one in
// memory. Pinned are those nothing could read back (no Options.Load, a
// re-run's, a picked comparison's); the others are the few most recent.
type results struct {
	pinned map[int]*eval.Result
	recent map[int]*eval.Result
	ring   []int // the indexes in recent, in the order they came
	held   int   // the sample open in the detail page, +1 (0: none): it stays
}

// recentResults is how many unpinned results are kept.
const recentResults = 64

func (c *results) get(index int) *eval.Result {
	if r, ok := c.pinned[index]; ok {
		return r
	}
	return c.recent[index]
}

func (c *results) put(index int, res *eval.Result, pin bool) {
	if pin {
		setIn(&c.pinned, index, res)
		delete(c.recent, index)
		return
	}
	delete(c.pinned, index)
	if _, ok := c.recent[index]; !ok {
		c.ring = append(c.ring, index)
		if len(c.ring) > recentResults {
			// The oldest goes, unless it is the sample held open.
			i := b2i(c.ring[0] == c.held-1 && c.held != 0)
			delete(c.recent, c.ring[i])
			c.ring = slices.Delete(c.ring, i, i+1)
		}
	}
	setIn(&c.recent, index, res)
}

func (c *results) reset() { *c = results{held: c.held} }

// result is the full result of a finished row, nil when not in memory.
func (m *Model) result(r *row) *eval.Result {
	if r == nil || !r.done {
		return nil
	}
	return m.full.get(r.index)
}

// loadCmd reads the full result of a finished row that is not in memory,
// nil when it need not or cannot; then (nil: none besides the detail
// page's repaint) runs when it arrives, y or o waiting on it.
func (m *Model) loadCmd(r *row, then func() tea.Cmd) tea.Cmd {
	if r == nil || !r.done || m.opts.Load == nil || m.result(r) != nil {
		return nil
	}
	m.loading = loadingState{index: r.index, then: then}
	load, index := m.opts.Load, r.index
	return inCommand(func() (*eval.Result, error) {
		res, err := load(index)
		if err == nil && res == nil {
			err = errNoResult
		}
		return res, err
	}, func(res *eval.Result, err error) tea.Cmd {
		return tea.Batch(m.loaded(index, res, err), m.labelsFollow())
	})
}

type loadingState struct {
	index int
	then  func() tea.Cmd
	err   error // the last load of index failed
}

var errNoResult = errors.New("the store has no result for this sample")

// loaded takes a result Load read; the copy or pager that waited on it
// runs if its row is still the one under the cursor.
func (m *Model) loaded(index int, res *eval.Result, err error) tea.Cmd {
	if m.loading.index != index {
		return nil // superseded by another open
	}
	if err != nil {
		m.loading.err = err
		m.detail.invalidate()
		if m.loading.then != nil {
			m.setError(fmt.Sprintf("cannot read sample %d: %v", index, err))
		}
		return nil
	}
	then := m.loading.then
	m.loading = loadingState{index: -1}
	// A result that came meanwhile (a live run, a re-run) is newer.
	if p, ok := m.byIndex.get(index); ok && m.rows[p].done && m.full.get(index) == nil {
		m.full.put(index, res, false)
	}
	m.detail.invalidate()
	if r := m.exportRow(); r == nil || r.index != index || then == nil {
		return nil
	}
	return then()
}

// storedPageMsg is a page of a stored run, made into rows.
type storedPageMsg struct {
	page  storedRows
	next  int
	err   error
	given int // the results the store gave for a page not the last, or 0
}

// storedPage is how many results one read of a stored run brings.
const storedPage = 4096

// storedRows is a page of a stored run made into table rows in the
// command that read it, off the UI goroutine (Update only links them in).
type storedRows struct {
	rows   []*row
	slab   rowSlab
	extras rowExtras // the failure messages of the page's rows
	counts progress  // what countStored counts of them
	turns  []convTurnOf
}

// convTurnOf places a row of a page in its conversation.
type convTurnOf struct {
	index int
	conv  string
	turn  int
}

// add makes res a row of the page; res may be reused once add returns.
func (p *storedRows) add(res *eval.Result, levels report.Levels, crit critSet) {
	if res == nil {
		return
	}
	r := p.slab.alloc()
	r.index = res.Index
	r.set(res, &p.extras, levels)
	r.setCriteria(res, crit)
	p.rows = append(p.rows, r)
	p.counts.countStored(res)
	if res.ConversationID != "" {
		p.turns = append(p.turns, convTurnOf{index: res.Index, conv: res.ConversationID, turn: res.Turn})
	}
}

// readPage reads the summaries of a stored run from sample index from on
// and makes them into rows, in a command.
func (m *Model) readPage(from int) tea.Cmd {
	levels, crit, each := m.st.levels, m.st.crit, m.opts.Summaries
	// The first read is of one page, which learns how many the store
	// gives; a later read's pages are spaced by that.
	stride, at := storedPage, 1
	if m.pageGiven > 0 {
		stride, at = min(m.pageGiven, storedPage), min(runtime.GOMAXPROCS(0), maxPagesAtOnce)
	}
	return func() tea.Msg {
		// Pages at once, one a core; a page that does not start where the
		// one before ended is dropped with those after it, to be read again.
		pages := make([]storedPageMsg, at)
		parallel(len(pages), func(k int) {
			r := &pages[k]
			r.next, r.err = each(from+k*stride, storedPage, func(res *eval.Result) error {
				r.page.add(res, levels, crit)
				return nil
			})
			r.page.slab.trim(r.page.rows)
		})
		first := &pages[0]
		if first.next >= 0 {
			first.given = len(first.page.rows)
		}
		for k, r := range pages[1:] {
			prev := first.page.rows
			if first.err != nil || first.next < 0 || r.err != nil || len(prev) == 0 || len(r.page.rows) == 0 ||
				from+(k+1)*stride > first.next || r.page.rows[0].index <= prev[len(prev)-1].index {
				break
			}
			first.page.join(&r.page)
			first.next = r.next
		}
		return *first
	}
}

// maxPagesAtOnce bounds the pages of a stored run read at once.
const maxPagesAtOnce = 4

// join appends page q, which follows p, to p.
func (p *storedRows) join(q *storedRows) {
	p.rows = append(p.rows, q.rows...)
	for i, e := range q.extras.errs {
		setIn(&p.extras.errs, i, e)
	}
	p.counts.addCounts(&q.counts)
	p.turns = append(p.turns, q.turns...)
}

// storedPageIn adds a page of a stored run to the table and asks for the next.
func (m *Model) storedPageIn(msg storedPageMsg) tea.Cmd {
	if msg.err != nil {
		m.reading = false
		m.setError("reading the run: " + msg.err.Error())
		return nil
	}
	m.addRows(&msg.page)
	if msg.given > 0 {
		m.pageGiven = msg.given
	}
	m.progress.total = max(m.progress.total, len(m.rows))
	m.reading = msg.next >= 0
	var next tea.Cmd
	if m.reading {
		m.setStatus(fmt.Sprintf("reading the run: %d of %d samples", len(m.rows), m.progress.total))
		next = m.readPage(msg.next)
	}
	changed := m.rowsChanged()
	if !m.reading {
		m.clearStatus()
		next = m.presortCmd()
	}
	return tea.Batch(changed, next)
}

// addRows links a page's rows into the table, as upsert would have made
// them; its counts are added whole, as pages hold each sample once.
func (m *Model) addRows(p *storedRows) {
	for _, r := range p.rows {
		delete(m.extras.known, r.index)
		delete(m.extras.errs, r.index)
		if e := p.extras.errs[r.index]; e != nil {
			setIn(&m.extras.errs, r.index, e)
		}
		if i, ok := m.byIndex.get(r.index); ok {
			old := m.rows[i]
			if !old.done {
				m.running--
			}
			*old = *r
			r = old
		} else {
			m.byIndex.set(r.index, len(m.rows))
			m.rows = append(m.rows, r)
		}
		m.noteNegative(r)
	}
	for _, t := range p.turns {
		m.noteTurn(t.index, t.conv, t.turn)
	}
	m.progress.addCounts(&p.counts)
}

// addStored adds results given up front as rows.
func (m *Model) addStored(rs []*eval.Result) {
	for _, r := range rs {
		if r == nil {
			continue
		}
		fresh := !m.hasResult(r.Index)
		m.upsert(r.Index, r)
		if m.opts.Load == nil {
			m.full.put(r.Index, r, true) // nothing could read it back
		}
		if fresh {
			m.progress.countStored(r)
		}
	}
}

// rowsChanged rebuilds the orders and the page: at once for a small table,
// at most every deriveEvery for a large one.
func (m *Model) rowsChanged() tea.Cmd {
	m.dirty = true
	m.dropSorted()
	m.detail.invalidate()
	if len(m.rows) <= deriveEagerRows || m.now().Sub(m.lastDerive) >= deriveEvery {
		m.derive()
		return nil
	}
	if m.deriveScheduled {
		return nil
	}
	m.deriveScheduled = true
	return tea.Tick(deriveEvery, func(time.Time) tea.Msg { return deriveMsg{} })
}
