package tui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/labels"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// LabelHost is what the interface asks of the application for human labels
// of the judge's items (the store, not a judge). Its methods do I/O.
type LabelHost interface {
	// Labels returns the stored labels of the result's items, by item key.
	Labels(r *eval.Result) (map[string]labels.Label, error)
	// SetLabel stores the human's value (0 or 1) and note for an item of r;
	// value -1 removes its label. It returns the label as stored.
	SetLabel(r *eval.Result, it labels.Item, value int, note string) (labels.Label, error)
	// Marks says, by sample index, which samples of a run have labelled
	// items (LabelMarked) and which of them a label disputes (LabelDisputed).
	Marks(runID string) (map[int]uint8, error)
	// Agreement is the judge's agreement with the labels on a run, with
	// the run it re-ran as Before.
	Agreement(runID string) (*labels.Agreement, error)
}

// The bits of a sample's label mark.
const (
	LabelMarked   uint8 = 1 << iota // some item has a human label
	LabelDisputed                   // some label differs from the judge
)

// MarkOf is the label mark of a result's items under labels.
func MarkOf(items []labels.Item, labels map[string]labels.Label) uint8 {
	var mark uint8
	for _, it := range items {
		if l, ok := labels[it.Key]; ok {
			mark |= LabelMarked
			if l.Value != it.Judge {
				mark |= LabelDisputed
			}
		}
	}
	return mark
}

// labelState is the labelling workflow: the table's marks, the detail
// page's item cursor, the note being typed, the agreement panel.
type labelState struct {
	marks map[int]uint8 // by sample index: few are labelled

	// res is the result the items are of; cursor the picked item (-1:
	// none), cursorLine its line on the page.
	res        *eval.Result
	items      []labels.Item
	human      map[string]labels.Label
	cursor     int
	cursorLine int
	gen        int

	input textinput.Model // the note typed in modeNote

	agreement *labels.Agreement
	agreeErr  error
	agreeBusy bool
	back      screen
}

// setMark records a sample's mark; the filter may show other rows now.
func (m *Model) setMark(index int, mark uint8) {
	l := &m.lab
	if l.marks[index] == mark {
		return
	}
	if mark == 0 {
		delete(l.marks, index)
	} else {
		setIn(&l.marks, index, mark)
	}
	m.derive()
}

// loadMarks reads the marks of the run shown.
func (m *Model) loadMarks() tea.Cmd {
	h := m.opts.Labels
	if h == nil {
		return nil
	}
	run := m.runID
	return inCommand(func() (map[int]uint8, error) { return h.Marks(run) }, func(marks map[int]uint8, err error) tea.Cmd {
		if err != nil {
			m.setError("cannot read the human labels: " + err.Error())
			return nil
		}
		m.lab.marks = marks
		m.derive()
		return nil
	})
}

// labelsFollow picks up the detail page's result once it is there.
func (m *Model) labelsFollow() tea.Cmd {
	l := &m.lab
	h := m.opts.Labels
	if m.screen != screenDetail || m.detail.row >= len(m.rows) {
		return nil
	}
	r := m.rows[m.detail.row]
	res := m.detailResult(r)
	if !r.done || res == nil || res == l.res {
		return nil
	}
	l.gen++
	l.res, l.items, l.human, l.cursor = res, m.pageOrder(labels.Items(res)), nil, -1
	if h == nil {
		return nil // the items can be walked (their evidence shown), not labelled
	}
	gen, index := l.gen, r.index
	return inCommand(func() (map[string]labels.Label, error) { return h.Labels(res) }, func(human map[string]labels.Label, err error) tea.Cmd {
		switch {
		case gen != l.gen:
		case err != nil:
			m.setError("cannot read the human labels: " + err.Error())
		default:
			l.human = human
			m.setMark(index, MarkOf(l.items, l.human))
			m.detail.invalidate()
		}
		return nil
	})
}

// itemsBlocked is why the item keys (] and [) are off, "" when they work.
func (m *Model) itemsBlocked() string {
	switch {
	case m.detail.row < len(m.rows) && !m.rows[m.detail.row].done:
		return "this sample is still being evaluated; label it when it has finished"
	case m.lab.res == nil || m.lab.res != m.detailResult(m.rows[m.detail.row]):
		return "the sample is still being read"
	case len(m.lab.items) == 0:
		return "this sample has no judged item to label (no metric scored, or the offline judge generated no questions)"
	}
	return ""
}

// markBlocked is why a, d, m and u are off: they act on the picked item.
func (m *Model) markBlocked() string {
	if why := cmp.Or(m.agreementBlocked(), m.itemsBlocked()); why != "" {
		return why
	}
	if m.lab.cursor < 0 {
		return "pick a judged item first: ] next, [ previous"
	}
	return ""
}

