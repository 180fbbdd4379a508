package tui

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// compareState holds the "before" side of a comparison, of a re-run or
// of two stored runs picked with c; the rows hold the "after".
type compareState struct {
	baseID, curID string
	// picked: leaving it puts back the rows shown before (restore); a
	// re-run's results stay, as the newest run.
	picked  bool
	restore rowsSnapshot
	base    map[int]beforeSide // samples absent have no Δ
	metrics []eval.Metric      // those compared (re-run); none: all
	summary compareSummary
}

// compareSummary is the change of each metric's mean over the samples
// scored on both sides, and how many samples changed.
type compareSummary struct {
	samples, changed int
	sum              [eval.NumMetrics]float64
	n                [eval.NumMetrics]int
}

func (c *compareState) has(mt eval.Metric) bool {
	return len(c.metrics) == 0 || slices.Contains(c.metrics, mt)
}

// beforeSide is a compared sample's "before": the row as it was, and its
// full result when that was in memory. A zero one has no Δ.
type beforeSide struct {
	row *row
	res *eval.Result
}

// before is the "before" of a row, none outside a comparison.
func (m *Model) before(r *row) beforeSide {
	if m.cmp == nil || r == nil {
		return beforeSide{}
	}
	return m.cmp.base[r.index]
}

func (c *compareState) summarize(m *Model) {
	s := compareSummary{}
	for idx, b := range c.base {
		p, ok := m.byIndex.get(idx)
		if !ok || b.row == nil || !m.rows[p].done {
			continue
		}
		before, after := b.row, m.rows[p]
		s.samples++
		changed := false
		for _, mt := range m.metrics {
			if !c.has(mt) {
				continue
			}
			if d := scoreDelta(before, after, mt).kind; d != deltaSame && d != deltaNone {
				changed = true
			}
			b, bok := before.scored(mt)
			a, aok := after.scored(mt)
			if bok && aok {
				slot := metricSlot(mt)
				s.sum[slot] += a - b
				s.n[slot]++
			}
		}
		s.changed += b2i(changed)
	}
	c.summary = s
}

type deltaKind int

const (
	deltaNone   deltaKind = iota // not compared
	deltaSame                    // same score, or unscored on both sides with the same status
	deltaValue                   // both scored, different
	deltaNew                     // scored now, not before
	deltaLost                    // scored before, not now
	deltaStatus                  // unscored on both sides, status changed
)

type delta struct {
	kind deltaKind
	v    float64
}

// scored is a metric's score when its status is ok.
func scored(r *eval.Result, mt eval.Metric) (float64, bool) {
	if r == nil || r.Status[mt] != eval.StatusOK {
		return 0, false
	}
	return r.Score(mt)
}

// scoreDelta is the change of a metric between two rows.
func scoreDelta(before, after *row, mt eval.Metric) delta {
	if before == nil || after == nil || !before.done || !after.done {
		return delta{}
	}
	bst, inB := before.statusOf(mt)
	ast, inA := after.statusOf(mt)
	if !inB && !inA {
		return delta{}
	}
	_, bok := before.scored(mt)
	_, aok := after.scored(mt)
	switch {
	case bok && aok:
		if v, _ := scoredChange(before, after, mt); v != 0 {
			return delta{kind: deltaValue, v: v}
		}
	case aok:
		return delta{kind: deltaNew}
	case bok:
		return delta{kind: deltaLost}
	case bst != ast:
		return delta{kind: deltaStatus}
	}
	return delta{kind: deltaSame}
}

// scoredChange is after minus before for a metric scored on both sides,
// read on the scores as shown: 0.3331 → 0.3334 is 0, and 0.3334 → 0.3338
// (0.333 → 0.334) is never 0 but the shown +0.001.
func scoredChange(before, after *row, mt eval.Metric) (float64, bool) {
	b, bok := before.scored(mt)
	a, aok := after.scored(mt)
	if !bok || !aok {
		return 0, false
	}
	rb, ra := shownScore(b), shownScore(a)
	switch {
	case ra == rb:
		return 0, true
	case math.Abs(a-b) < scoreEpsilon:
		return ra - rb, true
	}
	return a - b, true
}

// shownScore is a score rounded as fmtScore prints it.
func shownScore(v float64) float64 {
	r, _ := strconv.ParseFloat(fmtScore(v), 64)
	return r
}

