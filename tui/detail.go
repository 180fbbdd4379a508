package tui

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/labels"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// detailView is the drill-down into one sample: one page of lines,
// built once per (result, width, picked statement) and then only scrolled.
type detailView struct {
	row      int // position in Model.rows
	res      *eval.Result
	scrolled     // its sections are the metrics', in metric order
	width    int // the width the lines were built for
	// pick is the statement citing evidence that the item cursor is on,
	// in page order, 1-based (0: none); setting it invalidates the lines.
	pick  int
	focus eval.Metric  // the metric r re-runs alone; "" for all
	base  *eval.Result // compared against when it was built
}

func (d *detailView) invalidate() { d.lines = nil }

// scrollTo puts line at the top of the page, as far as the page scrolls.
func (d *detailView) scrollTo(line, page int) {
	d.scroll = 0
	d.scrollBy(line, page)
}

// pageHeight is the scrollable area of the detail and raw pages.
func (m *Model) pageHeight() int { return max(m.height-2-len(m.bottomLines()), 1) }

// openDetail shows a row's page, its result read when not in memory.
func (m *Model) openDetail(rowPos int) tea.Cmd {
	m.screen = screenDetail
	m.detail = detailView{row: rowPos}
	r := m.rows[rowPos]
	// Its result stays when newer ones come.
	m.full.held = r.index + 1
	m.lab.res = nil // its labels are read afresh
	return tea.Batch(m.loadCmd(r, nil), m.labelsFollow())
}

// detailResult is what the page of a row is built from: the full result
// (nil while it is read), or a running sample's texts.
func (m *Model) detailResult(r *row) *eval.Result {
	if !r.done {
		return m.extras.known[r.index]
	}
	return m.result(r)
}

func (m *Model) ensureDetail() {
	d := &m.detail
	r := m.rows[d.row]
	base := m.before(r).res
	res := m.detailResult(r)
	if d.lines == nil || d.width != m.width || d.res != res || d.base != base {
		if d.res != res {
			d.pick = 0
		}
		d.width, d.res, d.base = m.width, res, base
		d.lines, d.sections = m.buildDetail(r, res)
	}
	d.scrollBy(0, m.pageHeight())
}

func (m *Model) detailKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	m.ensureDetail()
	d := &m.detail
	page := m.pageHeight()
	if k.scroll(msg, d.scrollBy, page, len(d.lines)) {
		return nil
	}
	if cmd, ok := m.labelKey(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, k.Back):
		m.screen = screenTable
	case key.Matches(msg, k.Section):
		// The keys number the metrics (criteria are reached with tab);
		// the one jumped to is the one r re-runs.
		if i := metricKeyIndex(msg); i < len(m.metrics) {
			m.toSection(i, page)
		}
	case key.Matches(msg, k.Rerun):
		return m.rerunSample()
	case key.Matches(msg, k.DetailPrompts):
		return m.openPrompts()
	case key.Matches(msg, k.NextSection):
		if len(d.sections) > 0 { // past the last: the first
			m.toSection(max(slices.IndexFunc(d.sections, func(s int) bool { return s > d.scroll }), 0), page)
		}
	case key.Matches(msg, k.PrevSection):
		if above := count(d.sections, func(s int) bool { return s < d.scroll }); above > 0 {
			m.toSection(above-1, page)
		} else {
			d.scrollTo(0, page) // above the sections: r re-runs them all
			d.focus = ""
		}
	case key.Matches(msg, k.NextSample):
		return m.stepSample(1)
	case key.Matches(msg, k.PrevSample):
		return m.stepSample(-1)
	case key.Matches(msg, k.Raw):
		return m.openRaw()
	}
	return nil
}

// toSection scrolls to section i, once the page has it, and focuses its
// metric or criterion.
func (m *Model) toSection(i, page int) {
	d := &m.detail
	if i < len(d.sections) {
		d.scrollTo(d.sections[i], page)
	}
	if i < len(m.columns) {
		d.focus = m.columns[i]
	}
}

// stepSample moves the detail page, and the table cursor, to the next row.
func (m *Model) stepSample(d int) tea.Cmd {
	pos := slices.Index(m.lines, int32(m.detail.row))
	if pos < 0 {
		return nil
	}
	next := pos + d // over a conversation's line: turn to turn
	for next >= 0 && next < len(m.lines) && m.lines[next] < 0 {
		next += d
	}
	if next < 0 || next >= len(m.lines) {
		return nil
	}
	m.cursor = next
	m.clampTable()
	return m.openDetail(int(m.lines[next]))
}

