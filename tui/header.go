package tui

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// compact is the layout for short terminals: the per-metric block folds
// into one line.
func (m *Model) compact() bool { return m.height < 22 }

// headerLines renders the run header: what is evaluated, progress, the
// per-metric aggregates and the diagnosis counts of the rows shown.
func (m *Model) headerLines() []string {
	st, g := m.st, m.g
	lines := []string{m.titleLine()}
	if m.opts.Banner != "" {
		lines = append(lines, st.muted.Render(truncate(sanitize.Line(m.opts.Banner), m.width, g.ellipsis)))
	}
	if m.notice != "" {
		lines = append(lines, st.warn.Render(truncate(sanitize.Line(m.notice), m.width, g.ellipsis)))
	}
	lines = append(lines, m.progressLine())
	if m.limit != "" {
		lines = append(lines, st.warn.Render(truncate(m.limit, m.width, g.ellipsis)))
	}
	if m.watchMode() {
		lines = append(lines, m.watchLines()...)
	}
	if l := m.compareLine(); l != "" {
		lines = append(lines, truncate(l, m.width, g.ellipsis))
	}

	if m.compact() {
		b := mapped(m.metrics, func(mt eval.Metric) string {
			ms := m.stats.metrics[metricSlot(mt)]
			return fmt.Sprintf("%s %s %d/%d", eval.MetricAbbrev(mt), m.meanText(mt, ms), ms.scored, ms.failed)
		})
		lines = append(lines, strings.Join(b, "  ")+st.muted.Render("  (scored/failed)"))
	} else {
		// The default names' width; a longer one widens it.
		nameW := widest(m.metrics, 18, func(mt eval.Metric) int { return len(mt) })
		for _, mt := range m.metrics {
			ms := m.stats.metrics[metricSlot(mt)]
			line := fmt.Sprintf("%-*s mean %s  scored %-5d n/a %-4d failed %-5d ",
				nameW, string(mt), m.meanText(mt, ms), ms.scored, ms.na, ms.failed)
			if m.watchMode() {
				line += m.trendCell(mt, m.width-lipgloss.Width(line))
			} else {
				line += m.histogram(mt, ms)
			}
			lines = append(lines, line)
		}
	}
	lines = append(lines, m.withPosition(m.diagLine))
	if m.stats.topErrN > 0 && !m.compact() {
		lines = append(lines, st.warn.Render(truncate(fmt.Sprintf("most frequent failure (%d%s): %s",
			m.stats.topErrN, "x", sanitize.Line(m.stats.topErr)), m.width, g.ellipsis)))
	}
	return append(lines, m.filterLines()...)
}

// titleLine names the dataset, the sample count, the judge and the clock;
// when narrow the path becomes its base name, then "ragscope" goes.
func (m *Model) titleLine() string {
	st, g := m.st, m.g
	judge := "judge " + sanitize.Line(cmp.Or(m.opts.Judge.Name, m.opts.Judge.Model, "unknown"))
	samples := fmt.Sprintf("%d samples", m.progress.total)
	if m.opts.Skipped > 0 {
		samples += fmt.Sprintf(" (%d invalid skipped)", m.opts.Skipped)
	}
	rest := append([]string{samples, judge}, m.clockParts()...)
	tail := st.muted.Render(g.sep) + strings.Join(rest, st.muted.Render(g.sep))
	ds, base := sanitize.Line(m.opts.Dataset), sanitize.Line(filepath.Base(m.opts.Dataset))
	if m.opts.Dataset == "" {
		ds, base = "(no dataset)", "(no dataset)"
	}
	candidates := []string{
		st.title.Render("ragscope") + " " + st.bold.Render(ds),
		st.title.Render("ragscope") + " " + st.bold.Render(base),
		st.bold.Render(base),
	}
	for _, c := range candidates {
		if lipgloss.Width(c+tail) <= m.width {
			return c + tail
		}
	}
	return truncate(candidates[len(candidates)-1]+tail, m.width, g.ellipsis)
}

// clockReading is the clock as the last second's tick read it.
type clockReading struct {
	at    time.Time // zero before the first tick
	done  int
	eta   time.Duration
	hasET bool // an ETA is known (a sample has finished)
}

// clockNow reads the clock and the ETA at the run's pace (report.Pace).
func (m *Model) clockNow() clockReading {
	p := m.progress
	eta, ok := m.pace.ETA(p.total - p.done - p.cancelled)
	return clockReading{at: m.now(), done: p.done, eta: eta, hasET: ok}
}

