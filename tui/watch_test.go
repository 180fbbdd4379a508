package tui

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

var watchMetrics = []eval.Metric{eval.Faithfulness, eval.AnswerRelevancy, eval.ContextUtilization}

// watchRecord is record i of a live log, arriving 10 s after the one before.
func watchRecord(i int, f, ar, cu float64) eval.Event {
	res := &eval.Result{Index: i, ID: fmt.Sprintf("rec-%d", i), Question: fmt.Sprintf("question %d about leave?", i), Answer: fmt.Sprintf("answer %d.", i),
		Contexts: []string{"chunk one", "chunk two"},
		Scores:   map[eval.Metric]*float64{eval.Faithfulness: score(f), eval.AnswerRelevancy: score(ar), eval.ContextUtilization: score(cu)},
		Status:   map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.AnswerRelevancy: eval.StatusOK, eval.ContextUtilization: eval.StatusOK},
		Faithfulness: &eval.FaithfulnessTrace{Supported: int(f), Statements: []eval.StatementVerdict{
			{Statement: fmt.Sprintf("answer %d.", i), Verdict: int(f), Reason: "r"}}},
		ContextUtilization: &eval.ContextPrecisionTrace{Chunks: []eval.ChunkVerdict{{Rank: 1, Verdict: 1, Reason: "used"}, {Rank: 2, Reason: "not used"}}, Precisions: []float64{1, 0.5}},
	}
	return eval.Event{Kind: eval.EventSampleFinished, Sample: i, Result: res, Time: fixedStart.Add(time.Duration(i) * 10 * time.Second)}
}

func watchStatus() report.WatchStatus {
	low := 0.625
	ok := 0.75
	return report.WatchStatus{Files: 1, Read: 9, Evaluated: 6, Behind: 3, BehindBytes: 2048, OldestUnread: 75 * time.Second, RunID: "watch-1",
		Alerts: []report.AlertState{
			{Rule: "faithfulness<0.7 over 4", Metric: eval.Faithfulness, Below: true, Threshold: 0.7, Window: 4, Mean: &low, Count: 4, Firing: true, Fired: 1, Since: fixedStart.Add(50 * time.Second)},
			{Rule: "context_utilization<0.5 over 50", Metric: eval.ContextUtilization, Below: true, Threshold: 0.5, Window: 50, Mean: &ok, Count: 6},
		}}
}

