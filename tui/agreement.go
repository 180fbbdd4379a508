package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/internal/sanitize"
)

// openAgreement shows the judge's agreement with the human labels, read
// afresh with the table's marks.
func (m *Model) openAgreement() tea.Cmd {
	l := &m.lab
	h := m.opts.Labels
	if m.screen != screenAgreement {
		l.back = m.screen
	}
	m.screen = screenAgreement
	l.agreeBusy = true
	run := m.runID
	return tea.Batch(func() tea.Msg {
		a, err := h.Agreement(run)
		return agreementMsg{a: a, err: err}
	}, m.loadMarks())
}

func (m *Model) agreementMode() keyMode {
	k := &m.keys
	return keyMode{
		title:  "keys: agreement with the human labels",
		footer: []*key.Binding{&k.Back, &k.Agreement, &k.Help, &k.Quit},
		page:   [][]*key.Binding{{&k.Back, &k.Agreement}, k.leaving()},
	}
}

func (m *Model) agreementKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Back):
		m.screen = m.lab.back
		m.detail.invalidate()
	case key.Matches(msg, m.keys.Agreement):
		return m.openAgreement()
	}
	return nil
}

func (m *Model) renderAgreement() []string {
	st, l := m.st, &m.lab
	lines := []string{st.title.Render("ragscope") + " " + st.bold.Render("agreement with the human labels") +
		st.muted.Render(m.g.sep+"run "+sanitize.Line(m.runID)+m.g.sep+"positive = value 1")}
	lines = append(lines, "")
	switch {
	case l.agreeBusy && l.agreement == nil:
		return m.finish(append(lines, st.muted.Render("  counting"+m.g.ellipsis)), m.keyMode().help())
	case l.agreeErr != nil:
		return m.finish(append(lines, m.indented("cannot count: "+l.agreeErr.Error(), st.failed)...), m.keyMode().help())
	case l.agreement == nil:
		return m.finish(lines, m.keyMode().help())
	}
	a := l.agreement
	if a.Before != nil {
		lines = append(lines, m.indented("before "+m.g.arrow+" after: run "+sanitize.Line(a.Before.Run)+" "+m.g.arrow+" run "+sanitize.Line(a.Run)+" (the re-run)", st.accent)...)
	}
	tab := a.Table(m.g.arrow)
	tasks := alignColumns(append([][]string{{"task", "labelled", "accuracy", "kappa", "tp", "fp", "tn", "fn"}}, tab.Tasks...))
	lines = append(lines, st.header.Render(fit(tasks[0], m.width, m.g.ellipsis)))
	for i, row := range tasks[1:] {
		style := st.muted
		if tab.Labelled[i] {
			style = st.bold
		}
		lines = append(lines, style.Render(fit(row, m.width, m.g.ellipsis)))
	}
	metrics := alignColumns(append([][]string{{"metric", "labelled", "disputed", "changed", "mean", "with labels"}}, tab.Metrics...))
	lines = append(lines, "", st.header.Render(fit(metrics[0], m.width, m.g.ellipsis)))
	for _, row := range metrics[1:] {
		lines = append(lines, fit(row, m.width, m.g.ellipsis))
	}
	lines = append(lines, "")
	for _, n := range tab.Notes {
		lines = append(lines, m.indented(n, st.muted)...)
	}
	lines = append(lines, m.indented("changed: samples whose score moves when the human labels replace the judge's values (ragscope report --with-labels)", st.muted)...)
	return m.finish(lines, m.keyMode().help())
}

// alignColumns lays rows of cells out as a grid, each column as wide as
// its widest cell; the first row is the titles.
func alignColumns(rows [][]string) []string {
	cols := make([]gridColumn, len(rows[0]))
	for i, title := range rows[0] {
		cols[i].title = title
		for _, r := range rows[1:] {
			cols[i].cells = append(cols[i].cells, r[i])
		}
	}
	widths := layoutGrid(cols, 0, nil)
	out := []string{gridLine(cols, widths, -1, "")}
	for i := range rows[1:] {
		out = append(out, gridLine(cols, widths, i, ""))
	}
	return out
}