func (m *Model) renderDetail() []string {
	m.ensureDetail()
	d := &m.detail
	r := m.rows[d.row]
	page := m.pageHeight()
	title := m.st.title.Render("ragscope") + " " + m.st.bold.Render(fmt.Sprintf("sample %d", r.index))
	if id := r.id(); id != "" {
		title += m.st.muted.Render(" (id " + sanitize.Line(id) + ")")
	}
	if !r.done {
		title += m.st.running.Render(m.g.sep + "evaluating" + m.g.ellipsis)
	}
	if d := r.diagnosis(); d != "" {
		what := string(d)
		if res := m.detailResult(r); d == report.DiagCriterion && res != nil {
			what += " " + strings.Join(m.failingCriteria(res), ", ")
		}
		title += m.g.sep + m.diagStyle(d)(sanitize.Line(what))
	}
	if d.focus != "" && m.opts.Host != nil {
		title += m.st.muted.Render(m.g.sep + "r re-runs " + string(d.focus))
	}
	if len(d.lines) > page {
		title += m.st.muted.Render(fmt.Sprintf("%s%d%%", m.g.sep, 100*min(d.scroll+page, len(d.lines))/len(d.lines)))
	}
	return m.finish(append([]string{title}, d.view(page)...))
}

// page accumulates the wrapped lines of the detail page.
type page struct {
	m     *Model
	w     int
	lines []string
	// stmts counts the statements with evidence drawn so far; pick is the
	// one selected (0-based, -1 none), its evidence cited.
	stmts int
	pick  int
	cited *eval.Citation
}

func (p *page) blank() { p.lines = append(p.lines, "") }

// note draws lead and s muted under indent, when there is an s.
func (p *page) note(indent int, lead, s string) {
	if s != "" {
		p.text(indent, "", lead+s, &p.m.st.muted)
	}
}

func (p *page) heading(s string) {
	p.lines = append(p.lines, p.m.st.section.Render(s))
}

// text wraps s under indent, the lines after a first line's prefix.
func (p *page) text(indent int, prefix, s string, style *lipgloss.Style) {
	p.wrapped(indent, prefix, s, style, nil)
}

// wrapped is text with a hook that may restyle the wrapped lines.
func (p *page) wrapped(indent int, prefix, s string, style *lipgloss.Style, mark func([]string) []string) {
	pw := lipgloss.Width(prefix)
	width := max(p.w-indent-pw, 10)
	pad := strings.Repeat(" ", indent)
	lines := wrap(s, width)
	if mark != nil {
		lines = mark(lines)
	}
	lead := pad + prefix // the lines after the first hang under it
	for _, l := range lines {
		if style != nil {
			l = style.Render(l)
		}
		p.lines = append(p.lines, lead+l)
		lead = pad + strings.Repeat(" ", pw)
	}
}

