package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
)

// keyMap follows k9s and lazygit, which analysts who live in a terminal
// already have in their fingers. The help and the footer are generated
// from it, so a binding cannot exist without being documented.
type keyMap struct {
	Up, Down, Top, Bottom, HalfDown, HalfUp, PageDown, PageUp                  key.Binding
	Sort, Reverse, Filter, Open, Back, ClearFilter                             key.Binding
	Expand, Collapse                                                           key.Binding // conversations
	Section, NextSection, PrevSection, Raw                                     key.Binding
	NextSample, PrevSample                                                     key.Binding
	Help, Quit, ForceQuit                                                      key.Binding
	Stop                                                                       key.Binding // enabled only while watching an attached run
	Prompts, DetailPrompts, Edit, Rerun, RerunAll, Compare, Pick, LeaveCompare key.Binding
	Copy, Pager, ResetPrompt                                                   key.Binding
	FilterApply, FilterCancel                                                  key.Binding
	NextItem, PrevItem, Agree, Disagree, Note, Unlabel, Agreement              key.Binding // human labels
	StartRun, NoRun                                                            key.Binding // the cost page
}

func defaultKeys() keyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Up:          b([]string{"k", "up"}, "k/↑", "up"),
		Down:        b([]string{"j", "down"}, "j/↓", "down"),
		Top:         b([]string{"g", "home"}, "g", "top"),
		Bottom:      b([]string{"G", "end"}, "G", "bottom"),
		HalfDown:    b([]string{"ctrl+d"}, "ctrl+d", "half page down"),
		HalfUp:      b([]string{"ctrl+u"}, "ctrl+u", "half page up"),
		PageDown:    b([]string{"pgdown", "space"}, "pgdn", "page down"),
		PageUp:      b([]string{"pgup"}, "pgup", "page up"),
		Sort:        b([]string{"s"}, "s", "sort"),
		Reverse:     b([]string{"S"}, "S", "reverse"),
		Filter:      b([]string{"/"}, "/", "filter"),
		Open:        b([]string{"enter"}, "enter", "open"),
		Expand:      b([]string{"right", "l"}, "→/l", "expand"),
		Collapse:    b([]string{"left", "h"}, "←/h", "collapse"),
		Back:        b([]string{"esc"}, "esc", "back"),
		ClearFilter: b([]string{"esc"}, "esc", "clear filter"),
		Section:     b([]string{"1", "2", "3", "4"}, "1-4", "metric"),
		NextSection: b([]string{"tab"}, "tab", "next section"),
		PrevSection: b([]string{"shift+tab"}, "shift+tab", "previous section"),
		Raw:         b([]string{"x"}, "x", "raw calls"),
		NextSample:  b([]string{"n"}, "n", "next sample"),
		PrevSample:  b([]string{"p"}, "p", "previous sample"),
		Help:        b([]string{"?"}, "?", "help"),
		Quit:        b([]string{"q"}, "q", "quit"),
		ForceQuit:   b([]string{"ctrl+c"}, "ctrl+c", "quit now"),
		Stop:        b([]string{"X"}, "X", "stop run"),
		// In the detail page p steps back a sample, so the prompts are P.
		Prompts:       b([]string{"p"}, "p", "prompts"),
		DetailPrompts: b([]string{"P"}, "P", "prompts"),
		Edit:          b([]string{"e"}, "e", "edit in $EDITOR"),
		Rerun:         b([]string{"r"}, "r", "re-run (1-4 picks a metric)"),
		RerunAll:      b([]string{"R"}, "R", "re-run filtered"),
		Compare:       b([]string{"c"}, "c", "compare runs"),
		Pick:          b([]string{"enter", "space"}, "enter/space", "pick base, then compare"),
		LeaveCompare:  b([]string{"esc"}, "esc", "leave compare"),
		Copy:          b([]string{"y"}, "y", "copy"),
		Pager:         b([]string{"o"}, "o", "pager"),
		ResetPrompt:   b([]string{"d"}, "d", "reset to built-in"),
		FilterApply:   b([]string{"enter"}, "enter", "apply"),
		FilterCancel:  b([]string{"esc"}, "esc", "cancel"),
		NextItem:      b([]string{"]"}, "]", "next judged item"),
		PrevItem:      b([]string{"["}, "[", "previous judged item"),
		Agree:         b([]string{"a"}, "a", "agree with the judge"),
		Disagree:      b([]string{"d"}, "d", "disagree (label the other value)"),
		Note:          b([]string{"m"}, "m", "note on the label"),
		Unlabel:       b([]string{"u"}, "u", "remove the label"),
		Agreement:     b([]string{"A"}, "A", "agreement with labels"),
		StartRun:      b([]string{"y", "Y"}, "y", "start the run"),
		NoRun:         b([]string{"n", "N", "q", "esc"}, "n/q/esc", "quit, no run"),
	}
}

