package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// filterHelp documents the filter language next to the generated key help.
var filterHelp = []string{
	"Filter (/): terms separated by spaces, all must hold",
	"  f<0.5  ar<0.7  cp=0  cr>=0.8   scores by alias: f ar cp cr cu as ac fc er ns",
	"                                 (< <= > >= = !=; ns: lower is better)",
	"  status:failed|low|ok|n/a|running|judge_error ...   low (%s): a score fails",
	"  diag:generation|retrieval|off-topic|noncommittal|incomplete|low|ok|failed",
	"  label:disputed|any|agreed|none (human labels)",
	"  df<0  dar<-0.1  dcp>0  dcr!=0   comparing runs: after minus before (<0 worse)",
	"  any other word, or \"a phrase\": the id, the question or the answer,",
	"  whole (not the contexts)",
}

// renderHelp is the ? page of the mode behind it: the keys that are off
// now under the title, every key that works, then the filter language.
func (m *Model) renderHelp() []string {
	km := m.keyMode()
	off := ""
	if keys := km.refused(); len(keys) > 0 {
		names := make([]string, len(keys))
		for i, b := range keys {
			names[i] = b.Help().Key + " " + b.Help().Desc
		}
		off = m.st.muted.Render(truncate("Off now, pressing one says why: "+strings.Join(names, ", "), m.width, m.g.ellipsis))
	}
	lines := []string{m.st.title.Render("ragscope") + " " + m.st.bold.Render(km.title), off}
	lines = append(lines, m.helpColumns(km.help().FullHelp())...)
	lines = append(lines, "")
	if m.screen == screenTable {
		for _, l := range filterHelp {
			if strings.Contains(l, "%s") {
				l = fmt.Sprintf(l, m.g.low) // the mark of a row whose score fails
			}
			lines = append(lines, m.st.muted.Render(l))
		}
		lines = append(lines, "")
	}
	for _, l := range m.legend() {
		lines = append(lines, m.st.muted.Render(truncate(l, m.width, m.g.ellipsis)))
	}
	for len(lines) < m.height-1 {
		lines = append(lines, "")
	}
	return append(lines, m.st.muted.Render("? or esc closes this page"))
}

// helpColumns lays the key columns side by side, as many as fit the width,
// the next ones in a band below.
func (m *Model) helpColumns(groups [][]key.Binding) []string {
	var lines, band []string
	var cols [][]key.Binding
	hm := m.help
	hm.SetWidth(0) // measured whole: a band is never cut
	flush := func() {
		if len(cols) == 0 {
			return
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, band...)
		cols, band = nil, nil
	}
	for _, g := range groups {
		try := strings.Split(hm.FullHelpView(append(cols, g)), "\n")
		if len(cols) > 0 && lineWidth(try) > m.width {
			flush()
			try = strings.Split(hm.FullHelpView([][]key.Binding{g}), "\n")
		}
		cols, band = append(cols, g), try
	}
	flush()
	return lines
}

// legend says what the score colours and the row marks mean.
func (m *Model) legend() []string {
	lv := m.st.levels
	pass := fmt.Sprintf("%g", report.DiagLow)
	if !lv.IsDefault() {
		pass = lv.String() + ", others " + pass
	}
	out := []string{
		fmt.Sprintf("Scores: red below the pass level (%s), amber below %g, green (ns: 1 - score);", pass, report.DiagHigh),
		"'-' not evaluated, n/a not computable, unsup not by this judge, err failed.",
	}
	if c := m.st.crit; len(c.names) > 0 {
		levels := make([]string, len(c.names))
		for i, n := range c.names {
			levels[i] = fmt.Sprintf("%s %g", sanitize.Line(string(n)), c.level(n))
		}
		out = append(out, fmt.Sprintf("Criteria, filtered by name (%s<1): red below their pass level (%s), marking the row %s.",
			sanitize.Line(string(c.names[0])), strings.Join(levels, ", "), m.g.low))
	}
	return out
}
