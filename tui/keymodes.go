package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// keyMode is the one place that says which keys work where: the footer and
// the ? page show the keys that work now, and key() refuses, with the
// reason, the ones off, so the two cannot disagree.
type keyMode struct {
	title  string           // the ? page's title
	footer []*key.Binding   // the footer, most used first
	page   [][]*key.Binding // the ? page's columns: every key the mode handles
	off    map[*key.Binding]string
}

// refuse turns keys of the mode off when why is not empty.
func (km *keyMode) refuse(why string, keys ...*key.Binding) {
	if why == "" {
		return
	}
	for _, b := range keys {
		setIn(&km.off, b, why)
	}
}

func (km keyMode) works(b *key.Binding) bool { return b.Enabled() && km.off[b] == "" }

// footerDesc shortens long words in the footer, to fit 80 columns.
var footerDesc = map[string]string{"compare runs": "compare", "agreement with labels": "agreement"}

// help is what the footer and the ? page show: the keys that work now,
// and those off now, in page order.
func (km keyMode) help() helpMap {
	var h helpMap
	for _, b := range km.footer {
		if km.works(b) {
			fb := *b
			if d, ok := footerDesc[b.Help().Desc]; ok {
				fb.SetHelp(b.Help().Key, d)
			}
			h.short = append(h.short, fb)
		}
	}
	for _, col := range km.page {
		var c []key.Binding
		for _, b := range col {
			if km.works(b) {
				c = append(c, *b)
			} else if b.Enabled() {
				h.off = append(h.off, *b)
			}
		}
		if len(c) > 0 {
			h.full = append(h.full, c)
		}
	}
	return h
}

// refusal is why the mode refuses the key pressed, "" when it does not.
func (km keyMode) refusal(msg tea.KeyPressMsg) string {
	for b, why := range km.off {
		if key.Matches(msg, *b) {
			return why
		}
	}
	return ""
}

// keyMode is the mode the user is in: typing a filter, or a screen.
func (m *Model) keyMode() keyMode {
	switch m.shownMode() {
	case modeFilter:
		return m.inputMode("keys: filter")
	case modeNote:
		return m.inputMode("keys: note")
	}
	return m.screen.parts().mode(m)
}

// scrolling are the keys that move through a page or a table, if it moves.
func (k *keyMap) scrolling(moves bool) []*key.Binding {
	if !moves {
		return nil
	}
	return []*key.Binding{&k.Down, &k.Up, &k.Top, &k.Bottom, &k.HalfDown, &k.HalfUp, &k.PageDown, &k.PageUp}
}

// upDown are the movement keys the footer names, of those a mode has.
func upDown(moves []*key.Binding) []*key.Binding { return moves[:min(len(moves), 2)] }

// leaving are the keys every screen has.
func (k *keyMap) leaving() []*key.Binding {
	return []*key.Binding{&k.Help, &k.Quit, &k.Stop, &k.ForceQuit}
}

func (m *Model) tableMode() keyMode {
	k := &m.keys
	view := []*key.Binding{&k.Open, &k.Sort, &k.Reverse, &k.Filter}
	// c and A come before the keys every screen has, to fit 80 columns.
	footer := []*key.Binding{&k.Open, &k.Filter, &k.Sort, &k.Compare, &k.Help, &k.Quit, &k.Stop}
	if m.convs != nil {
		view = append(view, &k.Expand, &k.Collapse)
		footer = append([]*key.Binding{&k.Open, &k.Expand, &k.Collapse}, footer[1:]...)
	}
	esc := m.tableEsc() // the one thing esc will do
	if esc != nil {
		view = append(view, esc)
		footer = append(footer, esc)
	}
	moves := k.scrolling(len(m.lines) > 1)
	km := keyMode{
		title:  "keys: table",
		footer: append(append(footer, &k.RerunAll, &k.Prompts, &k.Reverse, &k.Copy, &k.Pager), upDown(moves)...),
		page: [][]*key.Binding{
			moves,
			view,
			append([]*key.Binding{&k.Prompts, &k.RerunAll, &k.Compare, &k.Copy, &k.Pager}, k.leaving()...),
		},
	}
	km.refuse(m.copyBlocked(), &k.Copy, &k.Pager)
	km.refuse(m.openBlocked(), &k.Open)
	km.refuse(m.rerunAllBlocked(), &k.RerunAll)
	km.refuse(m.promptsBlocked(), &k.Prompts)
	km.refuse(m.compareBlocked(), &k.Compare)
	km.refuse(m.stopBlocked(), &k.Stop)
	if esc == &k.LeaveCompare {
		km.refuse(m.leaveCompareBlocked(), esc)
	}
	m.tableLabelKeys(&km)
	return km
}

