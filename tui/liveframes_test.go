package tui

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/ragscope/ragscope/eval"
)

// liveResult is a scored sample whose faithfulness is scattered over
// [0, 1) by its index, so a sort by it interleaves early and late samples:
// under a plain re-sort, later results would land among the rows shown.
func liveResult(i int) *eval.Result {
	f := float64((i*37)%100) / 100
	return &eval.Result{
		Index:    i,
		Question: fmt.Sprintf("question number %d", i),
		Answer:   "answer",
		Scores:   map[eval.Metric]*float64{eval.Faithfulness: score(f)},
		Status:   map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK},
	}
}

func liveStarted(i int) eval.Event {
	return startedWithTexts(liveResult(i), 1)
}

// countingModel counts the View calls the program makes: it renders after
// every message, so the count is the number of frames the model produced.
type countingModel struct {
	*Model
	views atomic.Int64
}

func (c *countingModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := c.Model.Update(msg)
	return c, cmd
}

func (c *countingModel) View() tea.View {
	c.views.Add(1)
	return c.Model.View()
}

// A burst of results costs frames by the frame interval, not by the
// number of results: the real program, fed through Init's stream and
// Forward, renders a few times per forwardEvery of the burst's duration.
func TestBurstOfResultsCostsFramesByTheTick(t *testing.T) {
	for _, n := range []int{500, 4000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			events := make(chan eval.Event)
			m := New(Options{Dataset: "burst.jsonl", Live: true, Total: n, Metrics: []eval.Metric{eval.Faithfulness}})
			m.events = events
			c := &countingModel{Model: m}
			var tm *teatest.TestModel
			// Forward's sends start once the test feeds the channel, after
			// tm is set (the channel orders the two).
			m.send = func(msg tea.Msg) { tm.Send(msg) }
			tm = teatest.NewTestModel(t, c, teatest.WithInitialTermSize(120, 40),
				teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))

			begin := time.Now()
			events <- eval.Event{Kind: eval.EventRunStarted, Total: n, Sample: -1, Time: time.Now()}
			for i := range n {
				events <- liveStarted(i)
				events <- eval.Event{Kind: eval.EventSampleFinished, Sample: i, Result: liveResult(i)}
			}
			events <- eval.Event{Kind: eval.EventRunFinished, Sample: -1, Time: time.Now()}
			close(events)
			teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
				return bytes.Contains(b, []byte("finished in"))
			}, teatest.WithDuration(60*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
			elapsed := time.Since(begin)
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*countingModel)
			if final.progress.done != n {
				t.Fatalf("%d of %d results applied", final.progress.done, n)
			}
			// One frame per batch (one per forwardEvery, plus the first and
			// the run's end), one per clock tick, and a few for the start
			// (size, background colour), the stream's close and the quit.
			slots := int(elapsed / forwardEvery)
			bound := 2*slots + int(elapsed/time.Second) + 12
			if views := int(final.views.Load()); views > bound {
				t.Fatalf("%d frames for %d results in %v, want at most %d: frames follow the results, not the tick",
					views, n, elapsed.Round(time.Millisecond), bound)
			}
		})
	}
}

// tableLines is the table part of the screen: the rows under the column
// titles.
func tableLines(t *testing.T, m *Model) []string {
	t.Helper()
	lines := strings.Split(screenText(m), "\n")
	for i, l := range lines {
		if strings.Contains(l, "question") && strings.Contains(l, "diagnosis") {
			return lines[i+1 : min(i+1+m.tableRows(), len(lines))]
		}
	}
	t.Fatalf("no column titles on the screen:\n%s", screenText(m))
	return nil
}

func windowSamples(m *Model) []int {
	end := min(m.offset+m.tableRows(), len(m.shown))
	return shownSamples(m)[m.offset:end]
}

func finishedEvents(from, to int) []eval.Event {
	var evs []eval.Event
	for i := from; i < to; i++ {
		evs = append(evs, eval.Event{Kind: eval.EventSampleFinished, Sample: i, Result: liveResult(i)})
	}
	return evs
}

// pacedEvents are samples from..to-1 evaluated one at a time, each taking
// took from its start event to its result.
func pacedEvents(from, to int, took time.Duration) []eval.Event {
	var evs []eval.Event
	for i := from; i < to; i++ {
		evs = append(evs,
			eval.Event{Kind: eval.EventSampleStarted, Sample: i, Time: fixedStart.Add(time.Duration(i) * took)},
			eval.Event{Kind: eval.EventSampleFinished, Sample: i, Result: liveResult(i), Time: fixedStart.Add(time.Duration(i+1) * took)})
	}
	return evs
}

