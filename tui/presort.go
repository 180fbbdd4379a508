package tui

import (
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
)

// A stored table's columns are sorted in a command once all its rows are
// in, so the first s finds its order made. Whatever would change the rows
// first waits for it, or calls it off if it has not started (takePresort).
type presorting struct {
	gen   int          // Model.sortGen when it was asked for
	state atomic.Int32 // presortQueued, then presortRunning or presortOff
	done  chan struct{}
	out   map[int]sorted // by sortIdx; written before done closes
}

const (
	presortQueued int32 = iota
	presortRunning
	presortOff
)

// presortedMsg says a presort ended.
type presortedMsg struct{}

// presortRows is the size from which a stored table is presorted.
const presortRows = parallelSortRows

// presortCmd starts the presort of a stored table that has just been
// read, nil for a small, live or sparse one, or one presorted already.
func (m *Model) presortCmd() tea.Cmd {
	posOf, dense := m.byIndex.inOrder()
	if m.presorts || m.live || !dense || len(m.rows) < presortRows {
		return nil
	}
	m.presorts = true
	p := &presorting{gen: m.sortGen, done: make(chan struct{}), out: map[int]sorted{}}
	m.presort = p
	rows, keys, scratch := m.rows, m.sortKeys, new(sortScratch)
	var todo []int
	for i, k := range keys {
		if _, ok := m.sorted[i]; !ok && k.slot != slotIndex && k.delta == nil {
			todo = append(todo, i)
		}
	}
	return func() tea.Msg {
		defer close(p.done)
		if !p.state.CompareAndSwap(presortQueued, presortRunning) {
			return presortedMsg{} // called off
		}
		for _, i := range todo {
			p.out[i] = sortIn(rows, posOf, keys[i], scratch)
		}
		return presortedMsg{}
	}
}

// takePresort calls off a presort not started yet, or waits for one
// running (unless !wait), and keeps its orders if they still apply.
func (m *Model) takePresort(wait bool) {
	p := m.presort
	if p == nil {
		return
	}
	switch {
	case !wait:
		select {
		case <-p.done:
		default:
			return // left to end
		}
	case p.state.CompareAndSwap(presortQueued, presortOff):
		m.presort = nil // it will not touch the rows
		return
	}
	<-p.done
	m.presort = nil
	if p.gen != m.sortGen {
		return
	}
	if m.sorted == nil {
		m.sorted = map[int]sorted{}
	}
	for i, s := range p.out {
		if _, ok := m.sorted[i]; !ok {
			m.sorted[i] = s
		}
	}
}

// dropSorted drops the table's orders (the rows or the columns changed);
// a presort in flight is not taken.
func (m *Model) dropSorted() {
	m.sorted = nil
	m.sortGen++
}