func (m *Model) buildDetail(r *row, res *eval.Result) ([]string, []int) {
	p := &page{m: m, w: m.width, pick: m.detail.pick - 1}
	st := m.st
	if res == nil {
		msg, style := "loading"+m.g.ellipsis, st.muted
		switch {
		case !r.done:
			msg = "This sample is still being evaluated; the page fills in when it finishes."
		case m.loading.index == r.index && m.loading.err != nil:
			msg, style = "cannot read this sample from the store: "+m.loading.err.Error(), st.failed
		case m.opts.Load == nil:
			msg, style = "the full result of this sample is not in memory", st.failed
		}
		p.text(2, "", msg, &style)
		return p.lines, nil
	}
	if cs := citations(m.metrics, res); p.pick >= 0 && p.pick < len(cs) {
		p.cited = cs[p.pick].ev
	}
	m.sampleTexts(p, res)
	if n := len(res.Calls); n > 0 && r.done {
		cached := count(res.Calls, func(c eval.CallRecord) bool { return c.Cached })
		p.blank()
		p.text(0, "", fmt.Sprintf("%d judge calls (%d from the cache); x shows them raw", n, cached), &st.muted)
	}
	base := m.before(r).res
	if base != nil {
		p.blank()
		p.text(0, "", fmt.Sprintf("compared: %s %s %s; each metric shows before %s after and what the judge decided differently",
			runName(m.cmp.baseID), m.g.arrow, runName(m.cmp.curID), m.g.arrow), &st.accent)
	}
	var sections []int
	for i, mt := range m.columns {
		p.blank()
		sections = append(sections, len(p.lines))
		if !r.done { // a running sample's texts: its sections wait for it
			p.heading(m.sectionTitle(i, mt))
			p.text(2, "", "evaluating"+m.g.ellipsis+" the score and the judge's reasons appear when the sample finishes", &st.running)
			continue
		}
		var before *eval.Result // what the section compares with, if anything
		if base != nil && m.cmp.has(mt) && !m.isCriterion(mt) {
			before = base
		}
		m.metricHeading(p, i+1, before, res, mt)
		status, ok := res.Status[mt]
		if !ok {
			p.text(2, "", "not evaluated in this run (not in --metrics)", &st.muted)
			continue
		}
		if status != eval.StatusOK {
			msg := statusMessage(res, mt)
			style := st.warn
			switch {
			case status.Failed():
				style = st.failed
			case status == eval.StatusUnsupported:
				// The judge's limit, not this sample's: the reason, muted.
				style = st.muted
			}
			p.text(2, "", msg, &style)
		}
		// What the judge decided differently, above the trace now.
		if sec, ok := metricSections[mt]; ok && before != nil && sec.changes(m, p, before, res) > 0 {
			p.text(2, "", "now:", &st.muted)
		}
		if m.isCriterion(mt) {
			m.criterionSection(p, res, mt)
		} else if sec, ok := metricSections[mt]; ok {
			sec.render(m, p, res)
		}
	}
	if r.done {
		m.failuresSection(p, res)
	}
	return p.lines, sections
}

// sampleTexts is the top of the page: the sample as it was given.
func (m *Model) sampleTexts(p *page, res *eval.Result) {
	st := m.st
	m.conversationTexts(p, res)
	p.heading("Question")
	p.text(2, "", res.Question, nil)
	m.standaloneText(p, res)
	p.blank()
	p.heading("Answer")
	p.text(2, "", res.Answer, nil)
	p.blank()
	heading := st.section.Render(fmt.Sprintf("Retrieved chunks (%d)", len(res.Contexts)))
	hl := -1
	var from, to int
	if p.pick >= 0 {
		// On the heading line: picking a statement never moves the page.
		note, style := m.citedNote(p.pick, p.cited, res.Contexts)
		heading += style.Render(m.g.sep + note)
		if k, start, end, ok := p.cited.Locate(res.Contexts); ok {
			hl, from, to = k, start, end
		}
	}
	p.lines = append(p.lines, heading)
	if len(res.Contexts) == 0 {
		p.text(2, "", "none", &st.muted)
	}
	for i, c := range res.Contexts {
		var mark func([]string) []string
		if i == hl {
			mark = func(lines []string) []string { return markQuote(lines, c, []span{{from, to}}, st.selected) }
		}
		p.wrapped(2, fmt.Sprintf("[%d] ", i+1), c, nil, mark)
	}
	if res.Reference != "" {
		p.blank()
		p.heading("Reference")
		p.text(2, "", res.Reference, nil)
	}
}

// metricHeading is a section's heading with its score; compared with
// before (nil: not), before -> after and the change.
func (m *Model) metricHeading(p *page, n int, before, res *eval.Result, mt eval.Metric) {
	st := m.st
	h, lead := st.section.Render(m.sectionTitle(n-1, mt)), "  "
	if before != nil {
		lead += scoreText(before, mt) + " " + m.g.arrow + " "
	}
	if v, ok := scored(res, mt); ok {
		h += lead + st.bandOf(mt, v).Bold(true).Render(fmt.Sprintf("%.3f", v))
	} else if before != nil {
		h += lead + scoreText(res, mt)
	}
	if before != nil {
		d := scoreDelta(newRow(before.Index, before, st.levels), newRow(res.Index, res, st.levels), mt)
		switch d.kind {
		case deltaValue:
			h += "  " + st.changeStyle(mt, d.v).Render(fmt.Sprintf("(%+.3f)", d.v))
		case deltaSame:
			h += "  " + st.muted.Render("(unchanged)")
		}
	}
	if m.isCriterion(mt) {
		h += st.muted.Render(fmt.Sprintf("  (passes at %g)", m.st.crit.level(mt)))
	}
	p.lines = append(p.lines, h)
}

