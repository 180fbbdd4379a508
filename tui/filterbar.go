package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// filterBar is the state of an open filter bar, which filters as the user
// types: an edit that does not parse keeps the last filter and shows its
// error dimmed; esc puts back the one in force when it opened.
type filterBar struct {
	before     *filter // the filter in force when the bar opened
	beforeRow  int     // the sample under the cursor then, -1 for none
	errPressed bool    // enter was pressed on the error: show it as one
}

// openFilter is /: the bar opens on the filter in force.
func (m *Model) openFilter() tea.Cmd {
	m.mode = modeFilter
	m.filterErr = ""
	m.bar = filterBar{before: m.filter, beforeRow: cursorIndex(m)}
	m.input.SetValue("")
	if m.filter != nil {
		m.input.SetValue(m.filter.src)
	}
	m.input.CursorEnd()
	return m.input.Focus()
}

// filterKey edits the filter: enter keeps it (or shows its error), esc
// cancels the edit.
func (m *Model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.FilterApply):
		f, err := m.readFilter(m.input.Value())
		if err != nil {
			m.filterErr, m.bar.errPressed = err.Error(), true
			return nil
		}
		m.closeFilter() // first: a filter in force reads long samples (wholeText)
		m.setFilter(f)
		return nil
	case key.Matches(msg, k.FilterCancel):
		before, row := m.bar.before, m.bar.beforeRow
		m.closeFilter()
		m.setFilter(before)
		m.keepCursorOn(row)
		return nil
	}
	return m.editFilter(msg)
}

// editFilter passes a key or a paste to the bar and filters the rows by
// what it then holds.
func (m *Model) editFilter(msg tea.Msg) tea.Cmd {
	was := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if src := m.input.Value(); src != was {
		m.bar.errPressed = false
		f, err := m.readFilter(src)
		if err != nil {
			m.filterErr = err.Error()
			return cmd
		}
		m.filterErr = ""
		m.setFilter(f)
	}
	return cmd
}

// setFilter puts a filter in force, the empty one as none, with the cursor
// on the first row it shows.
func (m *Model) setFilter(f *filter) {
	if f.empty() {
		f = nil
	}
	if f == m.filter {
		return
	}
	m.filter = f
	m.cursor = 0
	m.derive()
}

func (m *Model) closeFilter() {
	m.mode = modeScreen
	m.filterErr = ""
	m.bar = filterBar{}
	m.input.Blur()
	m.input.SetValue("")
	if m.filter != nil {
		m.input.SetValue(m.filter.src)
	}
}
