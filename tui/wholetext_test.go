package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// longRun is three samples whose texts run past the heads a row keeps: a
// Chinese answer of 200 characters with a term near its end, a question
// with one past its head, and a term across the head's edge.
func longRun() []*eval.Result {
	filler := strings.Repeat("纳税人识别号保持不变。", 10) // 110 runes
	mk := func(i int, q, a string) *eval.Result {
		return &eval.Result{Index: i, ID: fmt.Sprint("s", i), Question: q, Answer: a, Contexts: []string{"c"},
			Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{}}
	}
	return []*eval.Result{
		mk(0, "一般纳税人登记后识别号会变吗？", filler+"登记后需要领取增值税专用发票。"+filler),
		mk(1, filler+"Does the VAT invoice change?", "No."),
		mk(2, "short", strings.Repeat("a", headRunes-3)+"SEAMLESS"),
	}
}

// TestFilterSearchesWholeText: the free-text filter finds a term past the
// first headRunes characters of a question or an answer, from memory at
// once, and from the store in the background, saying meanwhile how many
// long samples are left to search and, when the store fails, how much was
// searched.
func TestFilterSearchesWholeText(t *testing.T) {
	tests := []struct {
		name   string
		store  bool
		fail   map[int]bool
		filter string
		want   []int
		note   string // the filter's note once the search is done
	}{
		{"answer tail, in memory", false, nil, "增值税专用发票", []int{0}, ""},
		{"question tail, in memory", false, nil, `"vat invoice"`, []int{1}, ""},
		{"across the head's edge", false, nil, "seamless", []int{2}, ""},
		{"nowhere", false, nil, "增值税普通发票", []int{}, ""},
		{"answer tail, from the store", true, nil, "增值税专用发票", []int{0}, ""},
		{"two terms, from the store", true, nil, `识别号 "vat invoice"`, []int{1}, ""},
		{"the store fails", true, map[int]bool{0: true}, "增值税专用发票", []int{},
			"1 long sample could not be read: only the first 80 characters of question and answer were searched"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := fixtureOptions()
			opts.Results = longRun()
			st := &storeOf{results: longRun(), per: 100, fail: tt.fail}
			if tt.store {
				opts.Results, opts.Summaries, opts.Load, opts.Total = nil, st.summaries, st.load, 3
			}
			m := newTestModel(t, opts, 120, 40)
			if tt.store {
				run(m, m.readPage(0))
			}
			press(m, "/")
			typeText(m, tt.filter)
			if n := m.wholePending(); n != 0 {
				t.Errorf("%d samples queued for the store while the filter is typed", n)
			}
			// What the typed filter has not searched yet is said, not
			// shown as "no sample matches".
			if s := screenText(m); tt.store && (!strings.Contains(s, "enter searches the whole text of 3 long samples too") || strings.Contains(s, "no sample matches the filter (esc")) {
				t.Errorf("while the filter is typed the screen does not say what enter will search:\n%s", s)
			}
			cmd := press(m, "enter")
			if tt.store {
				if s := screenText(m); !strings.Contains(s, "searching the whole text of") || !strings.Contains(s, "no sample matches the filter so far") {
					t.Errorf("while the store is read the screen does not say so:\n%s", s)
				}
				run(m, cmd)
			}
			if got := shownSamples(m); !slices.Equal(got, tt.want) {
				t.Errorf("filter %s shows %v, want %v\n%s", tt.filter, got, tt.want, screenText(m))
			}
			s := flat(screenText(m))
			if strings.Contains(s, "searching the whole text") {
				t.Errorf("the search is done but the screen says it is not:\n%s", s)
			}
			if tt.note != "" && !strings.Contains(s, tt.note) {
				t.Errorf("the screen does not say %q:\n%s", tt.note, s)
			}
		})
	}
}