// tableEsc is what esc does in the table, nil when it does nothing.
func (m *Model) tableEsc() *key.Binding {
	switch {
	case !m.filter.empty():
		return &m.keys.ClearFilter
	case m.cmp != nil:
		return &m.keys.LeaveCompare
	}
	return nil
}

func (m *Model) detailMode() keyMode {
	k := &m.keys
	m.ensureDetail()
	moves := k.scrolling(m.detail.maxScroll(m.pageHeight()) > 0)
	km := keyMode{
		title: "keys: sample detail",
		footer: append([]*key.Binding{&k.Back, &k.Section, &k.Raw, &k.Help, &k.Quit, &k.Stop, &k.Rerun, &k.DetailPrompts,
			&k.Copy, &k.Pager, &k.NextSection, &k.NextSample}, upDown(moves)...),
		page: [][]*key.Binding{
			moves,
			{&k.Section, &k.NextSection, &k.PrevSection, &k.Raw, &k.NextSample, &k.PrevSample, &k.Back},
			append([]*key.Binding{&k.Rerun, &k.DetailPrompts, &k.Copy, &k.Pager}, k.leaving()...),
		},
	}
	km.refuse(m.copyBlocked(), &k.Copy, &k.Pager)
	km.refuse(m.rerunSampleBlocked(), &k.Rerun)
	km.refuse(m.promptsBlocked(), &k.DetailPrompts)
	km.refuse(m.stopBlocked(), &k.Stop)
	m.labelKeys(&km)
	return km
}

func (m *Model) rawMode() keyMode {
	k := &m.keys
	m.ensureRaw()
	moves := k.scrolling(m.raw.maxScroll(m.pageHeight()) > 0)
	footer := []*key.Binding{&k.Back, &k.Copy, &k.Pager, &k.Quit}
	if len(moves) > 0 {
		footer = append(moves[:4:4], footer...)
	}
	km := keyMode{
		title:  "keys: raw judge calls",
		footer: footer,
		page:   [][]*key.Binding{moves, {&k.Back, &k.Raw, &k.Copy, &k.Pager}, k.leaving()},
	}
	km.refuse(m.copyBlocked(), &k.Copy, &k.Pager)
	km.refuse(m.stopBlocked(), &k.Stop)
	return km
}

// listMode is the keys of a list screen of n items.
func (m *Model) listMode(title string, n int, actions ...*key.Binding) keyMode {
	k := &m.keys
	moves := k.scrolling(n > 1) // a list has no pages
	moves = moves[:min(len(moves), 4)]
	km := keyMode{
		title:  title,
		footer: append(append(slices.Clone(actions), upDown(moves)...), &k.Back, &k.Help, &k.Quit),
		page:   [][]*key.Binding{moves, append(slices.Clone(actions), &k.Back), k.leaving()},
	}
	km.refuse(m.stopBlocked(), &k.Stop)
	return km
}

func (m *Model) promptsMode() keyMode {
	k := &m.keys
	km := m.listMode("keys: judge prompts", len(m.prompts.list), &k.Edit, &k.ResetPrompt)
	km.refuse(m.promptBlocked("edit"), &k.Edit)
	km.refuse(m.promptBlocked("reset"), &k.ResetPrompt)
	return km
}

func (m *Model) pickerMode() keyMode {
	k := &m.keys
	km := m.listMode("keys: compare runs", len(m.picker.list), &k.Pick)
	km.refuse(m.pickBlocked(), &k.Pick)
	return km
}

