package tui

import (
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// statusLine is a one-shot message above the footer; it stays until the
// next key press.
type statusLine struct {
	text string
	err  bool
}

func (m *Model) setStatus(text string) { m.status = statusLine{text: text} }
func (m *Model) setError(text string)  { m.status = statusLine{text: text, err: true} }
func (m *Model) clearStatus()          { m.status = statusLine{} }

// refused shows why as an error unless it is "", and reports whether it did.
func (m *Model) refused(why string) bool {
	if why != "" {
		m.setError(why)
	}
	return why != ""
}

// maxBottomLines keeps a long error from pushing the table off the screen.
const maxBottomLines = 3

// bottomLines is the question waiting for y/n, else the status message.
func (m *Model) bottomLines() []string {
	var text string
	var style lipgloss.Style
	asking := m.mode == modeAsk && !m.ask.aboutRun
	switch {
	case asking && m.ask.over:
		text, style = m.ask.text, m.st.errorLine
	case asking:
		text, style = m.ask.text, m.st.warn
	case m.status.text != "":
		text, style = m.status.text, m.st.accent
		if m.status.err {
			style = m.st.errorLine
		}
	default:
		return nil
	}
	return m.wrapped(text, style)
}

// wrapped is a message wrapped to the width, in at most maxBottomLines
// lines, styled.
func (m *Model) wrapped(text string, style lipgloss.Style) []string {
	lines := wrap(text, max(m.width, 10))
	if len(lines) > maxBottomLines {
		lines = lines[:maxBottomLines]
		lines[maxBottomLines-1] = truncate(lines[maxBottomLines-1], max(m.width-1, 1), "") + m.g.ellipsis
	}
	return mapped(lines, func(l string) string { return style.Render(l) })
}

// finish pads the body so the message block and the footer, the keys of
// the mode shown, land last.
func (m *Model) finish(body []string) []string {
	bottom := m.bottomLines()
	room := max(m.height-1-len(bottom), 0)
	body = body[:min(len(body), room)]
	body = append(body, make([]string, room-len(body))...)
	return append(append(body, bottom...), m.footer(m.keyMode().help()))
}

// indented wraps a text under the pages' two-cell margin, each line in style.
func (m *Model) indented(text string, style lipgloss.Style) []string {
	return mapped(wrap(text, max(m.width-2, 10)), func(l string) string { return style.Render("  " + l) })
}

// question is a y/n question that takes the next key (modeAsk); the
// keyboard then goes back to the mode it interrupted.
type question struct {
	text string
	over bool // over --confirm-over: the question is shown as an error
	// aboutRun is about the run itself: asked in the footer, and dropped
	// when the run ends.
	aboutRun bool
	answer   func(yes bool) tea.Cmd
	resume   mode
}

// askYesNo asks q; it closes the ? page, which has no line for it.
func (m *Model) askYesNo(q *question) {
	q.resume = m.shownMode()
	if q.resume == modeHelp {
		q.resume = modeScreen
	}
	m.ask, m.mode = q, modeAsk
}

// onYes is an answer that does nothing on no.
func onYes(do func() tea.Cmd) func(yes bool) tea.Cmd {
	return func(yes bool) tea.Cmd {
		if yes {
			return do()
		}
		return nil
	}
}

// answer is the key that answers the question: y or Y is yes.
func (m *Model) answer(msg tea.KeyPressMsg) tea.Cmd {
	q := m.ask
	m.ask, m.mode = nil, q.resume
	s := msg.String()
	return q.answer(s == "y" || s == "Y")
}