// labelKeys adds the item keys to the detail page's mode: ] and [ walk the
// judged items, and with a label store a, d, m and u label the picked one.
func (m *Model) labelKeys(km *keyMode) {
	k := &m.keys
	km.refuse(m.itemsBlocked(), &k.NextItem, &k.PrevItem)
	if m.opts.Labels == nil {
		km.footer = append(km.footer, &k.NextItem)
		km.page = append(km.page, []*key.Binding{&k.NextItem, &k.PrevItem})
		return
	}
	km.footer = append(km.footer, &k.NextItem, &k.Agree, &k.Disagree)
	km.page = append(km.page, []*key.Binding{&k.NextItem, &k.PrevItem, &k.Agree, &k.Disagree, &k.Note, &k.Unlabel, &k.Agreement})
	why := m.markBlocked()
	km.refuse(why, &k.Agree, &k.Disagree, &k.Unlabel)
	if why == "" { // an item is picked
		if _, ok := m.lab.human[m.lab.items[m.lab.cursor].Key]; !ok {
			why = "mark the item first (a agree, d disagree), then add a note"
		}
	}
	km.refuse(why, &k.Note)
	km.refuse(m.agreementBlocked(), &k.Agreement)
}

// tableLabelKeys adds the agreement panel to the table's mode.
func (m *Model) tableLabelKeys(km *keyMode) {
	if m.opts.Labels == nil {
		return
	}
	k := &m.keys
	km.page[1] = append(km.page[1], &k.Agreement)
	km.footer = slices.Insert(km.footer, slices.Index(km.footer, &k.Help), &k.Agreement)
	km.refuse(m.agreementBlocked(), &k.Agreement)
}

func (m *Model) agreementBlocked() string {
	if m.opts.Labels == nil {
		return "human labels need the run store; this interface has none"
	}
	return ""
}

// labelKey handles the item keys of the detail page; ok is false for
// other keys.
func (m *Model) labelKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.keys
	l := &m.lab
	if m.opts.Labels == nil && !key.Matches(msg, k.NextItem, k.PrevItem) {
		return nil, false
	}
	// key() refuses these until an item is picked (labelKeys): the
	// indexing below is safe.
	switch {
	case key.Matches(msg, k.NextItem, k.PrevItem):
		if n := len(l.items); key.Matches(msg, k.PrevItem) {
			l.cursor = (max(l.cursor, 0) + n - 1) % n // from none: the last
		} else {
			l.cursor = (l.cursor + 1) % n
		}
		m.detail.pick = citationOf(m.metrics, l.res, l.items[l.cursor]) + 1
		m.detail.invalidate()
		m.showCursor()
	case key.Matches(msg, k.Agree, k.Disagree):
		it := l.items[l.cursor]
		v := it.Judge
		if key.Matches(msg, k.Disagree) {
			v = 1 - it.Judge
		}
		return m.saveLabel(it, v, l.human[it.Key].Note), true
	case key.Matches(msg, k.Unlabel):
		it := l.items[l.cursor]
		if _, ok := l.human[it.Key]; !ok {
			m.setStatus("this item has no label to remove")
			return nil, true
		}
		return m.saveLabel(it, -1, ""), true
	case key.Matches(msg, k.Note):
		it := l.items[l.cursor]
		l.input = textinput.New()
		l.input.Prompt = "note: "
		l.input.SetWidth(max(m.width-10, 10))
		l.input.SetValue(l.human[it.Key].Note)
		l.input.Focus()
		m.mode = modeNote
		m.detail.invalidate()
	case key.Matches(msg, k.Agreement):
		return m.openAgreement(), true
	default:
		return nil, false
	}
	return nil, true
}

// showCursor scrolls the page so the picked item is on it.
func (m *Model) showCursor() {
	m.ensureDetail()
	d := &m.detail
	page := m.pageHeight()
	if line := m.lab.cursorLine; line < d.scroll+1 || line >= d.scroll+page-1 {
		d.scrollTo(max(line-page/2, 0), page)
	}
}

func (m *Model) saveLabel(it labels.Item, value int, note string) tea.Cmd {
	l := &m.lab
	h, res, gen, index := m.opts.Labels, l.res, l.gen, m.rows[m.detail.row].index
	return inCommand(func() (labels.Label, error) { return h.SetLabel(res, it, value, note) }, func(stored labels.Label, err error) tea.Cmd {
		switch {
		case err != nil:
			m.setError("the label was not stored: " + err.Error())
			return nil
		case gen != l.gen:
			return nil
		case value < 0:
			delete(l.human, it.Key)
			m.setStatus("label removed")
		default:
			setIn(&l.human, it.Key, stored)
			m.setStatus("label stored: " + m.labelWords(stored, it))
		}
		m.setMark(index, MarkOf(l.items, l.human))
		m.detail.invalidate()
		return nil
	})
}