func watchModel(t testing.TB, w, h int, ascii bool) *Model {
	t.Helper()
	status := watchStatus()
	m := New(Options{Dataset: "logs/assistant.jsonl", Metrics: watchMetrics, Live: true, Attached: true, ASCII: ascii,
		Judge: eval.JudgeInfo{Kind: "offline", Name: "offline (lexical)"}, Started: fixedStart,
		Watch: func() report.WatchStatus { return status }})
	m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// feed delivers records first..last (inclusive) as one batch of events.
func feed(m *Model, first, last int) {
	var evs []eval.Event
	for i := first; i <= last; i++ {
		f := 1.0
		if i%2 == 1 {
			f = 0
		}
		evs = append(evs, watchRecord(i, f, 0.5+float64(i%3)/10, 0.75))
	}
	m.Update(EventsMsg{Events: evs})
}

func TestSparklineGlyphs(t *testing.T) {
	nan := math.NaN()
	series := []float64{0, 1.0 / 7, 2.0 / 7, 3.0 / 7, 4.0 / 7, 5.0 / 7, 6.0 / 7, 1, nan, -0.5, 1.5}
	if got, want := sparkline(series, unicodeGlyphs.ramp), "▁▂▃▄▅▆▇█ ▁█"; got != want {
		t.Errorf("unicode sparkline %q, want %q", got, want)
	}
	if got, want := sparkline(series, asciiGlyphs.ramp), ".:-=+*#@ .@"; got != want {
		t.Errorf("ASCII sparkline %q, want %q", got, want)
	}
	// Rounded to the nearest of the eight levels.
	if got, want := sparkline([]float64{0.07, 0.08, 0.5, 0.93}, unicodeGlyphs.ramp), "▁▂▅█"; got != want {
		t.Errorf("rounding: %q, want %q", got, want)
	}
}

// The trend is the rolling mean of the last window scores at the end of
// each bucket; a bucket where nothing arrived carries the mean on.
func TestTrendRollingMean(t *testing.T) {
	tr := newTrend(2)
	at := func(s int) time.Time { return fixedStart.Add(time.Duration(s) * time.Second) }
	tr.add(1, at(0))  // bucket 0: mean of [1] = 1
	tr.add(0, at(1))  // bucket 0: [1 0] = 0.5
	tr.add(0, at(6))  // bucket 1: [0 0] = 0
	tr.add(1, at(16)) // bucket 3: [0 1] = 0.5; bucket 2 carries 0
	want := []float64{0.5, 0, 0, 0.5}
	for i, w := range want {
		if tr.points[i] != w {
			t.Errorf("point %d = %v, want %v (%v)", i, tr.points[i], w, tr.points[:4])
		}
	}
	if !math.IsNaN(tr.points[4]) {
		t.Errorf("a bucket in the future has %v", tr.points[4])
	}
	if v, ok := tr.mean(); !ok || v != 0.5 {
		t.Errorf("mean %v", v)
	}
	// Past the last bucket, pairs merge and the span doubles: memory stays
	// fixed however long the log is followed.
	tr.add(1, at(5*trendBuckets+1))
	if tr.span != 2*trendSpan || tr.last != (5*trendBuckets+1)/10 {
		t.Fatalf("after a merge: span %v, last %d", tr.span, tr.last)
	}
	if tr.points[0] != 0 || tr.points[1] != 0.5 || tr.points[tr.last] != 1 {
		t.Errorf("merged points %v", tr.points)
	}
	long := newTrend(50)
	for i := range 100000 {
		long.add(float64(i%2), at(i))
	}
	if len(long.ring) != 50 || len(long.points) != trendBuckets || long.last >= trendBuckets {
		t.Errorf("unbounded: ring %d, last %d", len(long.ring), long.last)
	}
}

// New records arrive at the top; a cursor on the top row follows the
// newest, one moved down stays on its sample.
func TestWatchOrderNewestFirst(t *testing.T) {
	m := watchModel(t, 100, 30, false)
	feed(m, 0, 2)
	if got := shownSamples(m); !equalInts(got, []int{2, 1, 0}) {
		t.Fatalf("rows %v, want newest first", got)
	}
	feed(m, 3, 3)
	if got := shownSamples(m); !equalInts(got, []int{3, 2, 1, 0}) || cursorSample(m) != 3 {
		t.Fatalf("rows %v cursor on %d, want 3 on top and the cursor following it", got, cursorSample(m))
	}
	press(m, "j", "j") // on sample 1
	feed(m, 4, 5)
	if got := shownSamples(m); !equalInts(got, []int{5, 4, 3, 2, 1, 0}) || cursorSample(m) != 1 {
		t.Fatalf("rows %v cursor on %d, want the cursor kept on sample 1", got, cursorSample(m))
	}
	// The user picks another order: it is held as in any live run, new
	// rows come under the rows listed.
	press(m, "s") // faithfulness ascending
	before := shownSamples(m)
	feed(m, 6, 7)
	got := shownSamples(m)
	if !equalInts(got[:len(before)], before) || !equalInts(got[len(before):], []int{7, 6}) && !equalInts(got[len(before):], []int{6, 7}) {
		t.Fatalf("in a picked order rows %v, want %v kept and the new ones after", got, before)
	}
	// Back to the index descending: following again.
	for range len(m.sortKeys) - 1 {
		press(m, "s")
	}
	if m.sortIdx != 0 {
		t.Fatalf("sort %d", m.sortIdx)
	}
	if !m.desc {
		press(m, "S")
	}
	press(m, "g")
	feed(m, 8, 8)
	if got := shownSamples(m); got[0] != 8 || cursorSample(m) != 8 {
		t.Fatalf("back in follow order: rows %v, cursor %d", got, cursorSample(m))
	}
}

// The triage keys work while the log is followed: filter, open, labels'
// item cursor, back, sort.
func TestWatchTriageKeys(t *testing.T) {
	m := watchModel(t, 100, 30, false)
	feed(m, 0, 5)
	applyFilter(m, "f<0.5")
	if got := shownSamples(m); !equalInts(got, []int{5, 3, 1}) {
		t.Fatalf("filter f<0.5: %v", got)
	}
	feed(m, 6, 7) // 7 is unfaithful: it joins the filter, on top
	if got := shownSamples(m); got[0] != 7 {
		t.Fatalf("a new matching record is not on top: %v", got)
	}
	press(m, "enter")
	if m.screen != screenDetail || !strings.Contains(screenText(m), "sample 7") {
		t.Fatalf("enter did not open the newest sample:\n%s", screenText(m))
	}
	press(m, "3")
	if !strings.Contains(screenText(m), "useful for the answer") {
		t.Errorf("the utilization section is not on the page:\n%s", screenText(m))
	}
	feed(m, 8, 9)
	if m.screen != screenDetail || !strings.Contains(screenText(m), "sample 7") {
		t.Fatal("records arriving moved the detail page off its sample")
	}
	press(m, "esc", "esc")
	if m.screen != screenTable || !m.filter.empty() {
		t.Fatalf("esc esc: screen %v, filter %q", m.screen, m.filter.src)
	}
}

// The lag and the alerts come from Options.Watch, read again every second.
func TestWatchStatusLine(t *testing.T) {
	calls := 0
	status := watchStatus()
	m := New(Options{Dataset: "logs/a.jsonl", Metrics: watchMetrics, Live: true,
		Watch: func() report.WatchStatus { calls++; return status }})
	m.now = func() time.Time { return fixedStart }
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 30})
	// The window of an alert on a metric is its trend's window.
	feed(m, 0, 0)
	if tr := m.trends[metricSlot(eval.Faithfulness)]; tr == nil || tr.window != 4 {
		t.Errorf("faithfulness trend %+v, want the alert's window 4", tr)
	}
	if tr := m.trends[metricSlot(eval.AnswerRelevancy)]; tr == nil || tr.window != trendWindow {
		t.Errorf("relevancy trend window, want %d", trendWindow)
	}
	line := lineOf(screenText(m), "follow:") + "\n" + lineOf(screenText(m), "alerts")
	for _, want := range []string{"behind 3 records + 2.0 KB, oldest 1m15s", "✗ FIRING faithfulness<0.7 over 4 (mean 0.625, since 09:26:50)", "✓ context_utilization<0.5 over 50 (mean 0.750)"} {
		if !strings.Contains(line, want) {
			t.Errorf("follow line lacks %q:\n%s", want, line)
		}
	}
	status = report.WatchStatus{Alerts: []report.AlertState{{Rule: "f<0.7 over 4\x1b]52;c;x\x07", Metric: eval.Faithfulness}}}
	n := calls
	m.Update(tickMsg(fixedStart))
	if calls != n+1 {
		t.Fatalf("a tick polled %d times", calls-n)
	}
	line = lineOf(screenText(m), "follow:") + "\n" + lineOf(screenText(m), "alerts")
	if !strings.Contains(line, "caught up") || strings.Contains(line, "\x1b]52") || !strings.Contains(line, `\x1b]52`) {
		t.Errorf("after the poll: %q", line)
	}
	// Another process's watcher: its lag is not known here, and the line
	// says so rather than "caught up".
	status = report.WatchStatus{Behind: 0, Elsewhere: "pid 4242"}
	m.Update(tickMsg(fixedStart))
	if line = lineOf(screenText(m), "follow:"); !strings.Contains(line, "lag and alerts are shown by the watcher, pid 4242") || strings.Contains(line, "caught up") {
		t.Errorf("the status of a watcher elsewhere: %q", line)
	}
}

