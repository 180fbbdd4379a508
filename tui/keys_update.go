package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
)

// key routes a key press: ctrl+c always quits, a mode other than the
// screen's owns the keyboard, then the screen.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if key.Matches(msg, k.ForceQuit) {
		return m.quit()
	}
	m.clearStatus()
	switch m.mode {
	case modeAsk:
		return m.answer(msg)
	case modeHelp:
		if key.Matches(msg, k.Help, k.Back, k.Quit) {
			m.mode = modeScreen
		}
		return nil
	case modeFilter:
		return m.filterKey(msg)
	case modeNote:
		return m.noteKey(msg)
	}
	if key.Matches(msg, k.Quit) {
		if (m.live && !m.opts.Attached) || m.rerun != nil {
			m.askYesNo(&question{text: "Quit and stop the run? Finished work is kept. (y/n)", aboutRun: true, answer: onYes(m.quit)})
			return nil
		}
		return m.quit()
	}
	if key.Matches(msg, k.Stop) {
		m.askStop()
		return nil
	}
	if m.tooSmall() {
		return nil
	}
	if m.refused(m.keyMode().refusal(msg)) {
		return nil
	}
	if key.Matches(msg, k.Help) {
		m.mode = modeHelp
		return nil
	}
	return m.screen.parts().key(m, msg)
}

func (m *Model) tableKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if k.scroll(msg, func(d, _ int) { m.moveCursor(d) }, m.tableRows(), len(m.lines)) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Sort):
		m.sortIdx = (m.sortIdx + 1) % len(m.sortKeys)
		// A column comes in worst first.
		m.desc = eval.LowerIsBetter(m.sortKeys[m.sortIdx].metric)
		m.derive()
	case key.Matches(msg, k.Reverse):
		m.desc = !m.desc
		m.derive()
	case key.Matches(msg, k.Filter):
		return m.openFilter()
	case key.Matches(msg, k.ClearFilter): // one layer at a time
		switch m.tableEsc() {
		case &m.keys.ClearFilter:
			m.filter = nil
			m.input.SetValue("")
			m.derive()
		case &m.keys.LeaveCompare:
			m.leaveCompare()
		}
	case key.Matches(msg, k.Prompts):
		return m.openPrompts()
	case key.Matches(msg, k.RerunAll):
		return m.planRerun(m.filteredIndexes(), nil)
	case key.Matches(msg, k.Compare):
		return m.openPicker()
	case m.opts.Labels != nil && key.Matches(msg, k.Agreement):
		return m.openAgreement()
	case key.Matches(msg, k.Copy):
		return m.copyExport()
	case key.Matches(msg, k.Pager):
		return m.openPager()
	case m.convs != nil && key.Matches(msg, k.Expand):
		m.fold(true)
	case m.convs != nil && key.Matches(msg, k.Collapse):
		m.fold(false)
	case key.Matches(msg, k.Open):
		if n, own, ok := m.cursorConv(); ok && own {
			m.fold(!m.isOpen(n))
			return nil
		}
		if p, ok := m.cursorRow(); ok {
			return m.openDetail(int(p))
		}
	}
	return nil
}

func (m *Model) wheel(ms tea.Mouse) tea.Cmd {
	if m.tooSmall() || m.shownMode() == modeHelp {
		return nil
	}
	d := 0
	switch ms.Button {
	case tea.MouseWheelDown:
		d = 3
	case tea.MouseWheelUp:
		d = -3
	default:
		return nil
	}
	switch m.screen {
	case screenDetail:
		m.detail.scrollBy(d, m.pageHeight())
	case screenRaw:
		m.raw.scrollBy(d, m.pageHeight())
	default:
		m.moveCursor(d)
	}
	return nil
}

func (m *Model) moveCursor(d int) {
	m.cursor += d
	m.clampTable()
}

// clampTable keeps the cursor on a shown row and the window around it.
func (m *Model) clampTable() {
	n := len(m.lines)
	m.cursor = min(max(m.cursor, 0), max(n-1, 0))
	h := m.tableRows()
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+h {
		m.offset = m.cursor - h + 1
	}
	m.offset = min(max(m.offset, 0), max(n-h, 0))
}
