package tui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mattn/go-runewidth"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// manyResults builds n scored samples whose faithfulness falls as the index
// rises, so a sort by it reverses the table.
func manyResults(n int) []*eval.Result {
	out := make([]*eval.Result, n)
	for i := range out {
		f := 1 - float64(i)/float64(n)
		out[i] = &eval.Result{
			Index:    i,
			Question: fmt.Sprintf("question number %d", i),
			Answer:   "answer",
			Scores:   map[eval.Metric]*float64{eval.Faithfulness: score(f)},
			Status:   map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK},
		}
	}
	return out
}

func TestNavigation(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		want func(page int) int // sample under the cursor
	}{
		{"start at top", nil, func(int) int { return 0 }},
		{"j moves down", []string{"j"}, func(int) int { return 1 }},
		{"arrow down", []string{"down", "down"}, func(int) int { return 2 }},
		{"k moves up", []string{"j", "j", "k"}, func(int) int { return 1 }},
		{"k stops at the top", []string{"k", "up"}, func(int) int { return 0 }},
		{"G goes to the bottom", []string{"G"}, func(int) int { return 99 }},
		{"j stops at the bottom", []string{"G", "j"}, func(int) int { return 99 }},
		{"g goes back to the top", []string{"G", "g"}, func(int) int { return 0 }},
		{"ctrl+d half a page", []string{"ctrl+d"}, func(p int) int { return p / 2 }},
		{"ctrl+u back", []string{"ctrl+d", "ctrl+d", "ctrl+u"}, func(p int) int { return p / 2 }},
		{"ctrl+u stops at the top", []string{"ctrl+u"}, func(int) int { return 0 }},
		{"page down", []string{"pgdown"}, func(p int) int { return p }},
		{"page up", []string{"G", "pgup"}, func(p int) int { return 99 - p }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(t, Options{Results: manyResults(100), Metrics: []eval.Metric{eval.Faithfulness}}, 80, 24)
			page := m.tableRows()
			if page < 10 {
				t.Fatalf("only %d rows fit on an 80x24 screen", page)
			}
			press(m, tt.keys...)
			want := tt.want(page)
			if got := cursorSample(m); got != want {
				t.Fatalf("cursor on sample %d, want %d", got, want)
			}
			// The selected row must be on screen.
			if m.cursor < m.offset || m.cursor >= m.offset+m.tableRows() {
				t.Fatalf("cursor %d outside the window [%d,%d)", m.cursor, m.offset, m.offset+m.tableRows())
			}
			if !strings.Contains(screenText(m), fmt.Sprintf("question number %d ", want)) {
				t.Fatalf("selected sample %d not drawn:\n%s", want, screenText(m))
			}
		})
	}
}

func TestSort(t *testing.T) {
	tests := []struct {
		name   string
		keys   []string
		want   []int
		header string
	}{
		{"by index", nil, []int{0, 1, 2, 3, 4, 5, 6, 7}, "#^"},
		{"index reversed", []string{"S"}, []int{7, 6, 5, 4, 3, 2, 1, 0}, "#v"},
		// Worst first; the failed sample 5 has no score and goes last.
		{"faithfulness", []string{"s"}, []int{6, 0, 4, 7, 1, 2, 3, 5}, "F^"},
		{"faithfulness reversed keeps unscored last", []string{"s", "S"}, []int{1, 2, 3, 7, 4, 0, 6, 5}, "Fv"},
		{"answer relevancy", []string{"s", "s"}, []int{3, 4, 6, 0, 2, 5, 1, 7}, "AR^"},
		{"context recall", []string{"s", "s", "s", "s"}, []int{2, 0, 1, 3, 4, 5, 6, 7}, "CR^"},
		{"diagnosis", []string{"s", "s", "s", "s", "s"}, []int{0, 6, 2, 3, 1, 4, 5, 7}, "diagnosis^"},
		{"cycles back to index", []string{"s", "s", "s", "s", "s", "s"}, []int{0, 1, 2, 3, 4, 5, 6, 7}, "#^"},
		{"s resets the direction", []string{"S", "s"}, []int{6, 0, 4, 7, 1, 2, 3, 5}, "F^"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(t, fixtureOptions(), 80, 24)
			press(m, tt.keys...)
			if got := shownSamples(m); !slices.Equal(got, tt.want) {
				t.Fatalf("order %v, want %v", got, tt.want)
			}
			if !strings.Contains(screenText(m), tt.header) {
				t.Fatalf("column title %q missing:\n%s", tt.header, screenText(m))
			}
		})
	}
}

