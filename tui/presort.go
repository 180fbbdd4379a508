package tui

import (
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
)

// A stored table's columns are sorted in a command once all its rows are
// in: the first s onto a column of a million rows then finds its order
// made, where sorting it would hold up the key's frame. The command only
// reads the rows, the row index and the sort keys; whatever would change
// them in Update first waits for it to end (takePresort), or calls it off
// if it has not started: the command may be queued behind the very message
// that waits. Its orders are taken only if nothing dropped the table's
// orders meanwhile.
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
	// A working space of its own, dropped when it ends: the table's is
	// for the sorts of a table whose rows change.
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

// takePresort ends a presort: it calls off one not started yet, waits
// for one running (unless wait is false: then it returns at once) and
// keeps its orders when the table's are still those it sorted.
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