// inputMode is a line being typed: every other key is text.
func (m *Model) inputMode(title string) keyMode {
	k := &m.keys
	keys := []*key.Binding{&k.FilterApply, &k.FilterCancel, &k.ForceQuit}
	return keyMode{title: title, footer: keys, page: [][]*key.Binding{keys}}
}

// The reasons a key is off. key() refuses a key its mode turns off, so
// the action the key starts does not check again.

func (m *Model) openBlocked() string {
	if len(m.shown) == 0 {
		return "no sample is shown to open"
	}
	return ""
}

// noRerunnable is R with a filter that shows no finished sample.
const noRerunnable = "no sample to re-run (the filter shows none with a result)"

func (m *Model) rerunAllBlocked() string {
	why := m.rerunBlocked()
	if why != "" || slices.ContainsFunc(m.shown, func(p int32) bool { return m.rows[p].done }) {
		return why
	}
	return noRerunnable
}

func (m *Model) rerunSampleBlocked() string {
	if why := m.rerunBlocked(); why != "" {
		return why
	}
	if m.detail.row < len(m.rows) && !m.rows[m.detail.row].done {
		return "this sample is still being evaluated; re-run it when it has finished"
	}
	return ""
}

func (m *Model) promptsBlocked() string {
	if m.opts.Host == nil {
		return noHost
	}
	return readOnly(m.opts.Host)
}

func (m *Model) stopBlocked() string {
	if m.opts.Cancel == nil {
		return m.attachedRun() + " cannot be stopped from here; it keeps going in its own process"
	}
	return ""
}

func (m *Model) leaveCompareBlocked() string {
	if m.rerun != nil {
		return "a re-run is in progress; the comparison stays until it finishes"
	}
	return ""
}

func (m *Model) pickBlocked() string {
	v := &m.picker
	switch {
	case v.loading && len(v.list) == 0:
		return "the stored runs are still loading"
	case v.loading:
		return "the picked runs are still loading"
	case v.cursor >= len(v.list):
		return "no stored run to pick"
	}
	return ""
}

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
	h, off := km.help(), ""
	if len(h.off) > 0 {
		names := mapped(h.off, func(b key.Binding) string { return b.Help().Key + " " + b.Help().Desc })
		off = m.st.muted.Render(truncate("Off now, pressing one says why: "+strings.Join(names, ", "), m.width, m.g.ellipsis))
	}
	lines := slices.Concat([]string{m.st.title.Render("ragscope") + " " + m.st.bold.Render(km.title), off},
		m.helpColumns(h.full), []string{""})
	if m.screen == screenTable {
		for _, l := range filterHelp {
			// %s is the mark of a row whose score fails.
			lines = append(lines, m.st.muted.Render(strings.ReplaceAll(l, "%s", m.g.low)))
		}
		lines = append(lines, "")
	}
	lines = append(lines, mapped(m.legend(), func(l string) string { return m.st.muted.Render(truncate(l, m.width, m.g.ellipsis)) })...)
	m.helpPage.lines = lines
	page := m.helpHeight()
	m.helpPage.scrollBy(0, page) // kept within the lines a resize left
	foot := "? or esc closes this page"
	if len(lines) > page {
		foot = fmt.Sprintf("lines %d-%d of %d, j/k scroll · %s", m.helpPage.scroll+1, min(m.helpPage.scroll+page, len(lines)), len(lines), foot)
	}
	shown := make([]string, page)
	copy(shown, lines[min(m.helpPage.scroll, len(lines)):])
	return append(shown, m.st.muted.Render(truncate(foot, m.width, m.g.ellipsis)))
}

// helpHeight is how many lines of the ? page show above its foot.
func (m *Model) helpHeight() int { return max(m.height-1, 1) }

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
		levels := mapped(c.names, func(n eval.Metric) string { return fmt.Sprintf("%s %g", sanitize.Line(string(n)), c.level(n)) })
		out = append(out, fmt.Sprintf("Criteria, filtered by name (%s<1): red below their pass level (%s), marking the row %s.",
			sanitize.Line(string(c.names[0])), strings.Join(levels, ", "), m.g.low))
	}
	return out
}
