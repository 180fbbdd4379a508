package tui

import (
	"cmp"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/internal/sanitize"
)

// An attached run is watched, not owned: quitting leaves it running, and
// stopping it is a separate, confirmed act (X).

// syncRunKeys fits q's label and X to the run.
func (m *Model) syncRunKeys() {
	w := m.watching()
	m.keys.Stop.SetEnabled(w)
	help := "quit"
	if w {
		help = cmp.Or(m.opts.QuitHelp, "quit, run goes on")
	}
	m.keys.Quit.SetHelp("q", help)
}

// attachedRun names the attached run in messages.
func (m *Model) attachedRun() string {
	if m.opts.RunID == "" {
		return "the run"
	}
	return "run " + sanitize.Line(m.opts.RunID)
}

// askStop is X: the question, or why there is nothing to ask.
func (m *Model) askStop() {
	if m.refused(m.stopBlocked()) {
		return
	}
	m.askYesNo(&question{text: "Stop " + m.attachedRun() + "? It is running in another process. [y/n]", aboutRun: true,
		answer: onYes(m.stopAttached)})
}

// stopAttached is y to X: Cancel may reach another process, so it runs in
// a command.
func (m *Model) stopAttached() tea.Cmd {
	m.setStatus("asked " + m.attachedRun() + " to stop; it is shown until it ends")
	cancel := m.opts.Cancel
	return func() tea.Msg {
		cancel()
		return nil
	}
}
