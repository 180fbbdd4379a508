package tui

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/eval"
)

// startHeldRerun takes the model through R and y over the filter f<0.5
// (samples 0 and 6) and hands it the Host's reply with a channel nobody
// feeds: the test then plays the stream's part, sending its batches. It
// returns the stream's tag.
func startHeldRerun(t *testing.T, m *Model) int {
	t.Helper()
	applyFilter(m, "f<0.5")
	pressDrive(t, m, "R")
	if m.ask == nil {
		t.Fatal("no question after R")
	}
	msg := press(m, "y")().(rerunStartedMsg)
	msg.events = make(chan eval.Event)
	if _, stream := m.Update(msg); stream == nil {
		t.Fatal("the re-run's stream was not started")
	}
	press(m, "esc") // the filter; the comparison stays
	if m.rerun == nil || !m.rerun.started {
		t.Fatal("no re-run in progress")
	}
	return m.rerun.gen
}

func finished(res *eval.Result) eval.Event {
	return eval.Event{Kind: eval.EventSampleFinished, Sample: res.Index, Result: res}
}

func TestStreamsShareTheApplier(t *testing.T) {
	res := rerunFixture()
	call := func(cached bool, in, out, inFlight int) eval.Event {
		return eval.Event{Kind: eval.EventCall, InFlight: inFlight,
			Call: &eval.CallRecord{Cached: cached, Tokens: eval.Usage{PromptTokens: in, CompletionTokens: out}}}
	}
	tests := []struct {
		name   string
		events []eval.Event
		want   progress
		screen []string // on the first run's header and on the re-run line
	}{
		{
			name:   "calls, cached ones cost no tokens",
			events: []eval.Event{call(true, 1000, 500, 2), call(false, 9000, 1000, 3), call(false, 20, 5, 1)},
			want:   progress{total: 2, inFlight: 1, calls: 3, cacheHits: 1, tokens: 10025, chat: eval.Usage{PromptTokens: 9020, CompletionTokens: 1005}},
			screen: []string{"sent 2", "tokens 10.0k", "0/2"},
		},
		{
			name: "retries and errors",
			events: []eval.Event{
				{Kind: eval.EventRetry, Sample: 0, InFlight: 1},
				{Kind: eval.EventRetry, Sample: 0, InFlight: 1},
				// A failed call is an error; the metric failure it causes is
				// not counted again.
				{Kind: eval.EventCall, Sample: 0, Call: &eval.CallRecord{Task: "faithfulness_statements", Error: "HTTP 500"}},
				{Kind: eval.EventError, Sample: 0, Metric: eval.Faithfulness, Err: "HTTP 500"},
			},
			want:   progress{total: 2, calls: 1, retries: 2, errors: 1},
			screen: []string{"errors 1"},
		},
		{
			name: "a whole run",
			events: []eval.Event{
				{Kind: eval.EventRunStarted, Sample: -1, Total: 3},
				{Kind: eval.EventSampleStarted, Sample: 0, InFlight: 1},
				call(false, 500, 100, 1),
				finished(res[0]),
				{Kind: eval.EventSampleStarted, Sample: 6, InFlight: 1},
				finished(res[1]),
				{Kind: eval.EventRunFinished, Sample: -1},
			},
			want:   progress{total: 3, done: 2, calls: 1, tokens: 600, chat: eval.Usage{PromptTokens: 500, CompletionTokens: 100}},
			screen: []string{"2/3", "sent 1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := newTestModel(t, Options{Dataset: "d.jsonl", Live: true, Total: 2, Started: fixedStart}, 120, 40)
			first.Update(EventsMsg{Stream: 0, Events: tt.events})

			re := newTestModel(t, hostOptions(fixtureHost()), 120, 40)
			gen := startHeldRerun(t, re)
			re.Update(EventsMsg{Stream: gen, Events: tt.events})

			if first.progress != tt.want {
				t.Fatalf("first run counted %+v, want %+v", first.progress, tt.want)
			}
			if re.rerun == nil {
				t.Fatal("the re-run ended before its stream closed")
			}
			if got := re.rerun.progress; got != first.progress {
				t.Fatalf("the same events counted differently:\nre-run    %+v\nfirst run %+v", got, first.progress)
			}
			head := ansi.Strip(strings.Join(first.headerLines(), "\n"))
			line := ansi.Strip(re.compareLine())
			for _, w := range tt.screen {
				if !strings.Contains(head, w) || !strings.Contains(line, w) {
					t.Fatalf("%q missing from the header %q or the re-run line %q", w, head, line)
				}
			}
		})
	}
}