// deltaScore is the number the Δ sort and the Δ filter read: none unless
// the metric is scored on both sides.
func (m *Model) deltaScore(r *row, slot int) (float64, bool) {
	if m.cmp == nil || slot < 0 || slot >= len(eval.AllMetrics) || !m.cmp.has(eval.AllMetrics[slot]) {
		return 0, false
	}
	return scoredChange(m.before(r).row, r, eval.AllMetrics[slot])
}

// matchEnv is what the filter reads besides the rows.
func (m *Model) matchEnv() matchEnv {
	env := matchEnv{metrics: m.metrics, crit: m.st.crit, marks: m.lab.marks, whole: m.matchWhole}
	if m.cmp != nil {
		env.delta = m.deltaScore
	}
	return env
}

// syncSortKeys fits the sort cycle to the columns drawn (each compared
// metric's Δ after it), keeping the column sorted by or its metric.
func (m *Model) syncSortKeys() {
	cur := m.sortKeys[m.sortIdx]
	keys := []sortKey{}
	for _, k := range sortKeys(m.columns, m.slotOf) {
		keys = append(keys, k)
		if m.cmp != nil && k.metric != "" && m.cmp.has(k.metric) && !m.isCriterion(k.metric) {
			keys = append(keys, sortKey{name: "change of " + string(k.metric), slot: k.slot, metric: k.metric,
				delta: func(r *row) (float64, bool) { return m.deltaScore(r, k.slot) }})
		}
	}
	m.sortKeys, m.sortIdx = keys, 0
	for i, k := range keys {
		if k.slot == cur.slot && (k.delta != nil) == (cur.delta != nil) {
			m.sortIdx = i
			break
		}
		if k.slot == cur.slot && k.delta == nil {
			m.sortIdx = i // the metric of a Δ column that went away
		}
	}
	m.dropSorted()
}

// setCompare starts or ends a comparison, counted afresh; a filter on the
// change goes with it.
func (m *Model) setCompare(c *compareState) {
	if c != nil {
		c.summarize(m)
	}
	m.cmp = c
	m.syncSortKeys()
	if _, ok := m.filter.needsComparison(); ok && c == nil {
		m.filter = nil
		m.input.SetValue("")
		m.setStatus("the filter on the change was cleared with the comparison")
	}
	m.dirty = true
	m.derive()
	m.detail.invalidate()
}

// rowDelta is the change of a row's metric, none outside the comparison.
func (m *Model) rowDelta(r *row, mt eval.Metric) delta {
	if m.cmp == nil || !m.cmp.has(mt) {
		return delta{}
	}
	return scoreDelta(m.before(r).row, r, mt)
}

// deltaW fits "+0.333" and "-1.000".
const deltaW = 6

func (m *Model) deltaCell(r *row, mt eval.Metric, plain bool) string {
	st := m.st
	d := m.rowDelta(r, mt)
	if d.kind == deltaNone {
		return strings.Repeat(" ", deltaW)
	}
	words := [...]string{deltaSame: ".", deltaNew: "new", deltaLost: "lost", deltaStatus: "status"}
	styles := [...]lipgloss.Style{deltaSame: st.muted, deltaNew: st.high, deltaLost: st.low, deltaStatus: st.warn}
	s, style := words[d.kind], styles[d.kind]
	if d.kind == deltaValue {
		s, style = fmt.Sprintf("%+.3f", d.v), st.changeStyle(mt, d.v)
	}
	return paint(plain, padLeft(s, deltaW), style.Render)
}

// compareLine is the header line of a re-run in progress or of a comparison.
func (m *Model) compareLine() string {
	st, g := m.st, m.g
	if rr := m.rerun; rr != nil {
		if !rr.started {
			return st.running.Render("re-run: starting" + g.ellipsis)
		}
		p := rr.progress
		bar, errs := m.progressBar(p.done, p.total, 10), m.errorsText(p.errors)
		return strings.Join([]string{
			st.accent.Render("re-run " + sanitize.Line(rr.id)),
			fmt.Sprintf("%s %d/%d", bar, p.done, p.total),
			fmt.Sprintf("in flight %d", p.inFlight),
			fmt.Sprintf("sent %d", p.sent()),
			fmt.Sprintf("cached %d", p.cacheHits),
			errs,
			"tokens " + fmtCount(p.tokens),
		}, "  ")
	}
	c := m.cmp
	if c == nil {
		return ""
	}
	parts := []string{st.accent.Render(fmt.Sprintf("compare %s %s %s", runName(c.baseID), g.arrow, runName(c.curID))),
		fmt.Sprintf("%d compared, %d changed", c.summary.samples, c.summary.changed)}
	var means []string
	for _, mt := range m.metrics {
		slot := metricSlot(mt)
		if !c.has(mt) || c.summary.n[slot] == 0 {
			continue
		}
		if d := c.summary.sum[slot] / float64(c.summary.n[slot]); math.Abs(d) < scoreEpsilon {
			means = append(means, eval.MetricAbbrev(mt)+" .")
		} else {
			means = append(means, st.changeStyle(mt, d).Render(fmt.Sprintf("%s %+.3f", eval.MetricAbbrev(mt), d)))
		}
	}
	if len(means) > 0 {
		parts = append(parts, "mean "+g.delta+" "+strings.Join(means, " "))
	}
	return strings.Join(parts, "  ")
}