func TestSortKeepsTheCursorOnItsSample(t *testing.T) {
	m := newTestModel(t, fixtureOptions(), 80, 24)
	press(m, "j", "j") // sample 2
	press(m, "s")
	if got := cursorSample(m); got != 2 {
		t.Fatalf("after sorting the cursor is on sample %d, want 2", got)
	}
}

func TestParseFilter(t *testing.T) {
	tests := []struct {
		in      string
		want    []term
		wantErr string
	}{
		{in: "", want: nil},
		{in: "f<0.5", want: []term{{kind: termScore, slot: 0, op: "<", value: 0.5}}},
		{in: "ar<0.7", want: []term{{kind: termScore, slot: 1, op: "<", value: 0.7}}},
		{in: "cp=0", want: []term{{kind: termScore, slot: 2, op: "=", value: 0}}},
		{in: "CR>=0.8", want: []term{{kind: termScore, slot: 3, op: ">=", value: 0.8}}},
		{in: "faithfulness!=1", want: []term{{kind: termScore, slot: 0, op: "!=", value: 1}}},
		{in: "context_recall==.5", want: []term{{kind: termScore, slot: 3, op: "=", value: 0.5}}},
		{in: "status:failed", want: []term{{kind: termStatus, status: "failed"}}},
		{in: "status:judge_error", want: []term{{kind: termStatus, status: "judge_error"}}},
		{in: "diag:retrieval", want: []term{{kind: termDiag, diag: report.DiagRetrieval}}},
		{in: "diag:offtopic", want: []term{{kind: termDiag, diag: report.DiagOffTopic}}},
		{in: "Refund", want: []term{{kind: termText, text: "refund"}}},
		{in: "纳税人", want: []term{{kind: termText, text: "纳税人"}}},
		{in: `"annual plans"`, want: []term{{kind: termText, text: "annual plans"}}},
		{in: `"x<1"`, want: []term{{kind: termText, text: "x<1"}}},
		{in: "  f<0.5   diag:generation tax ", want: []term{
			{kind: termScore, slot: 0, op: "<", value: 0.5},
			{kind: termDiag, diag: report.DiagGeneration},
			{kind: termText, text: "tax"},
		}},
		{in: "f<abc", wantErr: `f<abc: "abc" is not a score between 0 and 1`},
		{in: "f<1.5", wantErr: "is not a score between 0 and 1"},
		{in: "f<", wantErr: "is not a score between 0 and 1"},
		{in: "zz<0.5", wantErr: `unknown metric "zz"`},
		{in: "status:bogus", wantErr: `unknown status "bogus"`},
		{in: "diag:bogus", wantErr: `unknown diagnosis "bogus"`},
		{in: `"unclosed`, wantErr: "unclosed quote"},
		{in: "df<0", want: []term{{kind: termDelta, word: "df<0", slot: 0, op: "<", value: 0}}},
		{in: "dar<-0.1", want: []term{{kind: termDelta, word: "dar<-0.1", slot: 1, op: "<", value: -0.1}}},
		{in: "dcp>0", want: []term{{kind: termDelta, word: "dcp>0", slot: 2, op: ">", value: 0}}},
		{in: "dcr!=0", want: []term{{kind: termDelta, word: "dcr!=0", slot: 3, op: "!=", value: 0}}},
		{in: "ΔF<=-0.5", want: []term{{kind: termDelta, word: "ΔF<=-0.5", slot: 0, op: "<=", value: -0.5}}},
		{in: "dfaithfulness==1", want: []term{{kind: termDelta, word: "dfaithfulness==1", slot: 0, op: "=", value: 1}}},
		{in: "df<-1.5", wantErr: `df<-1.5: "-1.5" is not a change between -1 and 1`},
		{in: "df<", wantErr: "is not a change between -1 and 1"},
		{in: "f<-0.1", wantErr: "is not a score between 0 and 1"},
		{in: "dx<0", wantErr: `unknown metric "dx" (use f, ar, cp, cr, cu, as, ac, fc, er or ns, or df, dar, dcp`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			f, err := parseFilter(tt.in, critSet{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.terms, tt.want) {
				t.Fatalf("terms %+v, want %+v", f.terms, tt.want)
			}
		})
	}
}