func TestStaleRerunStreamIsDropped(t *testing.T) {
	stale := fixtureResults()[0]
	stale.Scores = maps.Clone(stale.Scores)
	stale.Scores[eval.Faithfulness] = score(0.05)
	tests := []struct {
		name    string
		another bool // a second re-run is in progress when the first's events arrive
	}{
		{"no re-run in progress", false},
		{"a newer re-run in progress", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := fixtureHost()
			m := newTestModel(t, hostOptions(h), 120, 40)
			applyFilter(m, "f<0.5")
			pressDrive(t, m, "R", "y", "esc")
			if m.rerun != nil || m.runID != "run-2" {
				t.Fatalf("the first re-run did not finish (current run %q)", m.runID)
			}
			old := m.gen
			if tt.another {
				h.rerunID = "run-3"
				startHeldRerun(t, m)
			}
			row := m.result(m.rows[m.rowAt(0)])
			var before progress
			if m.rerun != nil {
				before = m.rerun.progress
			}

			m.Update(EventsMsg{Stream: old, Events: []eval.Event{finished(stale), {Kind: eval.EventCall, Call: &eval.CallRecord{}}}})
			m.Update(streamClosedMsg{stream: old})

			if got := m.result(m.rows[m.rowAt(0)]); got != row {
				t.Fatalf("a stale stream replaced sample 0 (faithfulness %v)", *got.Scores[eval.Faithfulness])
			}
			if tt.another {
				if m.rerun == nil {
					t.Fatal("the stale stream's close finished the newer re-run")
				}
				if m.rerun.progress != before {
					t.Fatalf("the stale stream counted into the newer re-run: %+v", m.rerun.progress)
				}
			}
		})
	}
}

func TestRerunResultIsShownAsIs(t *testing.T) {
	m := newTestModel(t, hostOptions(fixtureHost()), 120, 40)
	gen := startHeldRerun(t, m)
	parent := m.result(m.rows[m.rowAt(0)])

	// The Host merged the re-run metric into the parent's result; here it
	// also dropped context recall, which the interface must not put back.
	merged := eval.Merge(parent, rerunFixture()[0], []eval.Metric{eval.Faithfulness})
	delete(merged.Status, eval.ContextRecall)
	delete(merged.Scores, eval.ContextRecall)
	m.Update(EventsMsg{Stream: gen, Events: []eval.Event{finished(merged)}})
	if got := m.result(m.rows[m.rowAt(0)]); got != merged {
		t.Fatal("the row does not show the Host's result as it came")
	}
	if _, ok := merged.Status[eval.ContextRecall]; ok {
		t.Fatal("the result was changed on its way to the row")
	}
	if m.cmp.base[0].res != parent {
		t.Fatal("the comparison's before is not what the row showed")
	}
	if d := m.rowDelta(m.rows[m.rowAt(0)], eval.Faithfulness); d.kind != deltaValue || d.v < 0.33 || d.v > 0.34 {
		t.Fatalf("faithfulness delta %+v, want +0.333", d)
	}

	// A second result for the sample still compares with the parent.
	again := eval.Merge(parent, fixtureResults()[0], []eval.Metric{eval.Faithfulness})
	m.Update(EventsMsg{Stream: gen, Events: []eval.Event{finished(again)}})
	if m.result(m.rows[m.rowAt(0)]) != again || m.cmp.base[0].res != parent {
		t.Fatal("a second result of the sample moved the before")
	}
}

func TestStreamClosed(t *testing.T) {
	t.Run("a re-run finishes when its stream closes", func(t *testing.T) {
		m := newTestModel(t, hostOptions(fixtureHost()), 120, 40)
		gen := startHeldRerun(t, m)
		ev := rerunEvents()
		m.Update(EventsMsg{Stream: gen, Events: ev})
		if m.rerun == nil {
			t.Fatal("EventRunFinished ended the re-run before its stream closed")
		}
		m.Update(streamClosedMsg{stream: gen})
		if m.rerun != nil || m.runID != "run-2" {
			t.Fatalf("the re-run did not finish: rerun %v, current run %q", m.rerun != nil, m.runID)
		}
		if s := flat(screenText(m)); !strings.Contains(s, "re-run run-2 finished: 2 of 2 samples re-scored, 2 calls sent, 2 from the cache") {
			t.Fatalf("no summary of the re-run:\n%s", screenText(m))
		}
	})
	t.Run("the first run's close adds nothing to its EventRunFinished", func(t *testing.T) {
		tests := []struct {
			name     string
			events   []eval.Event
			wantLive bool
		}{
			{"after EventRunFinished", []eval.Event{{Kind: eval.EventRunFinished, Sample: -1, Time: fixedStart.Add(time.Minute)}}, false},
			{"cut short", []eval.Event{{Kind: eval.EventSampleStarted, Sample: 0}}, true},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				m := newTestModel(t, Options{Live: true, Started: fixedStart}, 100, 30)
				m.Update(EventsMsg{Events: tt.events})
				before := screenText(m)
				if _, cmd := m.Update(streamClosedMsg{stream: 0}); cmd != nil {
					t.Fatal("closing the first run's stream produced a command")
				}
				if m.live != tt.wantLive || screenText(m) != before {
					t.Fatalf("live %v (want %v), screen changed:\n%s", m.live, tt.wantLive, screenText(m))
				}
			})
		}
	})
}

