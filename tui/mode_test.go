package tui

import (
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// A re-run's question comes back from the Host after the key that asked
// for it: the user may have opened the filter bar or the ? page meanwhile.
// The question takes the next key, whatever the mode, and the keyboard then
// goes back to the mode it interrupted, with the bar's text as it was;
// the ? page, which cannot show a question, is closed by it.
func TestQuestionArrivingInAnotherMode(t *testing.T) {
	for _, tt := range []struct {
		name   string
		open   []string // keys pressed while the cost is asked of the Host
		answer string
		mode   mode
	}{
		{"filter bar, n", []string{"/", "f", "<"}, "n", modeFilter},
		{"filter bar, y", []string{"/", "f", "<"}, "y", modeFilter},
		// The ? page has no question line: the question closes it.
		{"help page, n", []string{"?"}, "n", modeScreen},
		{"help page, y", []string{"?"}, "y", modeScreen},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := fixtureHost()
			m := newTestModel(t, hostOptions(h), 120, 40)
			plan := press(m, "R")
			if plan == nil {
				t.Fatal("R asked nothing of the Host")
			}
			press(m, tt.open...)
			_, cmd := m.Update(plan())
			if cmd != nil || m.mode != modeAsk || m.ask == nil {
				t.Fatalf("the cost did not ask: mode %v, ask %v", m.mode, m.ask)
			}
			if s := flat(screenText(m)); !strings.Contains(s, "Re-run 8 samples (all metrics)?") {
				t.Fatalf("question not on screen:\n%s", screenText(m))
			}
			if tt.mode == modeFilter && !strings.Contains(screenText(m), "/ f<") {
				t.Fatalf("the filter bar left the screen under the question:\n%s", screenText(m))
			}
			pressDrive(t, m, tt.answer)
			if m.mode != tt.mode || m.ask != nil {
				t.Fatalf("after %s: mode %v, ask %v; want mode %v", tt.answer, m.mode, m.ask, tt.mode)
			}
			wantReruns := 0
			if tt.answer == "y" {
				wantReruns = 1
			}
			if len(h.reran) != wantReruns {
				t.Fatalf("%s: %d re-runs, want %d", tt.answer, len(h.reran), wantReruns)
			}
			if tt.mode != modeFilter {
				return
			}
			// The answer was not typed into the bar, and the bar goes on.
			if got := m.input.Value(); got != "f<" {
				t.Fatalf("filter bar holds %q after the answer, want f<", got)
			}
			typeText(m, "0.5")
			press(m, "enter")
			if m.mode != modeScreen || m.filter == nil || m.filter.src != "f<0.5" {
				t.Fatalf("the filter was not applied after the question: mode %v, filter %+v", m.mode, m.filter)
			}
		})
	}
}

// The question to quit a live run no longer applies once the run ends: it
// goes, and the key after it is the table's.
func TestQuitQuestionDroppedWhenRunEnds(t *testing.T) {
	opts := fixtureOptions()
	opts.Live, opts.Cancel = true, func() {}
	m := newTestModel(t, opts, 120, 40)
	if cmd := press(m, "q"); isQuit(cmd) || m.mode != modeAsk {
		t.Fatalf("q on a live run: quit %v, mode %v", isQuit(cmd), m.mode)
	}
	m.Update(EventsMsg{Events: []eval.Event{{Kind: eval.EventRunFinished}}})
	if m.mode != modeScreen || m.ask != nil || strings.Contains(screenText(m), "Quit and stop the run?") {
		t.Fatalf("the run ended under the question: mode %v\n%s", m.mode, screenText(m))
	}
	press(m, "j")
	if cursorSample(m) != 1 {
		t.Fatalf("j after the run ended: cursor on %d", cursorSample(m))
	}
}