func (m *Model) verdictMark(v int) string {
	if v == 1 {
		return m.st.high.Render(m.g.ok) + " "
	}
	return m.st.emph.Render(m.g.unsupported) + " "
}

// verdictLine draws a judged text after lead, its mark and its class, yes
// or no; one judged 0 is emphasised, as it lowers the score.
func (m *Model) verdictLine(p *page, indent int, lead string, v int, yes, no, text string) {
	if v == 1 {
		p.text(indent, lead+m.verdictMark(1)+yes, text, nil)
		return
	}
	no = paint(no == "", no, m.st.emph.Render)
	p.text(indent, lead+m.verdictMark(0)+no, text, &m.st.emph)
}

// judgedLine shows one judged statement, the judge's reason and the
// evidence it cited; the one under the item cursor has a > before it.
func (m *Model) judgedLine(p *page, verdict int, statement, reason string, ev *eval.Citation) {
	lead := "  "
	if p.stmts == p.pick {
		lead = "> "
	}
	m.verdictLine(p, 0, lead, verdict, "", "", statement)
	p.note(4, "", reason)
	m.evidenceLines(p, ev)
	p.stmts++
}

// evidenceLines show the chunk and quote a verdict cites, and its flag.
func (m *Model) evidenceLines(p *page, ev *eval.Citation) {
	st := m.st
	text, cites := ev.Describe()
	if !cites {
		p.text(4, "", text, &st.muted)
		return
	}
	p.text(4, "evidence ", text, &st.muted)
	if ev.Flagged() {
		p.text(4, m.g.warn+" ", ev.Flag, &st.warn)
	}
}

// citedNote says, on the chunks' heading, what the picked statement cites.
func (m *Model) citedNote(pick int, ev *eval.Citation, contexts []string) (string, lipgloss.Style) {
	st := m.st
	what := fmt.Sprintf("statement %d", pick+1)
	switch {
	case ev == nil:
		return what + ": no evidence given", st.muted
	case ev.Flagged():
		return what + ": " + ev.Flag, st.warn
	case ev.Quote == "":
		return what + ": no quote", st.muted
	}
	if k, _, _, ok := ev.Locate(contexts); ok {
		return fmt.Sprintf("%s: quote in [%d]", what, k+1), st.accent
	}
	return what + ": " + eval.QuoteNotFoundFlag(ev.Chunk), st.warn
}

// citation is a statement that cites evidence: its task and position
// among the task's items.
type citation struct {
	task string
	pos  int
	ev   *eval.Citation
}

// citations are the statements that cite evidence, in page order.
func citations(metrics []eval.Metric, res *eval.Result) []citation {
	var out []citation
	for _, mt := range metrics {
		sec := metricSections[mt]
		if _, ok := res.Status[mt]; !ok || sec.cited == nil {
			continue
		}
		for i, it := range sec.cited(res) {
			out = append(out, citation{sec.task, i, it.evidence})
		}
	}
	return out
}

// citationOf is the position among citations of a judged item, or -1.
func citationOf(metrics []eval.Metric, res *eval.Result, it labels.Item) int {
	return slices.IndexFunc(citations(metrics, res), func(c citation) bool { return c.task == it.Task && c.pos == it.Pos })
}

func (m *Model) faithfulnessSection(p *page, res *eval.Result) {
	if t := res.Faithfulness; t != nil {
		m.statementSection(p, res, eval.Faithfulness, eval.LabelFaithfulness, faithItems(res))
		m.lookBackLines(p, t)
	}
}

// statementSection draws each statement with its verdict, reason, evidence
// and label, the judge's reasoning, then the count.
func (m *Model) statementSection(p *page, res *eval.Result, mt eval.Metric, task string, items []judged) {
	for _, it := range items {
		m.judgedLine(p, it.verdict, it.text, it.reason, it.evidence)
		m.labelLine(p, task, it.text)
	}
	p.note(4, "judge's reasoning (x shows all of it): ", res.Reasoning(task))
	m.formulaLines(p, res, mt, &m.st.bold)
}