func TestFilterRows(t *testing.T) {
	tests := []struct {
		filter string
		want   []int
	}{
		{"f<0.5", []int{0, 6}},
		{"f<=0.5", []int{0, 4, 6}},
		{"ar<0.7", []int{3, 4, 6}},
		{"cp=0", []int{2}},
		{"cr>0.9", []int{0, 1, 3, 4, 5}},
		{"f=0.333", []int{0}}, // a third, at the table's precision
		{"status:failed", []int{5, 7}},
		{"status:n/a", []int{6}},
		{"status:ok", []int{0, 1, 2, 3, 4}},
		{"status:missing_input", []int{6}},
		{"status:parse_error", []int{7}},
		{"diag:retrieval", []int{2}},
		{"diag:generation", []int{0, 6}},
		{"diag:noncommittal", []int{3}},
		{"diag:off-topic", nil},
		{"diag:low", nil},
		{"diag:ok", []int{1, 4}},
		{"eiffel", []int{1}},
		{"纳税人", []int{0}},
		{"postgresql", nil}, // only in a context: text matches question and answer
		{"mysql", []int{6}}, // answer text
		{"f<0.5 diag:generation 纳税人", []int{0}},
		{"ar<0.7 cr>0.9", []int{3, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.filter, func(t *testing.T) {
			m := newTestModel(t, fixtureOptions(), 80, 24)
			press(m, "/")
			typeText(m, tt.filter)
			press(m, "enter")
			if m.mode == modeFilter || m.filterErr != "" {
				t.Fatalf("filter not applied: filtering=%v err=%q", m.mode == modeFilter, m.filterErr)
			}
			got := shownSamples(m)
			if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Fatalf("shown %v, want %v", got, tt.want)
			}
			if want := fmt.Sprintf("%d of 8 samples", len(tt.want)); !strings.Contains(screenText(m), want) {
				t.Fatalf("header does not say %q:\n%s", want, screenText(m))
			}
		})
	}
}

func TestFilterCountsInHeader(t *testing.T) {
	m := newTestModel(t, fixtureOptions(), 120, 40)
	press(m, "/")
	typeText(m, "diag:generation")
	press(m, "enter")
	s := screenText(m)
	// The diagnosis line ends with the position among the rows shown.
	if got, want := flat(lineOf(s, "diagnosis  ")), "diagnosis generation 2 retrieval 0 off-topic 0 noncommittal 0 incomplete 0 low 0 ok 0 failed 0 [1/2]"; got != want {
		t.Fatalf("diagnosis line %q, want %q", got, want)
	}
	for _, want := range []string{"faithfulness       mean 0.167  scored 2"} {
		if !strings.Contains(s, want) {
			t.Fatalf("header misses %q:\n%s", want, s)
		}
	}
	// 80 columns do not hold every diagnosis: those no row has are left out.
	m = newTestModel(t, fixtureOptions(), 80, 24)
	press(m, "/")
	typeText(m, "diag:generation")
	press(m, "enter")
	if s := screenText(m); flat(lineOf(s, "diagnosis  ")) != "diagnosis generation 2 [1/2]" {
		t.Fatalf("80 columns: header misses the compact diagnosis line:\n%s", s)
	}
	press(m, "esc")
	if s := screenText(m); flat(lineOf(s, "diagnosis  ")) != "diagnosis generation 2 retrieval 1 noncommittal 1 ok 2 failed 2 [1/8]" {
		t.Fatalf("80 columns: header misses the compact diagnosis line:\n%s", s)
	}
}

