package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// filterHelp documents the filter language next to the generated key help.
var filterHelp = []string{
	"Filter (/): terms separated by spaces, all must hold",
	"  f<0.5  ar<0.7  cp=0  cr>=0.8   scores of faithfulness, answer relevancy,",
	"                                 context precision, recall (< <= > >= = !=)",
	"  status:failed  status:ok  status:n/a  status:running  status:judge_error ...",
	"  diag:generation  diag:retrieval  diag:off-topic  diag:noncommittal",
	"  diag:low  diag:ok  diag:failed",
	"  any other word, or \"a quoted phrase\", matches the question or the answer",
}

func (m *Model) renderHelp() []string {
	h := m.keys.tableHelp(true, true)
	title := "keys: table"
	switch m.screen {
	case screenDetail, screenRaw:
		h = m.keys.detailHelp(true)
		title = "keys: sample detail"
	case screenPrompts:
		h = helpMap{full: [][]key.Binding{m.keys.promptsHelp().short}}
		title = "keys: judge prompts"
	case screenRuns:
		h = helpMap{full: [][]key.Binding{m.keys.pickerHelp().short}}
		title = "keys: compare runs"
	}
	lines := []string{m.st.title.Render("ragscope") + " " + m.st.bold.Render(title), ""}
	lines = append(lines, strings.Split(m.help.FullHelpView(h.FullHelp()), "\n")...)
	lines = append(lines, "")
	for _, l := range filterHelp {
		lines = append(lines, m.st.muted.Render(l))
	}
	lines = append(lines, "")
	// Two short lines rather than one long one: the page must fit 80 columns.
	lines = append(lines, m.st.muted.Render("Scores: red < 0.5 <= amber < 0.7 <= green;"))
	lines = append(lines, m.st.muted.Render("'-' not evaluated, n/a not computable, err failed."))
	for len(lines) < m.height-1 {
		lines = append(lines, "")
	}
	return append(lines, m.st.muted.Render("? or esc closes this page"))
}
