package tui

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// storeOf is a stored run for Options.Summaries and Options.Load: pages
// of at most per results (fewer than asked, as a store may return), loads
// that count themselves and fail for the indexes in fail.
type storeOf struct {
	results []*eval.Result
	per     int
	loads   int
	fail    map[int]bool
}

func (s *storeOf) page(from, limit int) ([]*eval.Result, int, error) {
	from = min(from, len(s.results)) // a page past the last sample is empty
	end := min(from+min(limit, s.per), len(s.results))
	next := end
	if end >= len(s.results) {
		next = -1
	}
	return s.results[from:end], next, nil
}

// summaries reads the pages as Options.Summaries.
func (s *storeOf) summaries(from, limit int, fn func(*eval.Result) error) (int, error) {
	return pagesAsSummaries(s.page)(from, limit, fn)
}

// pagesAsSummaries reads whole pages as Options.Summaries.
func pagesAsSummaries(page func(from, limit int) ([]*eval.Result, int, error)) func(from, limit int, fn func(*eval.Result) error) (int, error) {
	return func(from, limit int, fn func(*eval.Result) error) (int, error) {
		rs, next, err := page(from, limit)
		for _, r := range rs {
			if err := fn(r); err != nil {
				return -1, err
			}
		}
		return next, err
	}
}

func (s *storeOf) load(index int) (*eval.Result, error) {
	s.loads++
	if s.fail[index] {
		return nil, errors.New("disk on fire")
	}
	return s.results[index], nil
}

// run delivers a command's message and the messages of the commands that
// follow from it, the way the program would, without timers.
func run(m *Model, cmd tea.Cmd) {
	for cmd != nil {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				run(m, c)
			}
			return
		}
		_, cmd = m.Update(msg)
	}
}

// A stored run is read page by page into compact rows: the table is drawn
// from the first page on, and the header counts what has come.
func TestStoredRunFillsPageByPage(t *testing.T) {
	st := &storeOf{results: fixtureResults(), per: 3}
	opts := fixtureOptions()
	opts.Results, opts.Summaries, opts.Load, opts.Total = nil, st.summaries, st.load, 8
	m := newTestModel(t, opts, 120, 40)

	_, cmd := m.Update(m.readPage(0)())
	if len(m.rows) != 3 || !m.reading {
		t.Fatalf("after the first page: %d rows, reading %v", len(m.rows), m.reading)
	}
	if s := screenText(m); !strings.Contains(s, "reading the run: 3 of 8 samples") || !strings.Contains(s, fixtureResults()[0].Question[:9]) {
		t.Fatalf("the first page is not on screen:\n%s", s)
	}
	run(m, cmd)
	if len(m.rows) != 8 || m.reading || len(m.shown) != 8 || m.progress.done != 8 {
		t.Fatalf("after the last page: %d rows, %d shown, done %d, reading %v", len(m.rows), len(m.shown), m.progress.done, m.reading)
	}
	if strings.Contains(screenText(m), "reading the run") {
		t.Fatal("the reading line outlived the read")
	}
	if n := len(m.full.pinned) + len(m.full.recent); n != 0 {
		t.Fatalf("%d full results kept after reading a stored run; want none until one is opened", n)
	}
}

// Opening a sample reads its full result through Load: the page says
// loading until it comes, an error is shown on the page, and a result in
// memory is not read again.
func TestOpenLoadsTheFullResult(t *testing.T) {
	tests := []struct {
		name  string
		fail  bool
		want  string
		loads int
	}{
		{"loaded", false, "Retrieved chunks", 1},
		{"failed", true, "cannot read this sample from the store: disk on fire", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &storeOf{results: fixtureResults(), per: 100, fail: map[int]bool{0: tt.fail}}
			opts := fixtureOptions()
			opts.Results, opts.Summaries, opts.Load = nil, st.summaries, st.load
			m := newTestModel(t, opts, 120, 40)
			run(m, m.readPage(0))
			cmd := press(m, "enter")
			if s := screenText(m); !strings.Contains(s, "loading") {
				t.Fatalf("no loading line while the result is read:\n%s", s)
			}
			run(m, cmd)
			if s := flat(screenText(m)); !strings.Contains(s, tt.want) {
				t.Fatalf("after the read, want %q:\n%s", tt.want, s)
			}
			if st.loads != tt.loads {
				t.Fatalf("%d loads, want %d", st.loads, tt.loads)
			}
			if !tt.fail {
				press(m, "esc")
				if cmd := press(m, "enter"); cmd != nil || st.loads != 1 {
					t.Fatalf("a result in memory was read again (%d loads)", st.loads)
				}
			}
		})
	}
}

