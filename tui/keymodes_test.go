package tui

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
)

// keyModeCases are the modes a user meets, each built fresh for every key
// tried, with the cursor off the edges so a movement key has somewhere to
// go. The status line is cleared at the end: what a key does is then all
// that changes the screen.
func keyModeCases() []struct {
	name  string
	setup func(t *testing.T) *Model
} {
	build := func(opts Options, keys ...string) func(t *testing.T) *Model {
		return func(t *testing.T) *Model {
			m := newTestModel(t, opts, 200, 40)
			for _, k := range keys {
				// The filter bar's commands blink its cursor forever: they
				// are not run.
				if m.mode == modeFilter || k == "/" {
					press(m, k)
				} else {
					pressDrive(t, m, k)
				}
			}
			m.clearStatus()
			return m
		}
	}
	host := func() Options { return hostOptions(deltaHost()) }
	readOnly := fixtureOptions()
	readOnly.Host = readOnlyHost{deltaHost()}
	live := host()
	live.Live, live.Cancel = true, func() {}
	attached := fixtureOptions()
	attached.Live, attached.Attached, attached.Cancel = true, true, func() {}
	watchOnly := fixtureOptions()
	watchOnly.Live, watchOnly.Attached = true, true
	withRaw := host()
	withRaw.RawCalls = func([]string) (string, error) { return strings.Repeat("a raw judge call\n", 80), nil }
	compare := []string{"c", "j", "enter", "k", "enter", "j"}

	return []struct {
		name  string
		setup func(t *testing.T) *Model
	}{
		{"table, offline run", build(fixtureOptions(), "j")},
		{"table, LLM-judged run", build(host(), "j")},
		{"table, ragscope open (read-only)", build(readOnly, "j")},
		{"table, run in progress", build(live, "j")},
		{"table, attached run", build(attached, "j")},
		{"table, attached run that cannot be stopped from here", build(watchOnly, "j")},
		{"table, filtered", build(host(), "/", "s", "t", "a", "t", "u", "s", ":", "o", "k", "enter", "j")},
		{"table, filter matching nothing", build(host(), "/", "z", "z", "z", "enter")},
		{"table, comparing", build(host(), compare...)},
		{"table, comparing, filtered on the change", build(host(), append(compare, "/", "d", "f", "<", "=", "0", "enter", "j")...)},
		{"table, re-run in progress", func(t *testing.T) *Model {
			m := newTestModel(t, hostOptions(fixtureHost()), 200, 40)
			pressDrive(t, m, "R")
			press(m, "y") // the reply below stands in for Host.Rerun's
			m.Update(rerunStartedMsg{gen: m.rerun.gen, id: "run-2", events: make(chan eval.Event)})
			press(m, "j")
			m.clearStatus()
			return m
		}},
		{"detail, offline run", build(fixtureOptions(), "j", "enter", "j")},
		{"detail, LLM-judged run", build(host(), "j", "enter", "j")},
		{"detail, read-only", build(readOnly, "j", "enter", "j")},
		{"detail, run in progress", build(live, "j", "enter", "j")},
		{"detail, comparing", build(host(), append(compare, "enter", "j")...)},
		{"raw judge calls", build(withRaw, "j", "enter", "x", "j")},
		{"judge prompts", build(host(), "p", "j")},
		{"run picker", build(host(), "c", "j")},
		{"filter bar", build(host(), "/", "f", "<")},
	}
}

// TestFooterShowsTheKeysThatWork walks every mode and tries every key of
// the key map: each key the footer shows works; each key that works is in
// the footer or on the ? page; each key refused says why, is in neither,
// and the ? page says it is off. Keys a mode ignores are in neither too.
func TestFooterShowsTheKeysThatWork(t *testing.T) {
	for _, mc := range keyModeCases() {
		t.Run(mc.name, func(t *testing.T) {
			m := mc.setup(t)
			km := m.keyMode()
			h := km.help()
			lines := strings.Split(screenText(m), "\n")
			footer := lines[len(lines)-1]
			for _, b := range h.short {
				if w := b.Help().Key + " " + b.Help().Desc; !strings.Contains(footer, w) {
					t.Errorf("the footer misses %q: %q", w, footer)
				}
				if got, why := tryKey(t, mc.setup, b.Keys()[0]); got != keyWorks {
					t.Errorf("the footer shows %q, which %s (%s)", b.Keys()[0], got, why)
				}
			}
			listed := visibleKeys(h)
			textKeys := inputKeys(m)
			for _, k := range keyMapKeys(m.keys) {
				got, why := tryKey(t, mc.setup, k)
				switch {
				case got == keyWorks && !listed[k] && !(m.mode == modeFilter && textKeys[k]):
					t.Errorf("%q works here but neither the footer nor the ? page shows it", k)
				case got == keyRefused && listed[k]:
					t.Errorf("%q is refused (%s) but shown", k, why)
				case got == keyRefused && why == "":
					t.Errorf("%q is refused without a reason", k)
				}
			}
			if m.mode == modeFilter {
				return // ? is text there
			}
			press(m, "?")
			page := flat(screenText(m))
			for _, col := range h.full {
				for _, b := range col {
					if w := b.Help().Key + " " + b.Help().Desc; !strings.Contains(page, w) {
						t.Errorf("the ? page misses %q:\n%s", w, screenText(m))
					}
				}
			}
			for _, b := range km.help().off {
				if w := b.Help().Key + " " + b.Help().Desc; !strings.Contains(page, "Off now, pressing one says why:") || !strings.Contains(page, w) {
					t.Errorf("the ? page does not say %q is off:\n%s", w, screenText(m))
				}
			}
		})
	}
}