func runName(id string) string {
	if id == "" {
		return "(this run)"
	}
	return sanitize.Line(id)
}

// leaveCompare drops the Δ; a picked comparison also puts back the rows
// shown before it.
func (m *Model) leaveCompare() {
	c := m.cmp
	keep := cursorIndex(m)
	if c.picked {
		m.restoreRows(c.restore)
	}
	m.setStatus("comparison closed")
	m.setCompare(nil)
	m.keepCursorOn(keep)
}

// enterCompare shows cur's results (base's where cur has none) against base.
func (m *Model) enterCompare(baseID string, base []*eval.Result, curID string, cur []*eval.Result) {
	restore := m.snapshot()
	if m.cmp != nil && m.cmp.picked {
		restore = m.cmp.restore
	}
	c := &compareState{baseID: baseID, curID: curID, picked: true, restore: restore, base: map[int]beforeSide{}}
	// Each sample once, where it first comes, as cur has it if cur has it.
	var shown []*eval.Result
	at, baseOf := map[int]int{}, map[int]*eval.Result{}
	for i, r := range slices.Concat(base, cur) {
		switch {
		case r == nil:
			continue
		case i < len(base):
			baseOf[r.Index] = r
		case baseOf[r.Index] != nil:
			b := baseOf[r.Index]
			c.base[r.Index] = beforeSide{row: newRow(b.Index, b, m.st.levels), res: b}
		}
		if k, ok := at[r.Index]; ok {
			shown[k] = r
		} else {
			at[r.Index] = len(shown)
			shown = append(shown, r)
		}
	}
	keep := cursorIndex(m)
	m.resetRows(shown)
	m.setCompare(c)
	m.keepCursorOn(keep)
}

// rowsSnapshot is what leaving a picked comparison puts back.
type rowsSnapshot struct {
	rows   []*row
	extras rowExtras
	full   results
}

// snapshot is the finished rows, with their results and failure messages.
func (m *Model) snapshot() rowsSnapshot {
	out := rowsSnapshot{rows: make([]*row, 0, len(m.rows)), extras: rowExtras{errs: m.extras.errs}, full: m.full}
	for _, r := range m.rows {
		if r.done {
			out.rows = append(out.rows, r)
		}
	}
	return out
}

// restoreRows puts a snapshot back.
func (m *Model) restoreRows(s rowsSnapshot) {
	m.rows, m.running = s.rows, 0
	m.byIndex.reset(len(s.rows))
	for i, r := range s.rows {
		m.byIndex.set(r.index, i)
	}
	m.full, m.extras = s.full, s.extras
	m.rowsReset()
}

// resetRows shows another run's results, all held in memory (pinned):
// Load reads the run opened, not these.
func (m *Model) resetRows(results []*eval.Result) {
	m.rows, m.running = nil, 0
	m.byIndex.reset(0)
	m.full.reset()
	m.extras = rowExtras{}
	for _, r := range results {
		m.upsert(r.Index, r)
		m.full.put(r.Index, r, true)
	}
	m.rowsReset()
}

// rowsReset follows replaced rows; the caller derives.
func (m *Model) rowsReset() {
	m.progress.total = max(m.progress.total, len(m.rows))
	m.progress.done = len(m.rows) - m.running
	m.dropSorted()
	m.dirty, m.shown, m.lines = true, nil, nil
}

func cursorIndex(m *Model) int {
	if p, ok := m.cursorRow(); ok {
		return m.rows[p].index
	}
	return -1
}

func (m *Model) keepCursorOn(index int) {
	if pos := slices.IndexFunc(m.lines, func(p int32) bool { return p >= 0 && m.rows[p].index == index }); pos >= 0 {
		m.cursor = pos
	}
	m.clampTable()
}
