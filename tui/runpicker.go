package tui

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// runPicker is c: the stored runs of the dataset, newest first; the first
// pick is the base (before), the second the run compared with it (after).
type runPicker struct {
	pickList
	list      []report.RunInfo
	base, cur int // picked positions, -1 when none
}

// compareBlocked says why c cannot open the picker now, or "".
func (m *Model) compareBlocked() string {
	switch {
	case m.opts.Host == nil:
		return "comparing runs needs the run store of an LLM-judged run; " + noHost
	case m.live:
		return "the run is still in progress; compare runs when it has finished"
	case m.rerun != nil:
		return "a re-run is in progress; compare runs when it has finished"
	}
	return ""
}

func (m *Model) openPicker() tea.Cmd {
	h := m.opts.Host
	m.picker = runPicker{pickList: pickList{loading: true, back: m.screen}, base: -1, cur: -1}
	m.screen = screenRuns
	m.gen++
	gen, v := m.gen, &m.picker
	return inCommand(h.Runs, func(runs []report.RunInfo, err error) tea.Cmd {
		switch {
		case gen != m.gen:
		case err != nil:
			v.loading, v.err = false, "cannot list the stored runs: "+err.Error()
		default:
			v.loading, v.list = false, runs
			if len(v.list) < 2 {
				v.err = "comparing needs two stored runs of this dataset; re-run (r or R) to make one"
			}
		}
		return nil
	})
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

// loadPicked reads both runs' results in a command; with both, the
// comparison opens.
func (m *Model) loadPicked() tea.Cmd {
	v := &m.picker
	v.loading = true
	m.gen++
	gen, h := m.gen, m.opts.Host
	ids := [2]string{v.list[v.base].ID, v.list[v.cur].ID}
	return inCommand(func() (runs [2][]*eval.Result, err error) {
		// Both at once: a large run takes a while to read.
		var errs [2]error
		var wg sync.WaitGroup
		for i, id := range ids {
			wg.Go(func() {
				if runs[i], errs[i] = h.Results(id); errs[i] != nil {
					errs[i] = fmt.Errorf("cannot load run %s: %v", id, errs[i])
				}
			})
		}
		wg.Wait()
		return runs, cmp.Or(errs[0], errs[1])
	}, func(runs [2][]*eval.Result, err error) tea.Cmd {
		switch {
		case gen != m.gen:
		case err != nil:
			v.loading, v.cur, v.err = false, -1, err.Error()
		default:
			v.loading = false
			m.enterCompare(ids[0], runs[0], ids[1], runs[1])
			m.screen = screenTable
			m.setStatus(fmt.Sprintf("comparing %s (before) with %s (after); esc leaves", ids[0], ids[1]))
		}
		return nil
	})
}

// The picker's columns; runShrinkOrder gives up room on a narrow terminal
// from a long model name first to the run id last.
const (
	colPick = iota
	colRun
	colDataset
	colJudge
	colSamples
	colStatus
	colStarted
	colParent
)

var runShrinkOrder = []gridStep{
	{colJudge, 20}, {colDataset, 7}, {colStarted, 0}, {colParent, 8}, {colJudge, 10}, {colStatus, 9},
	{colParent, 0}, {colDataset, 0}, {colJudge, 6}, {colStatus, 6}, {colRun, 8},
}

// runColumns lays out what tells stored runs apart.
func (m *Model) runGrid() grid {
	v := &m.picker
	g := grid{cols: []gridColumn{
		colPick:    {title: "pick", least: len("compare")},
		colRun:     {title: "run"},
		colDataset: {title: "dataset"},
		colJudge:   {title: "judge"},
		colSamples: {title: "samples", right: true},
		colStatus:  {title: "status"},
		colStarted: {title: "started"},
		colParent:  {title: "parent"},
	}}
	for i, ri := range v.list {
		pick := ""
		switch i {
		case v.base:
			pick = "base"
		case v.cur:
			pick = "compare"
		}
		parent := cmp.Or(sanitize.Line(ri.Parent), "-")
		if ri.ID == m.runID {
			parent += " (shown)"
		}
		started := "-"
		if !ri.StartedAt.IsZero() {
			started = ri.StartedAt.Format("2006-01-02 15:04:05")
		}
		g.rows = append(g.rows, []string{
			colPick:    pick,
			colRun:     sanitize.Line(ri.ID),
			colDataset: orDash(sanitize.Line(filepath.Base(ri.Dataset))),
			colJudge:   orDash(judgeLabel(ri.Judge)),
			colSamples: strconv.Itoa(ri.Samples),
			colStatus:  runStatus(ri),
			colStarted: started,
			colParent:  parent,
		})
	}
	return g
}

// judgeLabel names the judge of a run: its model, or "offline".
func judgeLabel(j eval.JudgeInfo) string {
	if j.Kind == "offline" {
		return "offline"
	}
	return sanitize.Line(cmp.Or(j.Model, j.Name))
}

// runStatus is how a stored run ended, as far as its record says.
func runStatus(ri report.RunInfo) string {
	s := "finished"
	switch {
	case ri.Cancelled:
		s = "cancelled"
	case ri.FinishedAt == nil:
		s = "unfinished"
	}
	if ri.Skipped > 0 {
		s += fmt.Sprintf(", %d skipped", ri.Skipped)
	}
	return s
}

func orDash(s string) string {
	if s == "" || s == "." {
		return "-"
	}
	return s
}

func (m *Model) renderRuns() []string {
	st, g := m.st, m.g
	v := &m.picker
	lines := m.listRows("compare runs", "pick the base (before), then the run to compare (after)", &v.pickList,
		m.runGrid(), runShrinkOrder, 4, "reading the run store", "no stored runs",
		func(i int) bool { return i == v.base || i == v.cur })
	switch {
	case v.err != "":
		lines = append(lines, m.indented(v.err, st.errorLine)...)
	case v.loading:
		lines = append(lines, st.muted.Render("  loading both runs"+g.ellipsis))
	}
	return m.finish(lines)
}