// clockParts shows elapsed and ETA while a run is live (as of the last
// tick, so the title is not rewritten every frame), the duration once it
// finished, and the start date of a stored run.
func (m *Model) clockParts() []string {
	start := m.opts.Started
	switch {
	case start.IsZero():
		return nil
	case m.live:
		c := m.clock
		if c.at.IsZero() {
			c = m.clockNow()
		}
		eta := "ETA --"
		if c.hasET && m.progress.total > c.done {
			eta = "ETA " + fmtDuration(c.eta)
		}
		return []string{"elapsed " + fmtDuration(c.at.Sub(start)), eta}
	case !m.ended.IsZero():
		return []string{"finished in " + fmtDuration(m.ended.Sub(start))}
	}
	return []string{"run of " + start.Format("2006-01-02 15:04 MST")}
}

func fmtDuration(d time.Duration) string {
	d = max(d.Round(time.Second), 0)
	h, mnt, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%dh%02dm%02ds", h, mnt, s)
	}
	if mnt > 0 {
		return fmt.Sprintf("%dm%02ds", mnt, s)
	}
	return fmt.Sprintf("%ds", s)
}

// progressBar is a bar of w cells, done of total filled (full past total).
func (m *Model) progressBar(done, total, w int) string {
	st, g := m.st, m.g
	full := int(math.Round(min(ratio(done, total), 1) * float64(w)))
	return "[" + st.high.Render(strings.Repeat(g.barFull, full)) + st.muted.Render(strings.Repeat(g.barEmpty, w-full)) + "]"
}

// errorsText counts failed calls, in the failure colour when there are any.
func (m *Model) errorsText(n int) string {
	return paint(n == 0, fmt.Sprintf("errors %d", n), m.st.failed.Render)
}

func (m *Model) progressLine() string {
	w := 10
	if m.width >= 110 {
		w = 20
	}
	c, done := m.progress.shown(), m.progress.done
	bar, errs := m.progressBar(done, c.total, w), m.errorsText(c.errors)
	rate := int(math.Round(100 * ratio(c.cacheHits, c.calls)))
	tokens := "tokens " + fmtCount(c.tokens)
	if usd := m.costText(); usd != "" {
		tokens += " " + usd
	}
	progress := fmt.Sprintf("%s %d/%d", bar, done, c.total)
	if c.cancelled > 0 {
		progress += m.st.warn.Render(fmt.Sprintf(" cancelled %d", c.cancelled))
	}
	parts := []string{progress, fmt.Sprintf("in flight %d", c.inFlight)}
	sent, cached := "calls sent", "cache hits"
	if m.width < 100 {
		parts, sent, cached = parts[:1], "sent", "cached"
	}
	parts = append(parts,
		fmt.Sprintf("%s %d", sent, c.sent()),
		fmt.Sprintf("%s %d (%d%%)", cached, c.cacheHits, rate),
		fmt.Sprintf("retries %d", c.retries),
		errs,
		tokens,
	)
	// Two spaces apart, one when that is too wide.
	if l := strings.Join(parts, "  "); lipgloss.Width(l) <= m.width {
		return l
	}
	return truncate(strings.Join(parts, " "), m.width, m.g.ellipsis)
}

// costText is what the tokens counted so far cost: "$0.0123", "$—" when a
// model has no price, "" when the run has no prices.
func (m *Model) costText() string {
	p := m.opts.Pricing
	if p == nil {
		return ""
	}
	if c := p.Cost(m.progress.chat, m.progress.embed); c != nil {
		return report.FormatUSD(*c)
	}
	return "$" + m.g.unpriced
}

func fmtCount(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%d", n)
}

// meanText is a metric's mean in the header, as wide as every metric's.
func (m *Model) meanText(mt eval.Metric, ms metricStats) string {
	w := widest(m.metrics, scoreW, m.scoreWidth)
	v, ok := ms.mean()
	if !ok {
		return padLeft("  -  ", w)
	}
	return m.st.bandOf(mt, v).Render(padLeft(fmtScore(v), w))
}

// histogram draws the scores in ten bins, scaled to the fullest.
func (m *Model) histogram(mt eval.Metric, ms metricStats) string {
	peak := slices.Max(ms.hist[:])
	ramp := m.g.ramp
	var b strings.Builder
	b.WriteString(m.st.muted.Render("0"))
	for i, n := range ms.hist {
		lvl := 0
		if n > 0 {
			lvl = max(1, int(math.Round(float64(n)/float64(peak)*float64(len(ramp)-1))))
		}
		b.WriteString(m.st.bandOf(mt, (float64(i)+0.5)/histBins).Render(ramp[lvl]))
	}
	b.WriteString(m.st.muted.Render("1"))
	return b.String()
}