// formulaLines draws how res's score of mt came about in bold, the lines
// after the first in rest.
func (m *Model) formulaLines(p *page, res *eval.Result, mt eval.Metric, rest *lipgloss.Style) {
	style := &m.st.bold
	for _, l := range eval.Def(mt).Formula(res) {
		p.text(2, "", l, style)
		style = rest
	}
}

// correctnessSection lists the judge's TP, FP and FN with their reasons,
// then the formula.
func (m *Model) correctnessSection(p *page, res *eval.Result) {
	t := res.AnswerCorrectness
	st := m.st
	if t == nil {
		return
	}
	for _, l := range t.Classes.Lists() {
		p.text(2, "", fmt.Sprintf("%s (%d)", l.Title, len(l.Items)), &st.accent)
		m.claimLines(p, mapped(l.Items, func(it eval.CorrectnessItem) judged {
			return judged{text: it.Statement, verdict: l.Verdict, reason: it.Reason}
		}), "", "")
	}
	if res.Status[eval.AnswerCorrectness] != eval.StatusOK {
		p.text(2, "", fmt.Sprintf("%d answer statements, %d reference statements", len(t.AnswerStatements), len(t.ReferenceStatements)), &st.muted)
	}
	m.formulaLines(p, res, eval.AnswerCorrectness, &st.bold)
}

func (m *Model) relevancySection(p *page, res *eval.Result) {
	t := res.AnswerRelevancy
	st := m.st
	if t == nil {
		return
	}
	if t.Mode == eval.AnswerSimilarityMode {
		m.formulaLines(p, res, eval.AnswerRelevancy, nil)
		if t.NoncommittalHint != "" {
			note := fmt.Sprintf("noncommittal answer (%q)", t.NoncommittalHint)
			if _, scored := res.Score(eval.AnswerRelevancy); scored {
				note += ": score zeroed"
			}
			p.text(2, "", note, &st.emph)
		}
		return
	}
	cw := scoreW // "-0.257" widens the cosines of every question
	if slices.ContainsFunc(t.Questions, func(q eval.GeneratedQuestion) bool { return fmtScore(q.Cosine)[0] == '-' }) {
		cw = negScoreW
	}
	for _, q := range t.Questions {
		flag := ""
		if q.Noncommittal == 1 {
			flag = "  [noncommittal]"
		}
		prefix := fmt.Sprintf("%s %s ", padLeft(fmtScore(q.Cosine), cw), m.cosineBar(q.Cosine))
		p.text(2, prefix, q.Question+flag, nil)
		m.labelLine(p, eval.LabelAnswerRelevancy, q.Question)
	}
	// The page explains, emphasised, whichever zeroing rule the engine applied.
	m.formulaLines(p, res, eval.AnswerRelevancy, &st.emph)
}

// cosineBar draws a cosine in ten cells; negative cosines draw empty.
func (m *Model) cosineBar(c float64) string {
	n := int(math.Round(min(max(c, 0), 1) * 10))
	return m.st.band(c).Render(strings.Repeat(m.g.bar, n)) + strings.Repeat(" ", 10-n)
}

// precisionSection shows the chunk verdicts of context precision, or of
// context utilization (what: " for the answer").
func (m *Model) precisionSection(p *page, t *eval.ContextPrecisionTrace, task, what string) {
	if t == nil {
		return
	}
	for i, c := range t.Chunks {
		verdict := verdictWord(c.Verdict, "useful", "not useful") + what
		prefix := fmt.Sprintf("[%d] %s", c.Rank, m.verdictMark(c.Verdict))
		pk := ""
		if i < len(t.Precisions) {
			pk = fmt.Sprintf("  (precision@%d = %.3f)", c.Rank, t.Precisions[i])
		}
		p.text(2, prefix, verdict+pk, nil)
		p.note(6, "", c.Reason)
		p.note(6, "judge's reasoning (x shows all of it): ", c.Reasoning)
		m.labelLine(p, task, fmt.Sprintf("%d", c.Rank))
	}
}

func (m *Model) recallSection(p *page, res *eval.Result) {
	if res.ContextRecall != nil {
		m.statementSection(p, res, eval.ContextRecall, eval.LabelContextRecall, recallItems(res))
	}
}

// statusMessage is a metric's status with the judge's error, if any.
func statusMessage(res *eval.Result, mt eval.Metric) string {
	msg := string(res.Status[mt])
	if e := res.Errors[mt]; e != "" {
		msg += ": " + e
	}
	return msg
}

