package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// The table is windowed: only the rows on screen are formatted.

const (
	scoreW    = 5 // "0.667"
	negScoreW = 6 // "-0.257", once a row scores the metric below 0
)

// scoreWidth is the width of mt's score column.
func (m *Model) scoreWidth(mt eval.Metric) int {
	if slot := metricSlot(mt); slot >= 0 && m.negative[slot] {
		return negScoreW
	}
	return scoreW
}

// noteNegative widens the score column of a metric a row scores below 0.
func (m *Model) noteNegative(r *row) {
	if !r.done {
		return
	}
	for slot := range eval.NumMetrics {
		if v := r.score(slot); v < 0 && fmtScore(v)[0] == '-' {
			m.negative[slot] = true
		}
	}
}

// diagW fits the longest diagnosis ("noncommittal").
var diagW = widest(report.Diagnoses, len("diagnosis"), func(d report.Diagnosis) int { return len(d) })

// tableRows is how many sample rows fit under the header.
func (m *Model) tableRows() int { return m.rowsUnder(len(m.headerLines())) }

// rowsUnder is how many sample rows fit under a header of n lines.
func (m *Model) rowsUnder(n int) int { return max(m.height-n-2-len(m.bottomLines()), 1) }

func (m *Model) indexWidth() int {
	return max(len(strconv.Itoa(max(m.progress.total, len(m.rows)))), 3)
}

func (m *Model) questionWidth() int {
	fixed := 2 + m.indexWidth() + 1 + 1 + diagW
	for _, mt := range m.columns {
		fixed += m.scoreWidth(mt) + 1
	}
	if m.cmp != nil {
		fixed += len(m.metrics) * (deltaW + 1)
	}
	return max(m.width-fixed, 8)
}

func (m *Model) renderTable() []string {
	lines := m.headerLines()
	h := m.rowsUnder(len(lines)) // the header is drawn once a frame
	lines = append(lines, m.columnTitles())
	end := min(m.offset+h, len(m.lines))
	for pos := m.offset; pos < end; pos++ {
		if n, ok := lineConv(m.lines[pos]); ok {
			lines = append(lines, m.renderConv(n, pos == m.cursor))
			continue
		}
		r := m.rows[m.lines[pos]]
		lines = append(lines, m.drawRow(r, pos == m.cursor, strconv.Itoa(r.index), m.turnText(r), false))
	}
	if len(m.shown) == 0 {
		empty := "  no sample matches the filter (esc clears it)"
		switch {
		case len(m.rows) == 0 && m.live:
			empty = "  waiting for the first sample..."
		case len(m.rows) == 0:
			empty = "  no samples"
		case m.wholePending() > 0 || m.deferredNote() != "":
			empty = "  no sample matches the filter so far (esc clears it)"
		}
		lines = append(lines, m.st.muted.Render(empty))
	}
	return m.finish(lines)
}

func (m *Model) columnTitles() string {
	key := m.sortKeys[m.sortIdx]
	arrow := "^"
	if m.desc {
		arrow = "v"
	}
	title := func(name string, slot int, delta bool, w int, right bool) string {
		if slot == key.slot && delta == (key.delta != nil) {
			name += arrow
		}
		if right {
			return padLeft(name, w)
		}
		return fit(name, w, "")
	}
	var b strings.Builder
	b.WriteString("  " + title("#", slotIndex, false, m.indexWidth(), true) + " " + fit("question", m.questionWidth(), ""))
	for _, mt := range m.columns {
		b.WriteString(" " + title(m.columnTitle(mt), m.slotOf(mt), false, m.scoreWidth(mt), true))
		if m.cmp != nil && !m.isCriterion(mt) {
			b.WriteString(" " + title(m.g.delta+eval.MetricAbbrev(mt), metricSlot(mt), true, deltaW, true))
		}
	}
	b.WriteString(" " + title("diagnosis", slotDiag, false, diagW, false))
	return m.st.header.Render(fit(b.String(), m.width, ""))
}

// columnTitle is a metric's abbreviation, or a criterion's name cut to
// the column's width.
func (m *Model) columnTitle(mt eval.Metric) string {
	if m.isCriterion(mt) {
		return truncate(sanitize.Line(string(mt)), m.scoreWidth(mt), m.g.ellipsis)
	}
	return eval.MetricAbbrev(mt)
}

