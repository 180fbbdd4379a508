package tui

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// deltaRuns are five stored runs of one dataset started within a minute,
// newest first, as the picker lists them: only their ids' seconds and
// suffixes, their judges and their ends tell them apart.
func deltaRuns() []report.RunInfo {
	at := func(s int) time.Time { return fixedStart.Add(time.Duration(s) * time.Second) }
	done := at(50)
	gpt := eval.JudgeInfo{Kind: "llm", Name: "gpt-4o-mini", Model: "gpt-4o-mini"}
	return []report.RunInfo{
		{ID: "20260314-092641-9f0c", Parent: "20260314-092612-a1b2", Dataset: "testdata/demo.jsonl", StartedAt: at(41), FinishedAt: &done, Judge: gpt, Samples: 8},
		{ID: "20260314-092612-a1b2", Dataset: "testdata/demo.jsonl", StartedAt: at(12), FinishedAt: &done, Judge: gpt, Samples: 8},
		{ID: "20260314-092609-77e1", Dataset: "testdata/demo.jsonl", StartedAt: at(9), FinishedAt: &done,
			Judge: eval.JudgeInfo{Kind: "offline", Name: "offline (lexical)"}, Samples: 8},
		{ID: "20260314-092604-0d3a", Dataset: "testdata/demo.jsonl", StartedAt: at(4), Cancelled: true, FinishedAt: &done,
			Judge: eval.JudgeInfo{Kind: "llm", Model: "qwen2.5-72b-instruct-awq-int4-with-a-long-name"}, Samples: 8, Skipped: 3},
		{ID: "20260314-092601-5c5c", Dataset: "testdata/demo.jsonl", StartedAt: at(1), Judge: gpt, Samples: 8},
	}
}

// deltaAfter is the fixture run after a prompt edit, each change chosen
// to land in one Δ filter or sort position (F, AR, CP, CR):
//
//	0  F .333 -> .667 (+.333)
//	1  F 1 -> .5 (-.5), AR .93 -> .7 (-.23), CR 1 -> .5 (-.5)
//	2  F 1 -> .8 (-.2), AR .81 -> .91 (+.1)
//	3  AR 0 -> .3 (+.3)
//	4  CP 1 -> .5 (-.5)
//	5  F judge error -> .9 (new)
//	6  F 0 -> judge error (lost)
//	7  unchanged
func deltaAfter() []*eval.Result {
	out := fixtureResults()
	set := func(i int, mt eval.Metric, v float64) {
		r := *out[i]
		r.Scores, r.Status = maps.Clone(r.Scores), maps.Clone(r.Status)
		r.Scores[mt], r.Status[mt] = score(v), eval.StatusOK
		out[i] = &r
	}
	set(0, eval.Faithfulness, 2.0/3)
	set(1, eval.Faithfulness, 0.5)
	set(1, eval.AnswerRelevancy, 0.7)
	set(1, eval.ContextRecall, 0.5)
	set(2, eval.Faithfulness, 0.8)
	set(2, eval.AnswerRelevancy, 0.91)
	set(3, eval.AnswerRelevancy, 0.3)
	set(4, eval.ContextPrecision, 0.5)
	set(5, eval.Faithfulness, 0.9)
	lost := *out[6]
	lost.Scores, lost.Status = maps.Clone(lost.Scores), maps.Clone(lost.Status)
	lost.Scores[eval.Faithfulness], lost.Status[eval.Faithfulness] = nil, eval.StatusJudgeError
	out[6] = &lost
	return out
}

func deltaHost() *fakeHost {
	runs := deltaRuns()
	return &fakeHost{
		list: fixturePrompts(),
		runs: runs,
		results: map[string][]*eval.Result{
			runs[0].ID: deltaAfter(),
			runs[1].ID: fixtureResults(),
		},
	}
}

// newDeltaModel compares the two newest stored runs, picked with c: the
// older as the base, the newer after it.
func newDeltaModel(t *testing.T, w, h int) *Model {
	t.Helper()
	opts := hostOptions(deltaHost())
	opts.RunID = deltaRuns()[1].ID
	m := newTestModel(t, opts, w, h)
	pressDrive(t, m, "c", "j", "enter", "k", "enter")
	if m.cmp == nil || m.screen != screenTable {
		t.Fatalf("no comparison: screen %v\n%s", m.screen, screenText(m))
	}
	return m
}