func TestFilterBadTermShowsErrorAndKeepsPrevious(t *testing.T) {
	m := newTestModel(t, fixtureOptions(), 80, 24)
	press(m, "/")
	typeText(m, "diag:retrieval")
	press(m, "enter", "/", "ctrl+u") // ctrl+u empties the input
	typeText(m, "f<abc")
	press(m, "enter")
	if m.mode != modeFilter {
		t.Fatal("a bad filter closed the filter bar")
	}
	if s := screenText(m); !strings.Contains(s, `filter: f<abc: "abc" is not a score between 0 and 1`) {
		t.Fatalf("error not shown:\n%s", s)
	}
	// The rows are those of the last expression that parsed as it was
	// typed: "f", free text.
	if got := shownSamples(m); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("the last valid filter is not kept: shown %v", got)
	}
	// Fixing the term applies it.
	press(m, "backspace", "backspace", "backspace")
	typeText(m, "0.5")
	press(m, "enter")
	if m.mode == modeFilter || !slices.Equal(shownSamples(m), []int{0, 6}) {
		t.Fatalf("fixed filter not applied: filtering=%v shown=%v", m.mode == modeFilter, shownSamples(m))
	}
}

func TestEscClearsFilterFirstThenGoesBack(t *testing.T) {
	m := newTestModel(t, fixtureOptions(), 80, 24)
	press(m, "/")
	typeText(m, "f<0.5")
	press(m, "enter", "enter") // filter, then open the first match
	if m.screen != screenDetail || cursorSample(m) != 0 {
		t.Fatalf("screen %v on sample %d, want the detail of sample 0", m.screen, cursorSample(m))
	}
	press(m, "esc")
	if m.screen != screenTable || m.filter.empty() {
		t.Fatalf("first esc: screen %v, filter %v; want the filtered table", m.screen, m.filter)
	}
	press(m, "esc")
	if !m.filter.empty() || len(m.shown) != 8 {
		t.Fatalf("second esc did not clear the filter: %d shown", len(m.shown))
	}
	// esc while typing puts back the filter in force before (none) and
	// closes the bar.
	press(m, "/")
	typeText(m, "cp=0")
	press(m, "esc")
	if m.mode == modeFilter || len(m.shown) != 8 {
		t.Fatalf("esc in the filter bar: filtering=%v shown=%d", m.mode == modeFilter, len(m.shown))
	}
}

func TestFilterBarTakesKeys(t *testing.T) {
	m := newTestModel(t, fixtureOptions(), 80, 24)
	press(m, "/")
	typeText(m, "jqs") // must be typed, not navigate, quit or sort
	if m.input.Value() != "jqs" || m.sortIdx != 0 || m.screen != screenTable || m.quitting {
		t.Fatalf("keys leaked out of the filter bar: value %q sort %d screen %d", m.input.Value(), m.sortIdx, m.screen)
	}
}

func TestQuit(t *testing.T) {
	tests := []struct {
		name       string
		live       bool
		keys       []string
		wantQuit   bool
		wantCancel bool
		wantOnView string
	}{
		{"q quits a stored run", false, []string{"q"}, true, false, ""},
		{"q asks during a live run", true, []string{"q"}, false, false, "Finished work is kept"},
		{"n keeps running", true, []string{"q", "n"}, false, false, ""},
		{"esc keeps running", true, []string{"q", "esc"}, false, false, ""},
		{"y quits and cancels", true, []string{"q", "y"}, true, true, ""},
		{"ctrl+c quits a live run at once", true, []string{"ctrl+c"}, true, true, ""},
		{"ctrl+c quits from the filter bar", false, []string{"/", "ctrl+c"}, true, false, ""},
		{"ctrl+c quits from help", false, []string{"?", "ctrl+c"}, true, false, ""},
		{"q quits from help, as the page says", false, []string{"?", "q"}, true, false, ""},
		{"q on help asks during a live run", true, []string{"?", "q"}, false, false, "Finished work is kept"},
		{"ctrl+c quits from the question", true, []string{"q", "ctrl+c"}, true, true, ""},
		{"q in the filter bar is text", false, []string{"/", "q"}, false, false, ""},
		{"q quits from the detail page", false, []string{"enter", "q"}, true, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cancelled := false
			opts := fixtureOptions()
			opts.Live = tt.live
			opts.Cancel = func() { cancelled = true }
			m := newTestModel(t, opts, 80, 24)
			cmd := press(m, tt.keys...)
			if got := isQuit(cmd); got != tt.wantQuit {
				t.Fatalf("quit = %v, want %v", got, tt.wantQuit)
			}
			if cancelled != tt.wantCancel {
				t.Fatalf("cancel called = %v, want %v", cancelled, tt.wantCancel)
			}
			s := screenText(m)
			if tt.wantOnView != "" && !strings.Contains(s, tt.wantOnView) {
				t.Fatalf("screen misses %q:\n%s", tt.wantOnView, s)
			}
			if !tt.wantQuit && !strings.Contains(tt.wantOnView, "kept") && strings.Contains(s, "Finished work is kept") {
				t.Fatalf("question still shown:\n%s", s)
			}
		})
	}
}