// drawRow formats a row with index in the index column; the question
// column is text alone when whole is set (a conversation's line), else
// text then the row's question (a turn's indent). The selected one is
// drawn reversed, without colours, readable on any theme.
func (m *Model) drawRow(r *row, selected bool, index, text string, whole bool) string {
	st, g := m.st, m.g
	var b strings.Builder
	marks := [...]struct {
		glyph string
		style lipgloss.Style
	}{markRunning: {g.running, st.running}, markOK: {g.ok, st.high}, markLow: {g.low, st.low}, markWarn: {g.warn, st.warn},
		markFailed: {g.fail, st.failed}}
	b.WriteString(paint(selected, marks[r.mark].glyph, marks[r.mark].style.Render))
	b.WriteString(m.labelCell(r, selected))
	b.WriteString(padLeft(index, m.indexWidth()) + " ")
	q := text
	if !whole {
		q = sanitize.Line(r.question())
		if r.qcut {
			q += g.ellipsis // the row keeps the head of a long question
		}
		if !r.done && q == "" {
			q = "(evaluating)"
		}
		q = text + q
	}
	q = fit(q, m.questionWidth(), g.ellipsis)
	if !r.done {
		q = paint(selected, q, st.running.Render)
	}
	b.WriteString(q)
	for _, mt := range m.columns {
		b.WriteString(" " + m.scoreCell(r, mt, selected))
		if m.cmp != nil && !m.isCriterion(mt) {
			delta := strings.Repeat(" ", deltaW) // a conversation has no change of its own
			if !whole {
				delta = m.deltaCell(r, mt, selected)
			}
			b.WriteString(" " + delta)
		}
	}
	d := r.diagnosis()
	b.WriteString(" " + paint(selected, fit(string(d), diagW, ""), m.diagStyle(d)))
	line := b.String()
	if selected {
		return st.selected.Render(fit(line, m.width, m.g.ellipsis)) // cut as the other rows are
	}
	return line
}

// fmtScore formats a score with three decimals, the one way a score prints
// everywhere; a negative one that rounds to 0 is 0.000.
func fmtScore(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	if s == "-0.000" {
		return "0.000"
	}
	return s
}

// scoreCell shows a score coloured by band, or what kept it from one.
func (m *Model) scoreCell(r *row, mt eval.Metric, plain bool) string {
	st := m.st
	w := m.scoreWidth(mt)
	if !r.done {
		return padLeft("", w)
	}
	slot := m.slotOf(mt)
	status, ok := r.statusAt(slot)
	v := r.score(slot)
	var s string
	var style func(...string) string
	switch {
	case !ok:
		s, style = "  -  ", st.muted.Render
	case status == eval.StatusOK && !math.IsNaN(v):
		s, style = fmtScore(v), st.bandOf(mt, v).Render
	case status.Failed():
		s, style = " err ", st.failed.Render
	case status == eval.StatusUnsupported:
		s, style = "unsup", st.muted.Render // the judge's limit, not the sample's
	default:
		s, style = " n/a ", st.warn.Render
	}
	return paint(plain, padLeft(s, w), style)
}

// paint is s in style, or as it is when plain.
func paint(plain bool, s string, style func(...string) string) string {
	if plain {
		return s
	}
	return style(s)
}

func (m *Model) diagStyle(d report.Diagnosis) func(...string) string {
	st := m.st
	switch d {
	case report.DiagOK:
		return st.high.Render
	case report.DiagFailed:
		return st.failed.Render
	case "":
		return lipgloss.NewStyle().Render
	}
	return st.mid.Render
}

// footer is the one-line help, or the y/n question when one is pending.
func (m *Model) footer(h helpMap) string {
	if m.mode == modeAsk && m.ask.aboutRun {
		return m.st.warn.Render(m.ask.text)
	}
	return m.shortHelp(h.short)
}

// shortHelp is as many of the footer's keys as fit whole, then an ellipsis.
func (m *Model) shortHelp(keys []key.Binding) string {
	hm := m.help
	hm.SetWidth(0)
	sep := ansi.StringWidth(hm.ShortSeparator)
	w := 0
	for i, b := range keys {
		item := ansi.StringWidth(b.Help().Key) + 1 + ansi.StringWidth(b.Help().Desc)
		if i > 0 {
			item += sep
		}
		if m.width > 0 && w+item > m.width {
			more := ""
			if w+1+ansi.StringWidth(hm.Ellipsis) <= m.width {
				more = hm.Styles.Ellipsis.Render(" " + hm.Ellipsis)
			}
			return hm.ShortHelpView(keys[:i]) + more
		}
		w += item
	}
	return hm.ShortHelpView(keys)
}
