package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/ragscope/ragscope/eval/report/labels"
)

// fullOptions is the fixture with every workflow on: a host (prompts,
// re-runs, compare) and human labels.
func fullOptions() Options {
	opts := hostOptions(fixtureHost())
	opts.Labels = &fakeLabels{labels: map[string]labels.Label{}}
	return opts
}

// TestHelpPageAt80x24: the ? page of the table and of the detail page
// names every key that works, none cut, on 24 rows of 80 columns.
func TestHelpPageAt80x24(t *testing.T) {
	for _, tt := range []struct {
		name string
		keys []string
	}{{"table", nil}, {"detail", []string{"enter"}}} {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(t, fullOptions(), 80, 24)
			drive(t, m, m.Init())
			pressDrive(t, m, tt.keys...)
			km := m.keyMode()
			press(m, "?")
			s := screenText(m)
			lines := strings.Split(s, "\n")
			if len(lines) > 24 || lines[len(lines)-1] != "? or esc closes this page" {
				t.Errorf("the page does not fit 24 rows (%d lines):\n%s", len(lines), s)
			}
			for _, l := range lines[2:] {
				if ansi.StringWidth(l) > 80 || strings.Contains(l, "…") {
					t.Errorf("a cut line: %q", l)
				}
			}
			for _, col := range km.help().full {
				for _, b := range col {
					if !strings.Contains(s, b.Help().Desc) {
						t.Errorf("the page lacks %s %s:\n%s", b.Help().Key, b.Help().Desc, s)
					}
				}
			}
		})
	}
}

// TestHelpPageScrollsAt60x15: on the smallest terminal shown, the ? page
// scrolls (its foot says where), and every key and the legend are reached.
func TestHelpPageScrollsAt60x15(t *testing.T) {
	m := newTestModel(t, fullOptions(), 60, 15)
	drive(t, m, m.Init())
	km := m.keyMode()
	press(m, "?")
	seen := screenText(m)
	if !strings.Contains(seen, "lines 1-14 of") || !strings.Contains(seen, "j/k scroll") {
		t.Fatalf("the page's foot does not say it scrolls:\n%s", seen)
	}
	for range 40 {
		press(m, "j")
		seen += "\n" + screenText(m)
	}
	if m.mode != modeHelp {
		t.Fatal("j closed the page")
	}
	for _, want := range []string{"'-' not evaluated", "quit now", "? or esc closes this page"} {
		if !strings.Contains(seen, want) {
			t.Errorf("scrolled to its end, the page never showed %q", want)
		}
	}
	for _, col := range km.help().full {
		for _, b := range col {
			if !strings.Contains(seen, b.Help().Desc) {
				t.Errorf("the page never showed %s %s", b.Help().Key, b.Help().Desc)
			}
		}
	}
	press(m, "g")
	if s := screenText(m); !strings.Contains(s, "lines 1-14 of") {
		t.Errorf("g does not go back to the top:\n%s", s)
	}
}

// TestTableFooterAt80: at 80 columns the table's footer names compare and
// the agreement panel, not only the keys every screen has.
func TestTableFooterAt80(t *testing.T) {
	m := newTestModel(t, fullOptions(), 80, 24)
	drive(t, m, m.Init())
	lines := strings.Split(screenText(m), "\n")
	footer := lines[len(lines)-1]
	for _, w := range []string{"enter open", "/ filter", "c compare", "A agreement", "? help", "q quit"} {
		if !strings.Contains(footer, w) {
			t.Errorf("footer misses %q: %q", w, footer)
		}
	}
}

// TestGoldenNarrow: the ? pages and the agreement panel at 80x24, every
// workflow on. Update with -update.
func TestGoldenNarrow(t *testing.T) {
	for _, tt := range []struct {
		name string
		keys []string
		wait string
	}{
		{"help_table", []string{"?"}, "closes this page"},
		{"help_detail", []string{"enter", "?"}, "closes this page"},
		{"agreement", []string{"A"}, "context_utilization_verdict"}, // counted, not "counting…"
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := New(fullOptions())
			m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
			requireGoldenFrame(t, m, [2]int{80, 24}, tt.keys, tt.wait)
		})
	}
}

// TestAgreementAt80x24: the agreement panel's tables fit 80 columns, and
// every row's columns start where their titles do (context_entity_recall
// is longer than the other names).
func TestAgreementAt80x24(t *testing.T) {
	m := newTestModel(t, fullOptions(), 80, 24)
	drive(t, m, m.Init())
	pressDrive(t, m, "A")
	s := screenText(m)
	lines := strings.Split(s, "\n")
	for _, title := range []string{"task", "metric"} {
		at := -1
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), title+" ") {
				at = i
			}
		}
		if at < 0 {
			t.Fatalf("no %s table:\n%s", title, s)
		}
		col := strings.Index(lines[at], "labelled")
		for _, l := range lines[at+1:] {
			if strings.TrimSpace(l) == "" {
				break
			}
			if strings.Contains(l, "…") || ansi.StringWidth(l) > 80 {
				t.Errorf("a cut row: %q", l)
			}
			if f := strings.Fields(l); len(f) < 2 || strings.Index(l, " "+f[1]+" ")+1 != col {
				t.Errorf("the %s table's row %q does not line up with its titles %q", title, l, lines[at])
			}
		}
	}
}