func TestQuitAfterRunFinishedDoesNotAsk(t *testing.T) {
	opts := fixtureOptions()
	opts.Live = true
	m := newTestModel(t, opts, 80, 24)
	m.Update(EventsMsg{Events: []eval.Event{{Kind: eval.EventRunFinished, Time: fixedStart.Add(75e9)}}})
	if !isQuit(press(m, "q")) {
		t.Fatal("q after the run finished should quit at once")
	}
}

func TestTooSmall(t *testing.T) {
	tests := []struct {
		w, h  int
		small bool
	}{
		{59, 24, true}, {80, 14, true}, {20, 5, true}, {60, 15, false}, {80, 24, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dx%d", tt.w, tt.h), func(t *testing.T) {
			m := newTestModel(t, fixtureOptions(), tt.w, tt.h)
			s := screenText(m)
			if got := strings.Contains(s, "terminal too small"); got != tt.small {
				t.Fatalf("too-small message shown = %v, want %v:\n%s", got, tt.small, s)
			}
			if !tt.small {
				lines := strings.Split(s, "\n")
				if len(lines) != tt.h {
					t.Fatalf("%d lines, want %d", len(lines), tt.h)
				}
				for i, l := range lines {
					if w := runewidth.StringWidth(l); w > tt.w {
						t.Fatalf("line %d is %d cells wide, more than %d: %q", i, w, tt.w, l)
					}
				}
				if !strings.Contains(lines[len(lines)-1], "quit") {
					t.Fatalf("footer is not on the last line: %q", lines[len(lines)-1])
				}
			}
			if !isQuit(press(m, "q")) {
				t.Fatal("q must quit even when the terminal is too small")
			}
		})
	}
}

func TestResizeReflows(t *testing.T) {
	m := newTestModel(t, fixtureOptions(), 120, 40)
	press(m, "enter")
	wide := screenText(m)
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	narrow := screenText(m)
	if wide == narrow {
		t.Fatal("resizing did not change the page")
	}
	for i, l := range strings.Split(narrow, "\n") {
		if w := runewidth.StringWidth(l); w > 60 {
			t.Fatalf("line %d is %d cells wide after resizing to 60: %q", i, w, l)
		}
	}
}

func TestHelp(t *testing.T) {
	m := newTestModel(t, fixtureOptions(), 100, 30)
	applyFilter(m, "f<0.9") // esc clears it: the page says so
	press(m, "?")
	s := screenText(m)
	for _, want := range []string{"sort", "reverse", "filter", "clear filter", "quit now", "status:failed", "diag:generation|retrieval", "incomplete", "df<0"} {
		if !strings.Contains(s, want) {
			t.Fatalf("help misses %q:\n%s", want, s)
		}
	}
	press(m, "j") // ignored while help is open
	press(m, "esc")
	if m.mode == modeHelp || cursorSample(m) != 0 {
		t.Fatalf("help open=%v cursor=%d after esc", m.mode == modeHelp, cursorSample(m))
	}
	press(m, "enter", "?")
	if s := screenText(m); !strings.Contains(s, "metric") || !strings.Contains(s, "raw calls") {
		t.Fatalf("detail help misses its keys:\n%s", s)
	}
}

