package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/sanitize"
)

// runPicker is c: the stored runs of the dataset, newest first; the first
// pick is the base (before), the second the run compared with it (after).
type runPicker struct {
	list      []eval.RunInfo
	cursor    int
	base, cur int // picked positions, -1 when none
	loading   bool
	err       string
	back      screen
	// results of the two picks, as they arrive
	got    [2]bool
	loaded [2][]*eval.Result
}

type runsMsg struct {
	gen  int
	runs []eval.RunInfo
	err  error
}

type runResultsMsg struct {
	gen     int
	role    int // 0 base, 1 compared
	id      string
	results []*eval.Result
	err     error
}

func (runsMsg) workflowMsg()       {}
func (runResultsMsg) workflowMsg() {}

func (m *Model) openPicker() tea.Cmd {
	h := m.opts.Host
	switch {
	case h == nil:
		m.setError("comparing runs needs the run store of an LLM-judged run; " + noHost)
		return nil
	case m.live:
		m.setError("the run is still in progress; compare runs when it has finished")
		return nil
	case m.rerun != nil:
		m.setError("a re-run is in progress; compare runs when it has finished")
		return nil
	}
	m.picker = runPicker{loading: true, base: -1, cur: -1, back: m.screen}
	m.screen = screenRuns
	m.gen++
	gen := m.gen
	return func() tea.Msg {
		runs, err := h.Runs()
		return runsMsg{gen: gen, runs: runs, err: err}
	}
}

func (m *Model) runsKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	v := &m.picker
	if k.moveCursor(msg, &v.cursor, len(v.list)) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Back):
		m.gen++ // a load still in flight no longer applies
		m.screen = v.back
	case key.Matches(msg, k.Pick):
		if v.loading || v.cursor >= len(v.list) {
			return nil
		}
		v.err = ""
		switch {
		case v.base < 0:
			v.base = v.cursor
		case v.cursor == v.base:
			v.base = -1 // picking the base again un-picks it
		default:
			v.cur = v.cursor
			return m.loadPicked()
		}
	}
	return nil
}

// loadPicked reads both runs' results, each in its own command.
func (m *Model) loadPicked() tea.Cmd {
	v := &m.picker
	v.loading = true
	v.got = [2]bool{}
	v.loaded = [2][]*eval.Result{}
	m.gen++
	gen, h := m.gen, m.opts.Host
	load := func(role int, id string) tea.Cmd {
		return func() tea.Msg {
			res, err := h.Results(id)
			return runResultsMsg{gen: gen, role: role, id: id, results: res, err: err}
		}
	}
	return tea.Batch(load(0, v.list[v.base].ID), load(1, v.list[v.cur].ID))
}

func (m *Model) pickerWorkflow(msg workflowMsg) tea.Cmd {
	v := &m.picker
	switch msg := msg.(type) {
	case runsMsg:
		if msg.gen != m.gen {
			return nil
		}
		v.loading = false
		if msg.err != nil {
			v.err = "cannot list the stored runs: " + msg.err.Error()
			return nil
		}
		v.list = msg.runs
		if len(v.list) < 2 {
			v.err = "comparing needs two stored runs of this dataset; re-run (r or R) to make one"
		}
	case runResultsMsg:
		if msg.gen != m.gen {
			return nil
		}
		if msg.err != nil {
			v.loading, v.cur = false, -1
			v.err = sprintf("cannot load run %s: %v", msg.id, msg.err)
			m.gen++ // drop the other half
			return nil
		}
		v.got[msg.role], v.loaded[msg.role] = true, msg.results
		if !v.got[0] || !v.got[1] {
			return nil
		}
		v.loading = false
		m.enterCompare(v.list[v.base].ID, v.loaded[0], v.list[v.cur].ID, v.loaded[1])
		m.screen = screenTable
		m.setStatus(sprintf("comparing %s (before) with %s (after); esc leaves", v.list[v.base].ID, v.list[v.cur].ID))
	}
	return nil
}

func (m *Model) renderRuns() []string {
	st, g := m.st, m.g
	v := &m.picker
	lines := []string{st.title.Render("ragscope") + " " + st.bold.Render("compare runs") +
		st.muted.Render(g.sep+"pick the base (before), then the run to compare (after)")}
	lines = append(lines, "")
	switch {
	case v.loading && len(v.list) == 0:
		lines = append(lines, st.muted.Render("  reading the run store"+g.ellipsis))
	case len(v.list) == 0:
		lines = append(lines, st.muted.Render("  no stored runs"))
	default:
		lines = append(lines, st.header.Render(fit("  pick     run            started           judge               samples  parent", m.width, "")))
		room := max(m.height-len(lines)-4-len(m.bottomLines()), 1)
		start := min(max(v.cursor-room+1, 0), max(len(v.list)-room, 0))
		for i := start; i < min(start+room, len(v.list)); i++ {
			ri := v.list[i]
			pick := ""
			switch i {
			case v.base:
				pick = "base"
			case v.cur:
				pick = "compare"
			}
			judge := ri.Judge.Name
			if judge == "" {
				judge = ri.Judge.Model
			}
			judge = sanitize.Line(judge)
			parent := sanitize.Line(ri.Parent)
			if parent == "" {
				parent = "-"
			}
			if ri.ID == m.runID {
				parent += " (shown)"
			}
			l := sprintf("  %-8s %-14s %-17s %-19s %7d  %s", pick, fit(sanitize.Line(ri.ID), 14, g.ellipsis),
				ri.StartedAt.Format("2006-01-02 15:04"), fit(judge, 19, g.ellipsis), ri.Samples, parent)
			switch {
			case i == v.cursor:
				l = st.selected.Render(fit(l, m.width, ""))
			case pick != "":
				l = st.accent.Render(l)
			}
			lines = append(lines, l)
		}
	}
	lines = append(lines, "")
	switch {
	case v.err != "":
		for _, l := range wrap(v.err, max(m.width-2, 10)) {
			lines = append(lines, st.errorLine.Render("  "+l))
		}
	case v.loading:
		lines = append(lines, st.muted.Render("  loading both runs"+g.ellipsis))
	}
	return m.finish(lines, m.keys.pickerHelp())
}