func TestDeltaSort(t *testing.T) {
	tests := []struct {
		name  string
		keys  []string
		title string // the column title carrying the sort marker
		want  []int
	}{
		// Ascending Δ puts the samples that got worst first; those with no
		// change to sort by (new, lost, not compared) go last either way.
		{"ΔF ascending", []string{"s", "s"}, "ΔF^", []int{1, 2, 3, 4, 7, 0, 5, 6}},
		{"ΔF descending", []string{"s", "s", "S"}, "ΔFv", []int{0, 3, 4, 7, 2, 1, 5, 6}},
		{"ΔAR ascending", []string{"s", "s", "s", "s"}, "ΔAR^", []int{1, 0, 4, 5, 6, 2, 3, 7}},
		{"ΔCP ascending", slices.Repeat([]string{"s"}, 6), "ΔCP^", []int{4, 0, 1, 2, 3, 5, 7, 6}},
		{"ΔCR descending", append(slices.Repeat([]string{"s"}, 8), "S"), "ΔCRv", []int{0, 2, 3, 4, 5, 1, 6, 7}},
		{"the cycle ends on the diagnosis", slices.Repeat([]string{"s"}, 9), "diagnosis^", nil},
		{"and comes back to the index", slices.Repeat([]string{"s"}, 10), "#^", []int{0, 1, 2, 3, 4, 5, 6, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newDeltaModel(t, 120, 40)
			press(m, tt.keys...)
			if got := columnTitleFields(screenText(m)); !slices.Contains(got, tt.title) {
				t.Fatalf("no column %q in %v", tt.title, got)
			}
			if tt.want != nil && !slices.Equal(shownSamples(m), tt.want) {
				t.Fatalf("order %v, want %v", shownSamples(m), tt.want)
			}
		})
	}
}

// Leaving the comparison takes the Δ columns away; a table sorted by one
// stays sorted by its metric.
func TestDeltaSortFallsBackWhenTheComparisonCloses(t *testing.T) {
	m := newDeltaModel(t, 120, 40)
	press(m, "s", "s", "esc")
	if m.cmp != nil {
		t.Fatal("esc did not leave the comparison")
	}
	got := columnTitleFields(screenText(m))
	if !slices.Contains(got, "F^") || slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "Δ") }) {
		t.Fatalf("titles after leaving: %v", got)
	}
	press(m, "s")
	if got := columnTitleFields(screenText(m)); !slices.Contains(got, "AR^") {
		t.Fatalf("s after leaving: %v", got)
	}
}

func TestDeltaFilter(t *testing.T) {
	tests := []struct {
		filter string
		want   []int
	}{
		{"df<0", []int{1, 2}}, // got worse; the lost score of 6 is no change to compare
		{"ΔF<0", []int{1, 2}},
		{"df>0", []int{0}},
		{"df=0", []int{3, 4, 7}},
		{"dar<-0.1", []int{1}},
		{"dar>0", []int{2, 3}},
		{"dcp>0", nil},
		{"dcp<0", []int{4}},
		{"dcr!=0", []int{1}},
		{"df<0 dar<0", []int{1}},
		{"df<0 eiffel", []int{1}},
		{"df<0 f>0.6", []int{2}},
		{"dar>0 status:ok", []int{2, 3}},
		{"df<=-0.5", []int{1}},
		{"df<-0.5", nil},
	}
	for _, tt := range tests {
		t.Run(tt.filter, func(t *testing.T) {
			m := newDeltaModel(t, 120, 40)
			applyFilter(m, tt.filter)
			if m.mode == modeFilter || m.filterErr != "" {
				t.Fatalf("filter not applied: filtering=%v err=%q", m.mode == modeFilter, m.filterErr)
			}
			if got := shownSamples(m); !slices.Equal(got, tt.want) && len(got)+len(tt.want) > 0 {
				t.Fatalf("shown %v, want %v", got, tt.want)
			}
		})
	}
}