// unshown are the names res is scored under that have no column, sorted
// (criteria the interface was not told of).
func unshown(res *eval.Result, columns []eval.Metric) []eval.Metric {
	var out []eval.Metric
	for mt := range res.Status {
		if !slices.Contains(columns, mt) && !slices.Contains(eval.AllMetrics, mt) {
			out = append(out, mt)
		}
	}
	slices.Sort(out)
	return out
}

// failuresSection repeats in one place every metric that did not score:
// what the input makes undefined ("Not computable"), then failures and
// failed calls; unsupported is left to its section.
func (m *Model) failuresSection(p *page, res *eval.Result) {
	st := m.st
	var failed, na [][2]string
	for _, mt := range slices.Concat(m.columns, unshown(res, m.columns)) {
		status, ok := res.Status[mt]
		if !ok || status == eval.StatusOK || status == eval.StatusUnsupported {
			continue
		}
		line := [2]string{string(mt), statusMessage(res, mt)}
		if status.Failed() {
			failed = append(failed, line)
		} else {
			na = append(na, line)
		}
	}
	for _, c := range res.Calls {
		if c.Error != "" {
			failed = append(failed, [2]string{"call " + sanitize.Line(c.Task), c.Error})
		}
	}
	section := func(heading string, lines [][2]string, style *lipgloss.Style) {
		if len(lines) == 0 {
			return
		}
		p.blank()
		p.heading(heading)
		for _, l := range lines {
			p.text(2, l[0]+": ", l[1], style)
		}
	}
	section("Not computable", na, &st.muted)
	section("Failures", failed, &st.failed)
}

// span is a range of bytes of a text: a quote in a chunk, a match in an
// answer.
type span struct{ from, to int }

// markQuote styles the spans of text (byte offsets) on its wrapped lines,
// found by counting the grapheme clusters wrap keeps (it only adds or
// drops spaces). A span whose counts disagree is left unmarked rather
// than marked wrongly. (The viewport's SetHighlights marks the wrong cells
// after a styled one.)
func markQuote(lines []string, text string, spans []span, style lipgloss.Style) []string {
	shown := func(s string) string { return sanitize.Text(strings.ReplaceAll(s, "\r\n", "\n")) }
	total := printedClusters(shown(text))
	var marked []span // in clusters of the sanitised text
	for _, sp := range spans {
		if sp.from < 0 || sp.to > len(text) || sp.from >= sp.to {
			continue
		}
		skip, n := printedClusters(shown(text[:sp.from])), printedClusters(shown(text[sp.from:sp.to]))
		if n > 0 && skip+n+printedClusters(shown(text[sp.to:])) == total {
			marked = append(marked, span{skip, skip + n})
		}
	}
	if len(marked) == 0 {
		return lines
	}
	in := func(k int) bool {
		return slices.ContainsFunc(marked, func(sp span) bool { return k >= sp.from && k < sp.to })
	}
	out := slices.Clone(lines)
	seen := 0
	for i, l := range out {
		// A run of marked clusters spans c0 to c1, blanks included.
		var ranges []lipgloss.Range
		col, c0, c1 := 0, -1, -1
		state := -1
		for rest := l; rest != ""; {
			var cl string
			cl, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
			w := ansi.StringWidth(cl)
			if !blankCluster(cl) {
				switch {
				case in(seen):
					if c0 < 0 {
						c0 = col
					}
					c1 = col + w
				case c0 >= 0:
					ranges = append(ranges, lipgloss.NewRange(c0, c1, style))
					c0 = -1
				}
				seen++
			}
			col += w
		}
		if c0 >= 0 {
			ranges = append(ranges, lipgloss.NewRange(c0, c1, style))
		}
		if len(ranges) > 0 {
			out[i] = lipgloss.StyleRanges(l, ranges...)
		}
	}
	return out
}

// printedClusters counts the grapheme clusters of s that wrap keeps as they
// are: all but spaces, tabs (wrap expands them) and line ends (it splits there).
func printedClusters(s string) int {
	n, state := 0, -1
	for s != "" {
		var cl string
		cl, s, _, state = uniseg.FirstGraphemeClusterInString(s, state)
		if !blankCluster(cl) {
			n++
		}
	}
	return n
}

func blankCluster(cl string) bool { return cl == " " || cl == "\t" || cl == "\n" }