// storedFixture is the fixture run read from a store: no result in
// memory until a page or a sample is read.
func storedFixture(t *testing.T) *Model {
	st := &storeOf{results: fixtureResults(), per: 100}
	opts := fixtureOptions()
	opts.Results, opts.Summaries, opts.Load = nil, st.summaries, st.load
	m := newTestModel(t, opts, 120, 40)
	run(m, m.readPage(0))
	return m
}

// y on a row whose result is not in memory reads it, then copies it.
func TestCopyLoadsFirst(t *testing.T) {
	m := storedFixture(t)
	cmd := press(m, "y")
	if cmd == nil || !strings.Contains(screenText(m), "reading sample 0") {
		t.Fatalf("y did not read the sample:\n%s", screenText(m))
	}
	_, cmd = m.Update(cmd())
	if cmd == nil || !strings.Contains(screenText(m), "copied sample 0 as JSON") {
		t.Fatalf("the copy did not follow the read:\n%s", screenText(m))
	}
}

// o on a row whose result is not in memory reads it, pages it, and the
// status line does not go on saying it is reading.
func TestPagerLoadsFirst(t *testing.T) {
	m := storedFixture(t)
	script, out := fakePager(t, t.TempDir(), 0)
	t.Setenv("PAGER", script)
	t.Setenv("TMPDIR", t.TempDir())
	rec := &runExec{t: t}
	m.exec = rec.exec
	cmd := press(m, "o")
	if cmd == nil || !strings.Contains(screenText(m), "reading sample 0") {
		t.Fatalf("o did not read the sample:\n%s", screenText(m))
	}
	drive(t, m, cmd)
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), `"question"`) {
		t.Fatalf("the pager got %q (%v)", b, err)
	}
	if s := screenText(m); strings.Contains(s, "reading sample") {
		t.Fatalf("after the pager the status still says it reads:\n%s", s)
	}
}

// A live run keeps a bounded number of full results whatever its length,
// and the one open in the detail page among them.
func TestLiveRunKeepsFewResults(t *testing.T) {
	opts := Options{Live: true, Load: func(int) (*eval.Result, error) { return nil, errNoResult }}
	m := newTestModel(t, opts, 120, 40)
	finished := func(i int) eval.Event {
		return eval.Event{Kind: eval.EventSampleFinished, Sample: i, Result: &eval.Result{Index: i, Question: fmt.Sprintf("q%d", i),
			Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}, Scores: map[eval.Metric]*float64{eval.Faithfulness: score(0.5)}}}
	}
	m.Update(EventsMsg{Events: []eval.Event{finished(0)}})
	press(m, "enter")
	for i := 1; i < 3*recentResults; i++ {
		m.Update(EventsMsg{Events: []eval.Event{finished(i)}})
	}
	if n := len(m.full.recent) + len(m.full.pinned); n > recentResults {
		t.Fatalf("%d full results in memory after %d samples; want at most %d", n, 3*recentResults, recentResults)
	}
	if s := screenText(m); !strings.Contains(s, "q0") || strings.Contains(s, "loading") {
		t.Fatalf("the sample open lost its result to newer ones:\n%s", s)
	}
	if m.result(m.rows[m.rowAt(3*recentResults-1)]) == nil {
		t.Fatal("the newest result is not kept")
	}
}

// A row keeps the heads of its texts, and the free-text filter searches
// them case-insensitively without building lower-cased copies.
func TestRowTextsAndSearch(t *testing.T) {
	long := strings.Repeat("税", headRunes) + "TAIL"
	r := newRow(0, &eval.Result{ID: "Case-17", Question: "Does the TIN change? " + long, Answer: "Yes, re-register it."}, report.Levels{})
	if got := []rune(r.question()); len(got) != headRunes || !r.qcut {
		t.Fatalf("kept %d runes of the question (cut %v), want %d", len(got), r.qcut, headRunes)
	}
	tests := []struct {
		needle string
		want   bool
	}{
		{"tin change", true},
		{"does", true},
		{"税税", true},
		{"re-register", true},
		{"case-17", true},
		{"tail", false},         // past the head of the question
		{"change? 税yes", false}, // across the seam of question and answer
		{"ß", false},
		{"", true},
	}
	for _, tt := range tests {
		if got := r.matchText(tt.needle); got != tt.want {
			t.Errorf("matchText(%q) = %v, want %v", tt.needle, got, tt.want)
		}
	}
	for _, tt := range []struct {
		s, needle string
		want      bool
	}{
		{"ÉCOLE", "école", true}, {"xxAbC", "abc", true}, {"aaab", "aab", true}, {"Ab", "abc", false}, {"KELVIN", "kelvin", true},
	} {
		if got := containsFold(tt.s, tt.needle); got != tt.want || got != strings.Contains(strings.ToLower(tt.s), tt.needle) {
			t.Errorf("containsFold(%q, %q) = %v, want %v", tt.s, tt.needle, got, tt.want)
		}
	}
}
