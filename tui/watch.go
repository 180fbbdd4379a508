package tui

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// Watch mode is the run screen of a watcher following a live log
// (Options.Watch set): new rows arrive at the top (index descending, the
// order of arrival, which the held order gives way to, like tail -f), the
// header draws each metric's rolling mean over time where a finished run
// draws the histogram, and a line says the lag behind the log and the alerts.

// trendBuckets is how many points a trend has: the histogram's cells.
const trendBuckets = histBins + 2

// trendSpan is a bucket's first span; when the buckets are full,
// neighbours merge and the span doubles (bounded memory).
const trendSpan = 5 * time.Second

// trendWindow is the rolling mean's window when no alert names the
// metric: the default of ragscope watch's --alert rules.
const trendWindow = 50

// trend is one metric's rolling mean of the last window scores, as it
// stood at the end of each time bucket.
type trend struct {
	window int
	ring   []float64 // the last window scores, oldest overwritten
	next   int
	sum    float64
	n      int // scores in ring (≤ window)

	start  time.Time // start of bucket 0; zero before the first score
	span   time.Duration
	points [trendBuckets]float64 // the rolling mean at the end of each bucket; NaN: no score yet
	last   int                   // the bucket of the latest score
}

func newTrend(window int) *trend {
	t := &trend{window: max(window, 1), span: trendSpan}
	t.ring = make([]float64, t.window)
	fillNaN(t.points[:])
	return t
}

// add counts a score that arrived at time at.
func (t *trend) add(v float64, at time.Time) {
	if t.n == t.window {
		t.sum -= t.ring[t.next]
	} else {
		t.n++
	}
	t.ring[t.next] = v
	t.sum += v
	t.next = (t.next + 1) % t.window
	if t.start.IsZero() {
		t.start = at
	}
	b := t.bucket(at)
	for b >= trendBuckets {
		t.merge()
		b = t.bucket(at)
	}
	// A bucket with no score of its own carries the mean it started with.
	for i := t.last + 1; i < b; i++ {
		t.points[i] = t.points[t.last]
	}
	t.last = max(t.last, b)
	t.points[t.last] = t.sum / float64(t.n)
}

func (t *trend) bucket(at time.Time) int {
	d := at.Sub(t.start)
	if d < 0 {
		return t.last // a clock that stepped back: the latest bucket
	}
	return int(d / t.span)
}

// merge halves the resolution: bucket i takes the later of 2i and 2i+1
// (the rolling mean at the end of the pair's span).
func (t *trend) merge() {
	for i := 0; i < trendBuckets/2; i++ {
		t.points[i] = t.points[2*i+1]
		if math.IsNaN(t.points[i]) {
			t.points[i] = t.points[2*i]
		}
	}
	fillNaN(t.points[trendBuckets/2:])
	t.last /= 2
	t.span *= 2
}

// mean is the rolling mean now, and whether there is a score.
func (t *trend) mean() (float64, bool) {
	if t.n == 0 {
		return 0, false
	}
	return t.sum / float64(t.n), true
}

// sparkline draws points on an absolute 0-1 scale, one cell each, so the
// metrics' lines compare; a point with no score is ramp[0], a space.
func sparkline(points []float64, ramp []string) string {
	return strings.Join(mapped(points, func(v float64) string {
		if math.IsNaN(v) {
			return ramp[0]
		}
		return ramp[1+int(math.Round(min(max(v, 0), 1)*float64(len(ramp)-2)))]
	}), "")
}

// watchMode reports whether the screen follows a live log.
func (m *Model) watchMode() bool { return m.opts.Watch != nil }

// watchOrder reports whether the rows are in watch mode's own order.
func (m *Model) watchOrder() bool {
	return m.watchMode() && m.sortKeys[m.sortIdx].slot == slotIndex && m.desc
}