// metricCount makes the metric keys those of a run of n metrics: 1-4 at
// least, 0 the tenth.
func (k *keyMap) metricCount(n int) {
	if n <= 4 {
		return
	}
	n = min(n, 10)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = string(rune('0' + (i+1)%10))
	}
	span := fmt.Sprintf("1-%d", n)
	if n == 10 {
		span = "1-9,0"
	}
	k.Section.SetKeys(keys...)
	k.Section.SetHelp(span, k.Section.Help().Desc)
	k.Rerun.SetHelp(k.Rerun.Help().Key, "re-run ("+span+" picks a metric)")
}

// metricKeyIndex is the position among the run's metrics that a metric
// key picks: 1 the first, 0 the tenth.
func metricKeyIndex(msg tea.KeyPressMsg) int { return int(msg.String()[0]-'0'+9) % 10 }

// asciiHelp replaces the arrows in the help labels, which some terminals
// draw two cells wide.
func (k *keyMap) asciiHelp() {
	k.Up.SetHelp("k/up", k.Up.Help().Desc)
	k.Down.SetHelp("j/down", k.Down.Help().Desc)
	k.Expand.SetHelp("l/right", k.Expand.Help().Desc)
	k.Collapse.SetHelp("h/left", k.Collapse.Help().Desc)
}

// helpMap is the key map seen from one mode (keyMode.help).
type helpMap struct {
	short []key.Binding
	full  [][]key.Binding
	off   []key.Binding // the ? page names them
}

// scroll applies the scrolling keys to a page of n lines through its
// scrollBy, and reports whether the key was one of them.
func (k keyMap) scroll(msg tea.KeyPressMsg, scrollBy func(n, page int), page, n int) bool {
	half := max(page/2, 1)
	for _, mv := range []struct {
		b key.Binding
		n int // lines to move, down when positive
	}{{k.Down, 1}, {k.Up, -1}, {k.HalfDown, half}, {k.HalfUp, -half}, {k.PageDown, page}, {k.PageUp, -page}, {k.Top, -n}, {k.Bottom, n}} {
		if key.Matches(msg, mv.b) {
			scrollBy(mv.n, page)
			return true
		}
	}
	return false
}

// moveCursor applies the list-movement keys (a list has no pages) to a
// cursor over n items and reports whether the key was one of them.
func (k keyMap) moveCursor(msg tea.KeyPressMsg, cursor *int, n int) bool {
	if !key.Matches(msg, k.Down, k.Up, k.Top, k.Bottom) {
		return false
	}
	return k.scroll(msg, func(d, _ int) { *cursor = min(max(*cursor+d, 0), max(n-1, 0)) }, 1, n)
}

// key routes a key press: ctrl+c always quits, a mode other than the
// screen's owns the keyboard, then the screen.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if key.Matches(msg, k.ForceQuit) {
		return m.quit()
	}
	m.clearStatus()
	// y and o take out what the table, a sample or its raw calls show.
	exports := m.screen == screenTable || m.screen == screenDetail || m.screen == screenRaw
	switch {
	case m.mode == modeAsk:
		return m.answer(msg)
	case m.mode == modeHelp && key.Matches(msg, k.Help, k.Back):
		m.mode = modeScreen
	case m.mode == modeHelp && !key.Matches(msg, k.Quit):
		k.scroll(msg, m.helpPage.scrollBy, m.helpHeight(), len(m.helpPage.lines))
	case m.mode == modeFilter:
		return m.filterKey(msg)
	case m.mode == modeNote:
		return m.noteKey(msg)
	case key.Matches(msg, k.Quit) && ((m.live && !m.opts.Attached) || m.rerun != nil):
		m.askYesNo(&question{text: "Quit and stop the run? Finished work is kept. (y/n)", aboutRun: true, answer: onYes(m.quit)})
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Stop):
		m.askStop()
	case m.tooSmall(), m.refused(m.keyMode().refusal(msg)):
		// too small for any other key, or a key off here (refused says why)
	case key.Matches(msg, k.Help):
		m.mode, m.helpPage = modeHelp, scrolled{}
	case exports && key.Matches(msg, k.Copy):
		return m.copyExport()
	case exports && key.Matches(msg, k.Pager):
		return m.openPager()
	default:
		return m.screen.parts().key(m, msg)
	}
	return nil
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
	case m.convs != nil && key.Matches(msg, k.Expand, k.Collapse):
		m.fold(key.Matches(msg, k.Expand))
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
	d, ok := map[tea.MouseButton]int{tea.MouseWheelDown: 3, tea.MouseWheelUp: -3}[ms.Button]
	if !ok {
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
	m.offset = max(min(m.offset, m.cursor), m.cursor-h+1) // the cursor's line in the window
	m.offset = min(max(m.offset, 0), max(n-h, 0))
}