func TestDetailPage(t *testing.T) {
	tests := []struct {
		sample int
		want   []string
	}{
		{0, []string{
			"小规模纳税人转为一般纳税人后，纳税人识别号会变吗？",
			"[1] 纳税人由小规模纳税人转为一般纳税人的",
			"✗ 转为一般纳税人后纳税人识别号会变。",
			"上下文明确说明识别号不变，陈述与之相反（否定关系）。",
			"1 of 3 statements supported = 0.333",
			"0.910 █████████  小规模纳税人转为一般纳税人后识别号是否改变？",
			"mean(0.910, 0.720, 0.550) = 0.727",
			"[2] ✗ not useful  (precision@2 = 0.500)",
			"average precision = (1.000) / 1 useful = 1.000",
			"2 of 2 reference statements attributed = 1.000",
			"2 judge calls (1 from the cache)",
		}},
		{2, []string{"no chunk judged useful: average precision = 0.000", "0 of 1 reference statements attributed = 0.000"}},
		{3, []string{"[noncommittal]", "every generated question was flagged noncommittal", "score zeroed"}},
		{4, []string{"offline judge: no questions generated; score = cosine(answer, question) = 0.412"}},
		{5, []string{"judge_error: HTTP 503 from the judge after 3 retries", "Failures", "call faithfulness_statements: HTTP 503 Service Unavailable"}},
		{6, []string{"missing_input: no reference in the dataset", "0 of 2 statements supported = 0.000"}},
		{7, []string{"not evaluated in this run (not in --metrics)", "parse_error: judge reply is not valid JSON"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.sample), func(t *testing.T) {
			m := newTestModel(t, fixtureOptions(), 120, 200) // tall enough to see the whole page
			for range tt.sample {
				press(m, "j")
			}
			press(m, "enter")
			s := screenText(m)
			if !strings.Contains(s, fmt.Sprintf("sample %d", tt.sample)) {
				t.Fatalf("not the detail of sample %d:\n%s", tt.sample, s)
			}
			for _, w := range tt.want {
				if !strings.Contains(s, w) {
					t.Errorf("detail misses %q", w)
				}
			}
			if t.Failed() {
				t.Log(s)
			}
		})
	}
}

// TestDetailNotComputable: the page's summary of the metrics that did not
// score lists the ones the input makes undefined (missing_input) under "Not
// computable", and only real failures (parse_error, failed calls) under
// "Failures".
func TestDetailNotComputable(t *testing.T) {
	tests := []struct {
		sample     int
		na, failed []string // the lines under each heading; nil: no heading
	}{
		{6, []string{"context_precision: missing_input: no reference in the dataset", "context_recall: missing_input: no reference in the dataset"}, nil},
		{7, nil, []string{"context_recall: parse_error: judge reply is not valid JSON"}},
		{5, nil, []string{"faithfulness: judge_error", "call faithfulness_statements: HTTP 503 Service Unavailable"}},
	}
	section := func(lines []string, heading string) []string {
		for i, l := range lines {
			if strings.TrimSpace(l) != heading {
				continue
			}
			var out []string
			for _, l := range lines[i+1:] {
				if strings.TrimSpace(l) == "" {
					break
				}
				out = append(out, strings.TrimSpace(l))
			}
			return out
		}
		return nil
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.sample), func(t *testing.T) {
			m := newTestModel(t, fixtureOptions(), 120, 200)
			for range tt.sample {
				press(m, "j")
			}
			press(m, "enter")
			lines := strings.Split(screenText(m), "\n")
			for _, h := range []struct {
				name string
				want []string
			}{{"Not computable", tt.na}, {"Failures", tt.failed}} {
				got := section(lines, h.name)
				if len(got) != len(h.want) {
					t.Errorf("under %q: %q, want %d lines like %q", h.name, got, len(h.want), h.want)
					continue
				}
				for i, w := range h.want {
					if !strings.HasPrefix(got[i], w) {
						t.Errorf("under %q line %d: %q, want %q", h.name, i, got[i], w)
					}
				}
			}
			if t.Failed() {
				t.Log(screenText(m))
			}
		})
	}
}