// trendOf is the trend of metric mt, made on its first score with the
// window of the first alert that names it.
func (m *Model) trendOf(mt eval.Metric) *trend {
	slot := metricSlot(mt) // one of the run's metrics
	if t := m.trends[slot]; t != nil {
		return t
	}
	w := trendWindow
	if i := slices.IndexFunc(m.watchStatus.Alerts, func(a report.AlertState) bool { return a.Metric == mt && a.Window > 0 }); i >= 0 {
		w = m.watchStatus.Alerts[i].Window
	}
	m.trends[slot] = newTrend(w)
	return m.trends[slot]
}

// watchResult feeds a result that arrived in the stream to the trends.
func (m *Model) watchResult(res *eval.Result, at time.Time) {
	if !m.watchMode() || res == nil {
		return
	}
	if at.IsZero() {
		at = m.now()
	}
	for _, mt := range m.metrics {
		if v, ok := res.Score(mt); ok && res.Status[mt] == eval.StatusOK {
			m.trendOf(mt).add(v, at)
		}
	}
}

// pollWatch reads the watcher's status (once a second, with the clock).
func (m *Model) pollWatch() {
	if m.opts.Watch != nil {
		m.watchStatus = m.opts.Watch()
	}
}

// trendCell is the sparkline of a metric's rolling mean, then the mean
// now when there is room.
func (m *Model) trendCell(mt eval.Metric, room int) string {
	t := m.trends[metricSlot(mt)] // one of the run's metrics
	if t == nil {
		return m.st.muted.Render(strings.Repeat(m.g.ramp[0], trendBuckets))
	}
	v, _ := t.mean()
	cell := m.st.bandOf(mt, v).Render(sparkline(t.points[:], m.g.ramp))
	if now := fmt.Sprintf(" now %.3f", v); room >= trendBuckets+len(now) {
		cell += m.st.muted.Render(now)
	}
	return cell
}

// watchLines are the lag behind the log and the alerts, firing first.
func (m *Model) watchLines() []string {
	st, fs := m.st, m.watchStatus
	lag := fmt.Sprintf("behind %d records", fs.Behind)
	if fs.BehindBytes > 0 {
		lag += fmt.Sprintf(" + %s", byteSize(int(fs.BehindBytes)))
	}
	if fs.OldestUnread > 0 {
		lag += fmt.Sprintf(", oldest %s", fs.OldestUnread.Round(time.Second))
	}
	style := st.muted
	switch {
	case fs.Elsewhere != "":
		lag = "lag and alerts are shown by the watcher, " + sanitize.Line(fs.Elsewhere)
	case fs.Behind == 0 && fs.BehindBytes == 0:
		lag = "caught up"
	case fs.OldestUnread >= time.Minute:
		style = st.warn
	}
	head := style.Render("follow: " + lag)
	if fs.Invalid > 0 && fs.Elsewhere == "" {
		head += "  " + st.warn.Render(fmt.Sprintf("%d invalid log %s skipped", fs.Invalid, plural(int(fs.Invalid), "line", "lines")))
	}
	var firing, quiet []string
	for _, a := range fs.Alerts {
		rule := cmp.Or(sanitize.Line(a.Rule), sanitize.Line(string(a.Metric)))
		mean := "n/a"
		if a.Mean != nil {
			mean = fmt.Sprintf("%.3f", *a.Mean)
		}
		if a.Firing {
			since := ""
			if !a.Since.IsZero() {
				since = ", since " + a.Since.Format("15:04:05")
			}
			firing = append(firing, st.failed.Render(fmt.Sprintf("%s FIRING %s (mean %s%s)", m.g.fail, rule, mean, since)))
			continue
		}
		quiet = append(quiet, st.muted.Render(fmt.Sprintf("%s %s (mean %s)", m.g.ok, rule, mean)))
	}
	alerts := append(firing, quiet...)
	fit := func(s string) string { return truncate(s, m.width, m.g.ellipsis) }
	if len(alerts) == 0 {
		return []string{fit(head)}
	}
	if m.compact() {
		return []string{fit(head + "  " + strings.Join(alerts, "  "))}
	}
	return []string{fit(head), fit(st.bold.Render("alerts") + "  " + strings.Join(alerts, "  "))}
}