// What the footer offers in the modes a new user asked about.
func TestFooterPerMode(t *testing.T) {
	tests := []struct {
		mode     string
		has, not []string
	}{
		{"table, ragscope open (read-only)", []string{"enter open", "c compare", "q quit"}, []string{"R re-run", "p prompts", "esc"}},
		{"table, offline run", []string{"enter open", "/ filter"}, []string{"R re-run", "p prompts", "c compare", "X stop"}},
		{"table, run in progress", []string{"p prompts"}, []string{"R re-run", "c compare"}},
		{"table, attached run", []string{"q quit, run goes on", "X stop run"}, nil},
		{"table, attached run that cannot be stopped from here", []string{"q quit, run goes on"}, []string{"X stop"}},
		{"table, filtered", []string{"esc clear filter", "R re-run filtered"}, []string{"leave compare"}},
		{"table, filter matching nothing", []string{"/ filter", "esc clear filter"}, []string{"enter open", "R re-run"}},
		{"table, comparing", []string{"esc leave compare", "c compare"}, []string{"R re-run", "clear filter"}},
		{"table, re-run in progress", []string{"p prompts"}, []string{"R re-run", "c compare", "esc leave compare"}},
		{"detail, read-only", []string{"esc back", "x raw calls"}, []string{"r re-run", "P prompts"}},
		{"detail, comparing", []string{"esc back", "P prompts"}, []string{"r re-run"}},
		{"filter bar", []string{"enter apply", "esc cancel", "ctrl+c quit now"}, []string{"open", "sort", "? help"}},
	}
	cases := map[string]func(t *testing.T) *Model{}
	for _, mc := range keyModeCases() {
		cases[mc.name] = mc.setup
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			setup, ok := cases[tt.mode]
			if !ok {
				t.Fatalf("no mode %q", tt.mode)
			}
			lines := strings.Split(screenText(setup(t)), "\n")
			footer := lines[len(lines)-1]
			for _, w := range tt.has {
				if !strings.Contains(footer, w) {
					t.Errorf("footer misses %q: %q", w, footer)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(footer, w) {
					t.Errorf("footer offers %q: %q", w, footer)
				}
			}
		})
	}
}

type keyOutcome int

const (
	keyIgnored keyOutcome = iota
	keyWorks
	keyRefused
)

func (o keyOutcome) String() string {
	return [...]string{"does nothing", "works", "is refused"}[o]
}

// tryKey presses k on a fresh model of the mode: refused when it leaves an
// error on the status line, works when it changes the screen or starts a
// command, ignored otherwise.
func tryKey(t *testing.T, setup func(t *testing.T) *Model, k string) (keyOutcome, string) {
	t.Helper()
	m := setup(t)
	// Styles count: enter on a half-typed filter turns its hint into an error.
	before := m.View().Content
	_, cmd := m.Update(keyPress(k))
	switch {
	case m.status.err:
		return keyRefused, m.status.text
	case cmd != nil || m.View().Content != before:
		return keyWorks, ""
	}
	return keyIgnored, ""
}

// keyPress is keyMsg, with the space bar.
func keyPress(k string) tea.KeyPressMsg {
	if k == "space" {
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	return keyMsg(k)
}

// keyMapKeys are the keys of every binding of the key map, found by
// reflection so a binding added later is tried too.
func keyMapKeys(km keyMap) []string {
	var out []string
	for _, b := range bindingsOf(km) {
		for _, k := range b.Keys() {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

func bindingsOf(v any) []key.Binding {
	var out []key.Binding
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		if b, ok := rv.Field(i).Interface().(key.Binding); ok {
			out = append(out, b)
		}
	}
	return out
}

// visibleKeys are the keys of the bindings the footer or the ? page shows.
func visibleKeys(h helpMap) map[string]bool {
	out := map[string]bool{}
	for _, b := range h.short {
		for _, k := range b.Keys() {
			out[k] = true
		}
	}
	for _, col := range h.full {
		for _, b := range col {
			for _, k := range b.Keys() {
				out[k] = true
			}
		}
	}
	return out
}

// inputKeys are the keys the filter bar's text input edits with.
func inputKeys(m *Model) map[string]bool {
	out := map[string]bool{}
	for _, b := range bindingsOf(m.input.KeyMap) {
		for _, k := range b.Keys() {
			out[k] = true
		}
	}
	for _, k := range keyMapKeys(m.keys) {
		if keyPress(k).Text != "" {
			out[k] = true // typed
		}
	}
	return out
}

// The ? page fits 80x24 in full, the line of keys that are off included:
// its last line of text is the score legend's.
func TestHelpPageFits80x24(t *testing.T) {
	readOnly := fixtureOptions()
	readOnly.Host = readOnlyHost{deltaHost()}
	tests := []struct {
		name string
		opts Options
		keys []string
		off  string
	}{
		{"offline table", fixtureOptions(), nil, "p prompts, R re-run filtered, c compare runs"},
		{"read-only table", readOnly, nil, "p prompts, R re-run filtered"},
		{"read-only detail", readOnly, []string{"enter"}, "r re-run (1-4 picks a metric), P prompts"},
		{"table with a host", hostOptions(deltaHost()), nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(t, tt.opts, 80, 24)
			press(m, tt.keys...)
			press(m, "?")
			lines := strings.Split(screenText(m), "\n")
			if len(lines) != 24 || !strings.Contains(strings.Join(lines, "\n"), "err failed.") || !strings.Contains(lines[23], "? or esc closes") {
				t.Fatalf("the page does not fit:\n%s", strings.Join(lines, "\n"))
			}
			if got := strings.Contains(lines[1], "Off now, pressing one says why: "+tt.off); got != (tt.off != "") || tt.off == "" && strings.TrimSpace(lines[1]) != "" {
				t.Fatalf("off line %q, want %q", lines[1], tt.off)
			}
		})
	}
}