// Init runs the first run's stream through Forward, tagged 0, and reports
// its end after the last batch.
func TestInitForwardsTheFirstRun(t *testing.T) {
	res := fixtureResults()
	ch := make(chan eval.Event, 8)
	for _, ev := range []eval.Event{
		{Kind: eval.EventRunStarted, Sample: -1, Total: 2},
		{Kind: eval.EventCall, Call: &eval.CallRecord{Tokens: eval.Usage{PromptTokens: 7}}},
		finished(res[0]),
		finished(res[1]),
		{Kind: eval.EventRunFinished, Sample: -1},
	} {
		ch <- ev
	}
	close(ch)
	m := newTestModel(t, Options{Live: true, Started: fixedStart}, 100, 30)
	m.events = ch
	var sent []tea.Msg
	m.send = func(msg tea.Msg) { sent = append(sent, msg) }

	cmd := m.Init()
	if cmd == nil {
		t.Fatal("Init starts nothing")
	}
	cmds := []tea.Cmd{cmd}
	if batch, ok := cmd().(tea.BatchMsg); ok {
		cmds = batch // the stream and the clock
	}
	// The clock's tick takes a second and is not waited for; the stream's
	// end is, and every batch was sent before it.
	out := make(chan tea.Msg, len(cmds))
	for _, c := range cmds {
		go func() { out <- c() }()
	}
	var closed *streamClosedMsg
	for closed == nil {
		select {
		case msg := <-out:
			if c, ok := msg.(streamClosedMsg); ok {
				closed = &c
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the stream did not close")
		}
	}
	if closed.stream != 0 {
		t.Fatalf("closed stream %d, want 0", closed.stream)
	}
	for _, msg := range sent {
		em := msg.(EventsMsg)
		if em.Stream != 0 {
			t.Fatalf("a batch of the first run tagged %d", em.Stream)
		}
		m.Update(em)
	}
	m.Update(*closed)
	if m.live || m.progress.done != 2 || m.progress.tokens != 7 || len(m.rows) != 2 {
		t.Fatalf("live %v, progress %+v, %d rows", m.live, m.progress, len(m.rows))
	}
}

// blockingHost feeds its re-run through an unbuffered channel, as a busy
// engine does: fed closes only once someone has read every event.
type blockingHost struct {
	*fakeHost
	fed chan struct{}
}

func (h blockingHost) Rerun(context.Context, Plan) (string, <-chan eval.Event, error) {
	ch := make(chan eval.Event)
	go func() {
		defer close(h.fed)
		for _, ev := range rerunEvents() {
			ch <- ev
		}
		close(ch)
	}()
	return "run-2", ch, nil
}

func TestQuitDrainsTheRerun(t *testing.T) {
	tests := []struct {
		name    string
		started bool // the model read the Host's reply before the quit
	}{
		{"quit before the reply is read", false},
		{"quit before the stream ran", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := blockingHost{fakeHost: fixtureHost(), fed: make(chan struct{})}
			m := newTestModel(t, hostOptions(h), 120, 40)
			pressDrive(t, m, "R")
			msg := press(m, "y")()
			rr := m.rerun
			if tt.started {
				m.Update(msg) // its stream command is never run
			}
			press(m, "q")
			if !isQuit(press(m, "y")) {
				t.Fatal("y does not quit")
			}
			if rr.ctx.Err() == nil {
				t.Fatal("quitting did not cancel the re-run")
			}
			select {
			case <-h.fed:
			case <-time.After(10 * time.Second):
				t.Fatal("the re-run's events are not drained after the quit: the engine blocks")
			}
		})
	}
}