func TestDetailJumpKeys(t *testing.T) {
	m := newTestModel(t, fixtureOptions(), 80, 24)
	press(m, "enter")
	top := func() string { return strings.Split(screenText(m), "\n")[1] }
	for i, name := range []string{"faithfulness", "answer_relevancy", "context_precision", "context_recall"} {
		press(m, fmt.Sprint(i+1))
		if want := fmt.Sprintf("%d %s", i+1, name); !strings.HasPrefix(top(), want) && !strings.Contains(screenText(m), want) {
			t.Fatalf("key %d: %q not on screen", i+1, want)
		}
	}
	press(m, "1")
	if !strings.HasPrefix(top(), "1 faithfulness") {
		t.Fatalf("key 1 does not put faithfulness at the top: %q", top())
	}
	press(m, "tab")
	if !strings.HasPrefix(top(), "2 answer_relevancy") {
		t.Fatalf("tab does not move to the next section: %q", top())
	}
	press(m, "shift+tab")
	if !strings.HasPrefix(top(), "1 faithfulness") {
		t.Fatalf("shift+tab does not move back: %q", top())
	}
	press(m, "g")
	if !strings.HasPrefix(top(), "Question") {
		t.Fatalf("g does not scroll to the top: %q", top())
	}
	// j first picks the statements on screen, one by one, then scrolls.
	for range 10 {
		if press(m, "j"); !strings.HasPrefix(top(), "Question") {
			break
		}
	}
	if strings.HasPrefix(top(), "Question") {
		t.Fatal("j does not scroll")
	}
	press(m, "G")
	if !strings.Contains(screenText(m), "2 of 2 reference statements attributed") {
		t.Fatal("G does not reach the end of the page")
	}
	press(m, "n")
	if !strings.Contains(screenText(m), "sample 1") || cursorSample(m) != 1 {
		t.Fatal("n does not open the next sample")
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if strings.HasPrefix(top(), "Question") {
		t.Fatal("the mouse wheel does not scroll")
	}
}

func TestRawCalls(t *testing.T) {
	tests := []struct {
		name   string
		sample int
		raw    func([]string) (string, error)
		want   string
	}{
		{"no cache", 0, nil, "no cache for this run"},
		{"no calls", 1, func([]string) (string, error) { return "unused", nil }, "No judge calls were recorded"},
		{"from the cache", 0, func(keys []string) (string, error) {
			return "request " + strings.Join(keys, ",") + "\nreply {\"statements\": []}", nil
		}, "request k0a,k0b"},
		{"cache error", 0, func([]string) (string, error) { return "", errors.New("cache.db: locked") }, "cannot read the raw calls: cache.db: locked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := fixtureOptions()
			opts.RawCalls = tt.raw
			m := newTestModel(t, opts, 80, 24)
			for range tt.sample {
				press(m, "j")
			}
			cmd := press(m, "enter", "x")
			if cmd != nil {
				m.Update(cmd()) // the cache read runs as a command, off Update
			}
			if s := screenText(m); !strings.Contains(s, tt.want) {
				t.Fatalf("raw page misses %q:\n%s", tt.want, s)
			}
			press(m, "esc")
			if m.screen != screenDetail {
				t.Fatal("esc does not go back to the detail page")
			}
		})
	}
}