// While a run is live, results must not move the rows the user looks at:
// the cursor stays on its sample, the window where it was, and the rows on
// screen keep their lines, whatever the order (see holdOrder).
func TestLiveResultsKeepTheWindow(t *testing.T) {
	const total = 300
	tests := []struct {
		name   string
		keys   []string
		filter string
		done   int // samples finished before the user looks: 0..done-1
		// arrive are the results that come while the user does not move.
		arrive [2]int
		// sameLines: the rows on screen are off the results' way and must
		// not change at all; else they fill in place, in the same order.
		sameLines bool
	}{
		{"sample order, results below the window", []string{"j", "j", "j"}, "", 10, [2]int{100, 200}, true},
		{"by faithfulness, results off screen", []string{"s", "j", "j"}, "", 60, [2]int{60, 200}, true},
		{"faithfulness descending, filtered", []string{"s", "S", "j"}, "f<0.9", 60, [2]int{60, 200}, true},
		{"by faithfulness, running rows on screen fill in place", []string{"s", "j"}, "", 5, [2]int{5, 40}, false},
		{"diagnosis order, running rows on screen fill in place", []string{"s", "s", "G", "k"}, "", 100, [2]int{100, 300}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(t, Options{Dataset: "live.jsonl", Live: true, Total: total, Started: fixedStart,
				Metrics: []eval.Metric{eval.Faithfulness}}, 120, 40)
			evs := []eval.Event{{Kind: eval.EventRunStarted, Total: total, Sample: -1}}
			for i := range total {
				evs = append(evs, liveStarted(i))
			}
			m.Update(EventsMsg{Events: append(evs, finishedEvents(0, tt.done)...)})
			press(m, tt.keys...)
			applyFilter(m, tt.filter)
			cursor, offset, window, lines := cursorSample(m), m.offset, windowSamples(m), tableLines(t, m)

			// The results come in frames, as Forward sends them.
			for from := tt.arrive[0]; from < tt.arrive[1]; from += 7 {
				m.Update(EventsMsg{Events: finishedEvents(from, min(from+7, tt.arrive[1]))})
				if got := cursorSample(m); got != cursor || m.offset != offset {
					t.Fatalf("after results %d..: cursor on sample %d at offset %d, was %d at %d", from, got, m.offset, cursor, offset)
				}
				if got := windowSamples(m); !slices.Equal(got, window) {
					t.Fatalf("after results %d..: the window shows samples\n%v\nwas\n%v", from, got, window)
				}
			}
			after := tableLines(t, m)
			if tt.sameLines && !slices.Equal(after, lines) {
				t.Fatalf("rows on screen changed:\n%s\nwas\n%s", strings.Join(after, "\n"), strings.Join(lines, "\n"))
			}
			if !tt.sameLines && slices.Equal(after, lines) {
				t.Fatal("the rows on screen did not fill in")
			}

			// The run's end gives the full order back.
			m.Update(EventsMsg{Events: []eval.Event{{Kind: eval.EventRunFinished, Sample: -1}}})
			s := sortRows(m.rows, m.sortKeys[m.sortIdx])
			want := order(s, m.rows, m.filter, m.matchEnv(), m.desc)
			if !slices.Equal(m.shown, want) {
				t.Fatal("after the run the rows are not in the order asked for")
			}
			if got := cursorSample(m); got != cursor {
				t.Fatalf("the full order moved the cursor from sample %d to %d", cursor, got)
			}
		})
	}
}

// The title line's clock (elapsed, ETA) moves on the second's tick only:
// results in between change the counters, not the title line.
func TestClockMovesOnTheTick(t *testing.T) {
	now := fixedStart.Add(10 * time.Second)
	m := newTestModel(t, Options{Dataset: "live.jsonl", Live: true, Total: 100, Started: fixedStart,
		Metrics: []eval.Metric{eval.Faithfulness}}, 120, 40)
	m.now = func() time.Time { return now }
	m.Update(EventsMsg{Events: append([]eval.Event{{Kind: eval.EventRunStarted, Total: 100, Sample: -1}}, pacedEvents(0, 10, time.Second)...)})
	m.Update(tickMsg(now))
	title := m.titleLine()
	if !strings.Contains(title, "elapsed 10s") || !strings.Contains(title, "ETA 1m30s") {
		t.Fatalf("title after the tick: %q", title)
	}
	tests := []struct {
		name  string
		after time.Duration // since the tick
		tick  bool
		want  []string // in the title line; nil: unchanged
	}{
		{"a frame later, more results", 250 * time.Millisecond, false, nil},
		{"most of a second later", 900 * time.Millisecond, false, nil},
		{"on the next tick", time.Second, true, []string{"elapsed 11s", "ETA 1m18s"}},
	}
	done := 10
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now = fixedStart.Add(10*time.Second + tt.after)
			m.Update(EventsMsg{Events: pacedEvents(done, done+4, time.Second)})
			done += 4
			if tt.tick {
				m.Update(tickMsg(now))
			}
			got := m.titleLine()
			if tt.want == nil && got != title {
				t.Fatalf("title changed between ticks:\n%q\nwas\n%q", got, title)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Fatalf("title %q lacks %q", got, w)
				}
			}
			title = got
		})
	}
}
