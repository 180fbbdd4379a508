package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/sanitize"
)

// openAgreement shows the judge's agreement with the human labels on the
// run shown (and, for a re-run, on the run before it), read afresh; the
// table's marks are read again with it.
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
	lines = append(lines, st.header.Render(fit(sprintf("  %-31s %-12s %-16s %-16s %s", "task", "labelled", "accuracy", "kappa", "tp fp tn fn"), m.width, m.g.ellipsis)))
	var notes []string
	for _, task := range eval.LabelTasks {
		t := a.Tasks[task]
		var b *eval.TaskAgreement
		if a.Before != nil {
			b = a.Before.Tasks[task]
		}
		both := func(f func(*eval.TaskAgreement) string) string {
			if b == nil {
				return f(t)
			}
			return f(b) + m.g.arrow + f(t)
		}
		c := t.Confusion
		row := sprintf("  %-31s %-12s %-16s %-16s %d %d %d %d", task,
			both(func(x *eval.TaskAgreement) string { return sprintf("%d", x.Labelled) }),
			both(func(x *eval.TaskAgreement) string { return optFigure(x.Accuracy) }),
			both(func(x *eval.TaskAgreement) string { return optFigure(x.Kappa) }),
			c.TP, c.FP, c.TN, c.FN)
		style := st.muted
		if t.Labelled > 0 {
			style = st.bold
		}
		lines = append(lines, style.Render(fit(row, m.width, m.g.ellipsis)))
		if t.Labelled > 0 && t.KappaUndefined != "" {
			notes = append(notes, task+": kappa n/a: "+t.KappaUndefined)
		}
	}
	lines = append(lines, "", st.header.Render(fit(sprintf("  %-19s %-9s %-9s %-8s %-7s %s", "metric", "labelled", "disputed", "changed", "mean", "with labels"), m.width, m.g.ellipsis)))
	for _, mt := range eval.AllMetrics {
		ma := a.Metrics[mt]
		lines = append(lines, fit(sprintf("  %-19s %-9d %-9d %-8d %-7s %s", mt, ma.Labelled, ma.Disputed, ma.Changed, optFigure(ma.Mean), optFigure(ma.MeanWithLabels)), m.width, m.g.ellipsis))
	}
	lines = append(lines, "")
	for _, n := range notes {
		lines = append(lines, m.indented(n, st.muted)...)
	}
	lines = append(lines, m.indented("changed: samples whose score moves when the human labels replace the judge's values (ragscope report --with-labels)", st.muted)...)
	return m.finish(lines, m.keyMode().help())
}

func optFigure(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return sprintf("%.3f", *p)
}