func TestLiveEvents(t *testing.T) {
	opts := Options{Dataset: "d.jsonl", Live: true, Started: fixedStart, Judge: eval.JudgeInfo{Name: "offline (lexical)"},
		Banner: "judge: offline (lexical); set OPENAI_BASE_URL for an LLM judge"}
	m := newTestModel(t, opts, 100, 30)
	if s := screenText(m); !strings.Contains(s, "waiting for the first sample") {
		t.Fatalf("empty live run:\n%s", s)
	}
	res := fixtureResults()
	m.Update(EventsMsg{Events: []eval.Event{
		{Kind: eval.EventRunStarted, Total: 8, Sample: -1},
		{Kind: eval.EventSampleStarted, Sample: 0, InFlight: 1, Time: fixedStart.Add(80 * time.Second)},
		{Kind: eval.EventSampleStarted, Sample: 1, InFlight: 2, Time: fixedStart.Add(80 * time.Second)},
		{Kind: eval.EventCall, Sample: 0, InFlight: 3, Call: &eval.CallRecord{Cached: true, Tokens: eval.Usage{PromptTokens: 1000, CompletionTokens: 500}}},
		{Kind: eval.EventCall, Sample: 0, InFlight: 3, Call: &eval.CallRecord{Tokens: eval.Usage{PromptTokens: 9000, CompletionTokens: 1000}}},
		{Kind: eval.EventRetry, Sample: 1, InFlight: 3},
	}})
	s := screenText(m)
	// The cached call's tokens were paid by an earlier run: 10k, not 11.5k.
	for _, want := range []string{"0/8", "in flight 3", "calls sent 1", "cache hits 1 (50%)", "retries 1", "tokens 10.0k", "(evaluating)", "running 2", "elapsed 1m30s", "ETA --", "judge offline (lexical)", "set OPENAI_BASE_URL for an LLM judge"} {
		if !strings.Contains(s, want) {
			t.Fatalf("live screen misses %q:\n%s", want, s)
		}
	}
	m.Update(EventsMsg{Events: []eval.Event{
		{Kind: eval.EventSampleFinished, Sample: 0, Result: res[0], InFlight: 1, Time: fixedStart.Add(90 * time.Second)},
		{Kind: eval.EventCall, Sample: 1, Call: &eval.CallRecord{Task: "faithfulness_statements", Error: "boom"}, InFlight: 1},
		{Kind: eval.EventError, Sample: 1, Metric: eval.Faithfulness, Err: "boom", InFlight: 1},
	}})
	s = screenText(m)
	// A sample takes 10 s, two are evaluated at once, 7 are left: 35 s.
	for _, want := range []string{"1/8", "errors 1", "小规模纳税人", "generation 1", "running 1", "ETA 35s"} {
		if !strings.Contains(s, want) {
			t.Fatalf("after a result the screen misses %q:\n%s", want, s)
		}
	}
	m.Update(EventsMsg{Events: []eval.Event{{Kind: eval.EventRunFinished, Sample: -1, Time: fixedStart.Add(2 * 60e9)}}})
	if s := screenText(m); !strings.Contains(s, "finished in 2m00s") {
		t.Fatalf("finished run:\n%s", s)
	}
}

// A large live run derives (filters, sorts, aggregates) on a timer rather
// than on every event; the rows and their counts catch up on the tick.
func TestLargeLiveRunDerivesOnATick(t *testing.T) {
	opts := Options{Live: true, Started: fixedStart, Results: manyResults(deriveEagerRows + 10), Metrics: []eval.Metric{eval.Faithfulness}}
	m := newTestModel(t, opts, 100, 30)
	extra := manyResults(deriveEagerRows + 12)[deriveEagerRows+10:]
	m.lastDerive = m.now() // as if it had just derived
	_, cmd := m.Update(EventsMsg{Events: []eval.Event{{Kind: eval.EventSampleFinished, Result: extra[0]}}})
	if cmd == nil || len(m.shown) != deriveEagerRows+10 {
		t.Fatalf("derived at once (%d shown) or scheduled nothing (cmd %v)", len(m.shown), cmd != nil)
	}
	_, cmd2 := m.Update(EventsMsg{Events: []eval.Event{{Kind: eval.EventSampleFinished, Result: extra[1]}}})
	if cmd2 != nil {
		t.Fatal("a second derive was scheduled while one is pending")
	}
	m.Update(deriveMsg{})
	if len(m.shown) != deriveEagerRows+12 {
		t.Fatalf("after the tick %d shown, want %d", len(m.shown), deriveEagerRows+12)
	}
}

func TestASCIIMode(t *testing.T) {
	opts := fixtureOptions()
	opts.ASCII = true
	opts.Live = true
	m := newTestModel(t, opts, 100, 40)
	// Every glyph of the chrome must be unambiguous; CJK data is wide,
	// not ambiguous, and is allowed.
	check := func(where string) {
		t.Helper()
		for _, r := range screenText(m) {
			if runewidth.IsAmbiguousWidth(r) {
				t.Fatalf("%s: ambiguous-width glyph %q in --ascii mode:\n%s", where, r, screenText(m))
			}
		}
	}
	check("table")
	press(m, "j", "j", "j", "enter") // an English sample, so data brings no glyphs
	check("detail")
	press(m, "esc", "?")
	check("help")
	press(m, "esc", "q")
	check("quit question")
}