// noteKey is the note being typed: enter stores it, esc drops it.
func (m *Model) noteKey(msg tea.KeyPressMsg) tea.Cmd {
	l := &m.lab
	if s := msg.String(); s == "enter" || s == "esc" {
		m.mode = modeScreen
		m.detail.invalidate()
		if s == "esc" {
			return nil
		}
		it := l.items[l.cursor]
		return m.saveLabel(it, l.human[it.Key].Value, strings.TrimSpace(l.input.Value()))
	}
	var cmd tea.Cmd
	l.input, cmd = l.input.Update(msg)
	m.detail.invalidate()
	return cmd
}

// labelLine shows the human's label under a judged item, and the cursor.
func (m *Model) labelLine(p *page, task, item string) {
	l := &m.lab
	if l.res != m.detail.res || l.res == nil {
		return
	}
	pos := slices.IndexFunc(l.items, func(it labels.Item) bool { return it.Task == task && it.Text == item })
	if pos < 0 {
		return
	}
	it := l.items[pos]
	lab, labelled := l.human[it.Key]
	picked := pos == l.cursor
	if picked && m.opts.Labels == nil {
		l.cursorLine = len(p.lines) - 1 // the item's own line: no label line to show
		return
	}
	if !labelled && !picked {
		return
	}
	st := m.st
	prefix := "  "
	if picked {
		prefix = "> "
		l.cursorLine = len(p.lines)
	}
	text := "not labelled: a agree, d disagree"
	style := st.muted
	if labelled {
		text, style = m.labelWords(lab, it), st.accent
		if lab.Value != it.Judge {
			style = st.warn
		}
	}
	if picked && m.shownMode() == modeNote {
		p.lines = append(p.lines, "    "+prefix+l.input.View())
		return
	}
	if picked {
		style = style.Bold(true)
	}
	p.text(4, prefix, text, &style)
}

// labelWords says a label against the judge, with the note.
func (m *Model) labelWords(lab labels.Label, it labels.Item) string {
	what := cmp.Or(map[string]string{eval.LabelAnswerRelevancy: "noncommittal", eval.LabelContextRecall: "attributed"}[lab.Task], "verdict")
	s := fmt.Sprintf("human: agrees (%s %d)", what, lab.Value)
	if lab.Value != it.Judge {
		s = fmt.Sprintf("human: %s %d, the judge said %d (disputed)", what, lab.Value, it.Judge)
	}
	if lab.By != "" {
		s += " by " + sanitize.Line(lab.By)
	}
	if lab.Note != "" {
		s += ": " + sanitize.Line(lab.Note)
	}
	return s
}

// labelCell is the table's label column, one cell after the status mark.
func (m *Model) labelCell(r *row, plain bool) string {
	switch mark := m.lab.marks[r.index]; {
	case mark&LabelDisputed != 0:
		return paint(plain, "D", m.st.warn.Render)
	case mark&LabelMarked != 0:
		return paint(plain, "L", m.st.accent.Render)
	}
	return " "
}

// labelWordsFilter are the values of the filter's label: term.
var labelWordsFilter = []string{"any", "disputed", "agreed", "none"}

// matchLabel is the filter's label: term on a sample's mark.
func matchLabel(mark uint8, state string) bool {
	switch state {
	case "any":
		return mark&LabelMarked != 0
	case "disputed":
		return mark&LabelDisputed != 0
	case "agreed":
		return mark&LabelMarked != 0 && mark&LabelDisputed == 0
	}
	return mark == 0
}

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
	return tea.Batch(inCommand(func() (*labels.Agreement, error) { return h.Agreement(run) }, func(a *labels.Agreement, err error) tea.Cmd {
		l.agreeBusy = false
		l.agreement, l.agreeErr = a, err
		return nil
	}), m.loadMarks())
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
		st.muted.Render(m.g.sep+"run "+sanitize.Line(m.runID)+m.g.sep+"positive = value 1"), ""}
	switch {
	case l.agreeBusy && l.agreement == nil:
		return m.finish(append(lines, st.muted.Render("  counting"+m.g.ellipsis)))
	case l.agreeErr != nil:
		return m.finish(append(lines, m.indented("cannot count: "+l.agreeErr.Error(), st.failed)...))
	case l.agreement == nil:
		return m.finish(lines)
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
	lines = append(lines, mapped(metrics[1:], func(row string) string { return fit(row, m.width, m.g.ellipsis) })...)
	lines = append(lines, "")
	for _, n := range append(tab.Notes, "changed: samples whose score moves when the human labels replace the judge's values (ragscope report --with-labels)") {
		lines = append(lines, m.indented(n, st.muted)...)
	}
	return m.finish(lines)
}

// alignColumns lays rows of cells out as a grid, each column as wide as
// its widest cell; the first row is the titles.
func alignColumns(rows [][]string) []string {
	g := grid{cols: mapped(rows[0], func(t string) gridColumn { return gridColumn{title: t} }), rows: rows[1:]}
	widths := g.layout(0, nil)
	out := make([]string, len(rows))
	for i := range out {
		out[i] = g.line(widths, i-1, "") // the titles first
	}
	return out
}
