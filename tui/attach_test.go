package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/mattn/go-runewidth"

	"github.com/ragscope/ragscope/eval"
)

// pressRun presses keys as the program would: each key's command runs and
// its message goes back into the model. It reports whether one quit.
func pressRun(m *Model, keys ...string) (quit bool) {
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		if cmd == nil {
			continue
		}
		msg := cmd()
		if _, ok := msg.(tea.QuitMsg); ok {
			quit = true
			continue
		}
		if msg != nil {
			m.Update(msg)
		}
	}
	return quit
}

func TestAttachedRun(t *testing.T) {
	finish := EventsMsg{Events: []eval.Event{{Kind: eval.EventRunFinished, Sample: -1, Time: fixedStart.Add(3e9)}}}
	tests := []struct {
		name       string
		noCancel   bool
		finished   bool // the run's EventRunFinished arrived first
		keys       []string
		wantQuit   bool
		wantCancel bool
		want       string // on the screen after the keys
	}{
		{name: "q leaves at once, the run goes on", keys: []string{"q"}, wantQuit: true},
		{name: "ctrl+c too", keys: []string{"ctrl+c"}, wantQuit: true},
		{name: "from the detail page", keys: []string{"enter", "q"}, wantQuit: true},
		{name: "X asks", keys: []string{"X"}, want: "Stop run run-7? It is running in another process. [y/n]"},
		{name: "X then y stops it", keys: []string{"X", "y"}, wantCancel: true, want: "asked run run-7 to stop"},
		{name: "X then n keeps it", keys: []string{"X", "n"}},
		{name: "q after X and y is no longer leaving it running", keys: []string{"X", "y", "q"}, wantQuit: true, wantCancel: true},
		{name: "X without a Cancel", noCancel: true, keys: []string{"X"}, want: "run run-7 cannot be stopped from here"},
		{name: "q once the run finished", finished: true, keys: []string{"q"}, wantQuit: true},
		{name: "X once the run finished does nothing", finished: true, keys: []string{"X"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cancelled := 0
			opts := fixtureOptions()
			opts.Live, opts.Attached, opts.RunID = true, true, "run-7"
			opts.Cancel = func() { cancelled++ }
			if tt.noCancel {
				opts.Cancel = nil
			}
			m := newTestModel(t, opts, 100, 30)
			if tt.finished {
				m.Update(finish)
			}
			quit := pressRun(m, tt.keys...)
			if quit != tt.wantQuit {
				t.Fatalf("quit = %v, want %v", quit, tt.wantQuit)
			}
			if (cancelled > 0) != tt.wantCancel || cancelled > 1 {
				t.Fatalf("Cancel called %d times, want it called: %v", cancelled, tt.wantCancel)
			}
			if s := flat(screenText(m)); tt.want != "" && !strings.Contains(s, tt.want) {
				t.Fatalf("screen misses %q:\n%s", tt.want, screenText(m))
			}
			if s := screenText(m); !quit && strings.Contains(s, "Quit and stop the run?") {
				t.Fatalf("an attached run asks to stop on quit:\n%s", s)
			}
		})
	}
}

func TestRunOfThisProcessHasNoX(t *testing.T) {
	cancelled := false
	opts := fixtureOptions()
	opts.Live = true
	opts.Cancel = func() { cancelled = true }
	m := newTestModel(t, opts, 100, 30)
	before := screenText(m)
	if pressRun(m, "X") || cancelled || screenText(m) != before {
		t.Fatal("X acted on a run of this process")
	}
	if strings.Contains(before, "X stop") {
		t.Fatal("the footer offers X for a run of this process")
	}
	if pressRun(m, "q", "y"); !cancelled {
		t.Fatal("q y did not cancel the run")
	}
}

// The footer says what q does to an attached run, and offers X, even on
// 80 columns; once the run has finished q is a plain quit again.
func TestAttachedFooter(t *testing.T) {
	tests := []struct {
		name string
		keys []string
	}{
		{"table", nil},
		{"detail", []string{"enter"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := fixtureOptions()
			opts.Live, opts.Attached, opts.RunID = true, true, "run-7"
			opts.Banner, opts.EndBanner = "live run run-7; q leaves it running", "run run-7 has ended"
			opts.Cancel = func() {}
			m := newTestModel(t, opts, 80, 24)
			press(m, tt.keys...)
			lines := strings.Split(screenText(m), "\n")
			footer := lines[len(lines)-1]
			for _, w := range []string{"q quit, run goes on", "X stop run"} {
				if !strings.Contains(footer, w) {
					t.Fatalf("footer misses %q: %q", w, footer)
				}
			}
			m.Update(EventsMsg{Events: []eval.Event{{Kind: eval.EventRunFinished, Sample: -1}}})
			lines = strings.Split(screenText(m), "\n")
			footer = lines[len(lines)-1]
			if !strings.Contains(footer, "q quit") || strings.Contains(footer, "goes on") || strings.Contains(footer, "X stop") {
				t.Fatalf("a finished run's footer: %q", footer)
			}
			if s := screenText(m); tt.keys == nil && (!strings.Contains(s, "run run-7 has ended") || strings.Contains(s, "q leaves it running")) {
				t.Fatalf("a finished run's banner still says it runs:\n%s", s)
			}
		})
	}
}

// The help page is generated from the key map and must fit 80 columns.
// The table's must keep every column there (the help component drops
// those that do not fit); the detail page's three need 84 cells, so on 80
// its last one goes, as it did before X, and the footer carries its keys.
func TestHelpFits80Columns(t *testing.T) {
	tests := []struct {
		name     string
		attached bool
		detail   bool
	}{
		{"table", false, false},
		{"table, attached run", true, false},
		{"detail", false, true},
		{"detail, attached run", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := hostOptions(fixtureHost())
			if tt.attached {
				opts.Live, opts.Attached = true, true
				opts.Cancel = func() {}
			}
			m := newTestModel(t, opts, 80, 40)
			if tt.detail {
				press(m, "enter")
			}
			press(m, "?")
			s := screenText(m)
			for i, l := range strings.Split(s, "\n") {
				if w := runewidth.StringWidth(l); w > 80 {
					t.Fatalf("help line %d is %d cells wide: %q", i, w, l)
				}
			}
			if tt.detail {
				return
			}
			for _, col := range m.keyMode().help().full {
				for _, b := range col {
					if !b.Enabled() {
						continue
					}
					if w := b.Help().Key + " " + b.Help().Desc; !strings.Contains(flat(s), w) {
						t.Fatalf("help misses %q:\n%s", w, s)
					}
				}
			}
			if got := strings.Contains(s, "stop run"); got != tt.attached {
				t.Fatalf("X listed = %v, want %v:\n%s", got, tt.attached, s)
			}
		})
	}
}