// Without Options.Watch nothing changes: ascending order, histograms.
func TestNoWatchModeWithoutTheOption(t *testing.T) {
	m := New(Options{Metrics: watchMetrics, Live: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	feed(m, 0, 2)
	if got := shownSamples(m); !equalInts(got, []int{0, 1, 2}) || strings.Contains(screenText(m), "follow:") || strings.Contains(screenText(m), "rolling") {
		t.Fatalf("rows %v\n%s", got, screenText(m))
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestWatcherScreenSaysOneThing: the watcher's own screen says once what q
// does (it stops watching; the footer must not say the run goes on), and
// counts the log lines it could not read.
func TestWatcherScreenSaysOneThing(t *testing.T) {
	for _, tt := range []struct {
		name      string
		quitHelp  string
		invalid   int64
		has, lack []string
	}{
		{"the watcher's own screen", "stop watching", 3, []string{"q stop watching", "3 invalid log lines skipped"}, []string{"run goes on"}},
		{"one invalid line", "stop watching", 1, []string{"1 invalid log line skipped"}, nil},
		{"attached to another's run", "", 0, []string{"q quit, run goes on"}, []string{"invalid", "stop watching"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status := watchStatus()
			status.Invalid = tt.invalid
			m := New(Options{Dataset: "logs/assistant.jsonl", Metrics: watchMetrics, Live: true, Attached: true, QuitHelp: tt.quitHelp,
				Judge: eval.JudgeInfo{Kind: "offline", Name: "offline (lexical)"}, Started: fixedStart,
				Banner: "watching: results go to run watch-1; q stops watching",
				Watch:  func() report.WatchStatus { return status }})
			m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
			m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
			feed(m, 0, 3)
			m.Update(tickMsg(m.now()))
			s := screenText(m)
			for _, w := range tt.has {
				if !strings.Contains(s, w) {
					t.Errorf("the screen lacks %q:\n%s", w, s)
				}
			}
			for _, w := range tt.lack {
				if strings.Contains(s, w) {
					t.Errorf("the screen says %q:\n%s", w, s)
				}
			}
		})
	}
}
