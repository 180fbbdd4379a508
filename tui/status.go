package tui

import (
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// statusLine is a one-shot message above the footer: the outcome of an
// edit, a re-run, a failed Host call. It stays until the next key press,
// so a message that arrives while the user looks elsewhere is still there
// when they look back.
type statusLine struct {
	text string
	err  bool
}

func (m *Model) setStatus(text string) { m.status = statusLine{text: text} }
func (m *Model) setError(text string)  { m.status = statusLine{text: text, err: true} }
func (m *Model) clearStatus()          { m.status = statusLine{} }
func (s statusLine) shown() bool       { return s.text != "" }
func (m *Model) statusStyle() lipgloss.Style {
	if m.status.err {
		return m.st.errorLine
	}
	return m.st.accent
}

// refused says why, as an error, when a key's action cannot be done now
// (why is not ""), and reports whether it did.
func (m *Model) refused(why string) bool {
	if why != "" {
		m.setError(why)
	}
	return why != ""
}

// maxBottomLines bounds the message block so a long error (a template
// error quoting a whole line) cannot push the table off the screen.
const maxBottomLines = 3

// bottomLines is what sits between the page and the footer: the question
// while it waits for y/n, else the status message, wrapped.
func (m *Model) bottomLines() []string {
	var text string
	var style lipgloss.Style
	asking := m.mode == modeAsk && !m.ask.aboutRun
	switch {
	case asking && m.ask.over:
		text, style = m.ask.text, m.st.errorLine
	case asking:
		text, style = m.ask.text, m.st.warn
	case m.status.shown():
		text, style = m.status.text, m.statusStyle()
	default:
		return nil
	}
	lines := wrap(text, max(m.width, 10))
	if len(lines) > maxBottomLines {
		lines = lines[:maxBottomLines]
		lines[maxBottomLines-1] = truncate(lines[maxBottomLines-1], max(m.width-1, 1), "") + m.g.ellipsis
	}
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return lines
}

// page finishes a screen: pads the body so the message block and the
// footer land on the last rows, whatever the body's length.
func (m *Model) finish(body []string, h helpMap) []string {
	bottom := m.bottomLines()
	for len(body) < m.height-1-len(bottom) {
		body = append(body, "")
	}
	if len(body) > m.height-1-len(bottom) {
		body = body[:max(m.height-1-len(bottom), 0)]
	}
	body = append(body, bottom...)
	return append(body, m.footer(h))
}

// indented wraps a text under the pages' two-cell margin, each line in style.
func (m *Model) indented(text string, style lipgloss.Style) []string {
	lines := wrap(text, max(m.width-2, 10))
	for i, l := range lines {
		lines[i] = style.Render("  " + l)
	}
	return lines
}

// question is a y/n question that takes the next key (modeAsk): a costed
// re-run, resetting a prompt, quitting or stopping the run. A re-run's
// cost comes back from the Host while the user may be doing something
// else (typing a filter, reading the ? page), so a question keeps the
// mode it interrupted, and the keyboard goes back to it once answered.
type question struct {
	text string
	over bool // over --confirm-over: the question is shown as an error
	// aboutRun is a question about the run itself (quit and stop it, stop
	// it): it is asked in the footer, in place of the keys, and dropped
	// when the run ends, since it no longer applies. The others are asked
	// on the line above the footer.
	aboutRun bool
	answer   func(yes bool) tea.Cmd
	resume   mode
}

// askYesNo asks q; the next key answers it. The ? page has no line for a
// question, so a question closes it: a key must never answer a question
// the user cannot see.
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

// answer is the key that answers the question: y or Y is yes, any other
// key no.
func (m *Model) answer(msg tea.KeyPressMsg) tea.Cmd {
	q := m.ask
	m.ask, m.mode = nil, q.resume
	s := msg.String()
	return q.answer(s == "y" || s == "Y")
}