// Outside compare mode there is no "before": a Δ term is an error the bar
// shows, not a table emptied without a word, and esc puts the rows back.
func TestDeltaFilterOutsideCompareMode(t *testing.T) {
	for _, f := range []string{"df<0", "f<0.5 dcr!=0"} {
		t.Run(f, func(t *testing.T) {
			m := newTestModel(t, hostOptions(deltaHost()), 100, 40)
			press(m, "/")
			typeText(m, f)
			press(m, "enter")
			if m.mode != modeFilter {
				t.Fatal("the bar closed on a filter that cannot apply")
			}
			// Wrapped, not cut: what to do is the end of the message.
			s := flat(screenText(m))
			if !strings.Contains(s, "a change term needs two runs side by side; compare runs first (c), then filter on the change") {
				t.Fatalf("no error:\n%s", screenText(m))
			}
			press(m, "esc")
			if m.mode == modeFilter || !m.filter.empty() || len(m.shown) != 8 {
				t.Fatalf("esc: filtering %v, filter %v, %d shown", m.mode == modeFilter, m.filter, len(m.shown))
			}
		})
	}
}

// A comparison that ends under a Δ filter takes the filter with it, and
// says so.
func TestDeltaFilterGoesWithTheComparison(t *testing.T) {
	m := newDeltaModel(t, 120, 40)
	applyFilter(m, "df<0")
	m.leaveCompare()
	if !m.filter.empty() || len(m.shown) != 8 {
		t.Fatalf("filter %v, %d shown after the comparison closed", m.filter, len(m.shown))
	}
	if s := screenText(m); !strings.Contains(s, "the filter on the change was cleared with the comparison") {
		t.Fatalf("not said:\n%s", s)
	}
}

// The picker tells apart runs of one minute: full ids, the dataset, the
// judge (offline for the lexical one), the samples and how each ended; at
// a narrow width long values are clipped, one run per line.
func TestPickerColumns(t *testing.T) {
	tests := []struct {
		width int
		want  []string // each on the line of its run
		gone  []string
	}{
		{width: 180, want: []string{
			"20260314-092641-9f0c demo.jsonl gpt-4o-mini 8 finished 2026-03-14 09:26:41 20260314-092612-a1b2",
			"20260314-092612-a1b2 demo.jsonl gpt-4o-mini 8 finished 2026-03-14 09:26:12 - (shown)",
			"20260314-092609-77e1 demo.jsonl offline 8 finished",
			"20260314-092604-0d3a demo.jsonl qwen2.5-72b-instruct-awq-int4-with-a-long-name 8 cancelled, 3 skipped",
			"20260314-092601-5c5c demo.jsonl gpt-4o-mini 8 unfinished",
		}},
		{width: 100, want: []string{
			"20260314-092641-9f0c demo.j… gpt-4o-mini 8 finished 2026031…",
			"20260314-092604-0d3a demo.j… qwen2.5-72b-inst… 8 cancelled, 3 skipped -",
		}, gone: []string{"09:26:41", "(shown)"}},
		{width: 60, want: []string{
			"20260314-092641-9f0c gpt-4o… 8 finished",
			"20260314-092604-0d3a qwen2.… 8 cancelle…",
			"20260314-092601-5c5c gpt-4o… 8 unfinish…",
		}, gone: []string{"09:26:41", "(shown)", "demo"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d columns", tt.width), func(t *testing.T) {
			m := newTestModel(t, hostOptions(deltaHost()), tt.width, 24)
			m.runID = deltaRuns()[1].ID
			pressDrive(t, m, "c")
			s := screenText(m)
			lines := strings.Split(s, "\n")
			if n := len(lines); n != 24 {
				t.Fatalf("%d lines:\n%s", n, s)
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > tt.width {
					t.Fatalf("line %q is %d cells wide", l, w)
				}
			}
			for _, w := range tt.want {
				id := strings.Fields(w)[0]
				if got := rowOf(s, id); !strings.HasPrefix(got, w) {
					t.Fatalf("the line of %s is %q, want %q in it:\n%s", id, got, w, s)
				}
			}
			for _, g := range tt.gone {
				if strings.Contains(s, g) {
					t.Fatalf("%q should have given way at %d columns:\n%s", g, tt.width, s)
				}
			}
		})
	}
}

// rowOf is the words of the picker's line of a run.
func rowOf(screen, id string) string {
	for _, l := range strings.Split(screen, "\n") {
		if f := strings.Fields(l); len(f) > 0 && (f[0] == id || len(f) > 1 && f[1] == id) {
			return flat(l)
		}
	}
	return ""
}

// columnTitleFields are the words of the table's column titles.
func columnTitleFields(screen string) []string {
	return strings.Fields(lineOf(screen, " question "))
}