// diagLine counts the shown rows per diagnosis, leaving out those no row
// has when the line is wider than width.
func (m *Model) diagLine(width int) string {
	st := m.st
	line := func(skipZero bool) string {
		parts := []string{st.bold.Render("diagnosis")}
		for _, d := range report.DiagnosesAt(m.st.levels) {
			n := m.stats.diag[d]
			if n == 0 && skipZero {
				continue
			}
			parts = append(parts, paint(n == 0, fmt.Sprintf("%s %d", d, n), m.diagStyle(d)))
		}
		if m.stats.running > 0 {
			parts = append(parts, st.running.Render(fmt.Sprintf("running %d", m.stats.running)))
		}
		if !m.opts.Levels.IsDefault() {
			parts = append(parts, st.muted.Render("pass "+sanitize.Line(m.opts.Levels.String())))
		}
		return strings.Join(parts, "  ")
	}
	if full := line(false); width <= 0 || lipgloss.Width(full) <= width {
		return full
	}
	return line(true)
}

func (m *Model) filterLines() []string {
	st := m.st
	if m.shownMode() == modeFilter {
		lines := []string{m.input.View()}
		if m.filterErr != "" {
			style := st.muted // a term half written is no mistake yet
			if m.bar.errPressed {
				style = st.errorLine
			}
			lines = append(lines, m.wrapped("filter: "+sanitize.Line(m.filterErr), style)...)
		} else if note := m.deferredNote(); note != "" {
			lines = append(lines, st.muted.Render("  "+note))
		}
		return lines
	}
	if m.filter.empty() {
		return nil
	}
	lines := []string{st.accent.Render("filter: "+sanitize.Line(m.filter.src)) +
		st.muted.Render(fmt.Sprintf("  %d of %d samples  (/ edits, esc clears)", len(m.shown), len(m.rows)))}
	if note := m.pendingNote(); note != "" {
		lines = append(lines, st.muted.Render("  "+note))
	}
	return lines
}

// withPosition draws a header line in the width the position leaves and
// puts the position among the lines shown at its right end: [12/300].
func (m *Model) withPosition(line func(width int) string) string {
	pos := "[0/0]"
	if len(m.lines) > 0 {
		pos = fmt.Sprintf("[%d/%d]", m.cursor+1, len(m.lines))
	}
	room := max(m.width-lipgloss.Width(pos)-1, 0)
	l := truncate(line(room), room, m.g.ellipsis)
	return l + strings.Repeat(" ", max(m.width-lipgloss.Width(l)-lipgloss.Width(pos), 1)) + pos
}

const histBins = 10

// metricStats aggregates one metric over the rows shown. The counts follow
// report.Tally, so the header and the report agree: failed counts the
// judge's and the run's failures, na the samples the metric is not defined for.
type metricStats struct {
	sum    float64
	scored int
	failed int
	na     int
	hist   [histBins]int
}

func (s metricStats) mean() (float64, bool) {
	if s.scored == 0 {
		return 0, false
	}
	return s.sum / float64(s.scored), true
}

type stats struct {
	metrics [eval.NumMetrics]metricStats
	diag    map[report.Diagnosis]int
	running int
	// topErr is the most frequent failure message of the rows shown and
	// how many (sample, metric) pairs ended with it: a count says that
	// something is wrong, the message says what.
	topErr  string
	topErrN int
}

func computeStats(rows []*row, shown []int32, metrics []eval.Metric, x *rowExtras) stats {
	st := stats{diag: make(map[report.Diagnosis]int, len(report.Diagnoses))}
	errs := map[string]int{}
	// A pass over a million rows: the slots, the diagnoses and the status
	// are worked with as the numbers the rows hold, named once at the end.
	slots := mapped(metrics, metricSlot)
	ok := statusCodes.code(eval.StatusOK)
	var diags [math.MaxUint8 + 1]int
	for _, i := range shown {
		r := rows[i]
		if !r.done {
			st.running++
			continue
		}
		diags[r.diag]++
		for j, m := range metrics {
			slot := slots[j]
			v, code := r.at(slot)
			if code == 0 {
				continue // not evaluated
			}
			ms := &st.metrics[slot]
			if code != ok || math.IsNaN(v) {
				if status := statusCodes.name(code); status.Failed() {
					ms.failed++
					errs[cmp.Or(x.errText(r, m), string(status))]++
				} else {
					ms.na++
				}
				continue
			}
			ms.scored++
			ms.sum += v
			ms.hist[min(max(int(v*histBins), 0), histBins-1)]++
		}
	}
	for code, n := range diags {
		if n > 0 {
			st.diag[diagCodes.name(uint8(code))] += n
		}
	}
	for msg, n := range errs {
		if n > st.topErrN || (n == st.topErrN && msg < st.topErr) {
			st.topErr, st.topErrN = msg, n
		}
	}
	return st
}
