package tui

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/eval/report/labels"
)

// critAnswer mixes scripts so the highlighted matches sit after wide
// characters: their byte offsets are not their columns.
const critAnswer = "Fill in form TR-7 within 30 days; 不确定时请咨询HR。 Or ask HR."

// criteriaRun is a run of faithfulness and four criteria: sample 0 passes
// them all, sample 1 fails the yes_no (1 of 3 draws), reaches the rubric's
// middle level, misses a checklist item and says what not_contains
// forbids twice; sample 2 has criteria that did not score.
func criteriaRun() []*eval.Result {
	level := func(n int) *int { return &n }
	scored := func(v float64) *float64 { return &v }
	res := func(i int, q, a string) *eval.Result {
		return &eval.Result{Index: i, ID: "c" + string(rune('0'+i)), Question: q, Answer: a, Contexts: []string{"Claims within 30 days on form TR-7."},
			Scores: map[eval.Metric]*float64{eval.Faithfulness: scored(1)},
			Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}, Errors: map[eval.Metric]string{}}
	}
	set := func(r *eval.Result, name string, st eval.Status, v *float64, err string, tr *criteria.Trace) {
		m := eval.Metric(name)
		r.Status[m], r.Scores[m] = st, v
		if err != "" {
			r.Errors[m] = err
		}
		if tr != nil {
			if r.Criteria == nil {
				r.Criteria = map[string]*criteria.Trace{}
			}
			r.Criteria[name] = tr
		}
	}
	r0 := res(0, "How do I claim travel expenses?", "Fill in form TR-7 within 30 days.")
	set(r0, "polite", eval.StatusOK, scored(1), "", &criteria.Trace{Draws: []criteria.Draw{draw(1, "polite", ""), draw(1, "polite", ""), draw(1, "polite", "")}})
	set(r0, "tone", eval.StatusOK, scored(1), "", &criteria.Trace{Level: level(3), Description: "Fully in the company's register"})
	set(r0, "form", eval.StatusOK, scored(1), "", &criteria.Trace{Items: []criteria.ItemVerdict{item("Names the form", 1, "TR-7", "")}})
	set(r0, "no_hr", eval.StatusOK, scored(1), "", &criteria.Trace{Reason: "none of the 2 values found"})

	r1 := res(1, "报销差旅费要怎么办？", critAnswer)
	set(r1, "polite", eval.StatusOK, scored(0), "", &criteria.Trace{Draws: []criteria.Draw{
		draw(1, "courteous wording throughout", ""),
		draw(0, "sends the employee to HR instead of answering", "请咨询HR"),
		draw(0, "deflects the question", "Or ask HR.")}})
	set(r1, "tone", eval.StatusOK, scored(0.5), "", &criteria.Trace{Level: level(2), Description: "Partly in the company's register",
		Reason: "mixes a formal instruction with a deflection", Quote: "Or ask HR."})
	set(r1, "form", eval.StatusOK, scored(2.0/3), "", &criteria.Trace{Items: []criteria.ItemVerdict{
		item("Names the form", 1, "the answer names form TR-7", "form TR-7"),
		item("Gives the deadline", 1, "30 days", "within 30 days"),
		item("Names the approver", 0, "no approver is named", "")}})
	hr, ask := strings.Index(critAnswer, "咨询HR"), strings.Index(critAnswer, "ask HR")
	set(r1, "no_hr", eval.StatusOK, scored(0), "", &criteria.Trace{Reason: "2 forbidden values found", Matches: []criteria.Match{
		{Start: hr, End: hr + len("咨询HR"), Text: "咨询HR", What: "咨询HR"},
		{Start: ask, End: ask + len("ask HR"), Text: "ask HR", What: "ask HR"}}})

	r2 := res(2, "Can I claim a taxi?", "Yes, with a receipt.")
	set(r2, "polite", eval.StatusUnsupported, nil, "a yes_no criterion needs an LLM judge: this judge only runs the exact checks", nil)
	set(r2, "tone", eval.StatusMissingInput, nil, "criterion tone reads the reference, which this sample does not have", nil)
	set(r2, "form", eval.StatusParseError, nil, "the judge gave 2 item verdicts for 1 items", nil)
	set(r2, "no_hr", eval.StatusOK, scored(1), "", &criteria.Trace{Reason: "none of the 2 values found"})
	return []*eval.Result{r0, r1, r2}
}

func draw(v int, reason, quote string) criteria.Draw {
	return criteria.Draw{Verdict: v, Reason: reason, Quote: quote}
}

func item(text string, v int, reason, quote string) criteria.ItemVerdict {
	return criteria.ItemVerdict{Item: text, Verdict: v, Reason: reason, Quote: quote}
}

func criteriaOptions() Options {
	return Options{Dataset: "claims.jsonl", Metrics: []eval.Metric{eval.Faithfulness}, Results: criteriaRun(), Started: fixedStart,
		Criteria:     []string{"polite", "tone", "form", "no_hr"},
		CriteriaPass: map[string]float64{"polite": 1, "tone": 0.5, "form": 1, "no_hr": 1}}
}

func TestCriteriaColumns(t *testing.T) {
	m := newTestModel(t, criteriaOptions(), 100, 30)
	screen := screenText(m)
	head := strings.Fields(lineOf(screen, "question"))
	if want := []string{"F", "poli…", "tone", "form", "no_hr", "diagnosis"}; !slices.Equal(head[len(head)-len(want):], want) {
		t.Errorf("column titles %q, want them to end %q", head, want)
	}
	for _, tc := range []struct{ sample, cells string }{
		{"How do I claim", "1.000 1.000 1.000 1.000 1.000 ok"},
		{"报销差旅费", "1.000 0.000 0.500 0.667 0.000 criterion"},
		{"Can I claim a taxi", "1.000 unsup n/a err 1.000 failed"},
	} {
		if l := lineOf(screen, tc.sample); !strings.HasSuffix(strings.Join(strings.Fields(l), " "), tc.cells) {
			t.Errorf("row %q: %q, want it to end %q", tc.sample, l, tc.cells)
		}
	}
	// The diagnosis line counts the class of a run with criteria.
	if line := flat(lineOf(screen, "diagnosis ")); !strings.Contains(line, "diagnosis criterion 1 ok 1 failed 1") {
		t.Errorf("diagnosis line %q, want criterion 1 counted", line)
	}
	// A failing criterion marks the row low (▾) and is its diagnosis though
	// every metric passes.
	for i, want := range []rowMark{markOK, markLow, markFailed} {
		if got := m.rows[i].mark; got != want {
			t.Errorf("sample %d: mark %d, want %d", i, got, want)
		}
	}
}

func TestCriteriaFilter(t *testing.T) {
	m := newTestModel(t, criteriaOptions(), 100, 30)
	for _, tc := range []struct {
		filter string
		want   []int
	}{
		{"polite<1", []int{1}},
		{"form<1", []int{1}},
		{"form>=0.667", []int{0, 1}},
		{"tone=0.5", []int{1}},
		{"no_hr!=0", []int{0, 2}},
		{"no_hr=1 f=1", []int{0, 2}},
		{"status:unsupported", []int{2}},
		{"status:missing_input", []int{2}},
		{"status:low", []int{1}},
		{"diag:criterion", []int{1}},
	} {
		applyFilter(m, tc.filter)
		if m.filterErr != "" {
			t.Errorf("%s: %s", tc.filter, m.filterErr)
		}
		if got := shownSamples(m); !slices.Equal(got, tc.want) {
			t.Errorf("%s shows %v, want %v", tc.filter, got, tc.want)
		}
		press(m, "esc")
	}
	if _, err := m.readFilter("politeness<1"); err == nil || !strings.Contains(err.Error(), "a criterion (polite, tone, form, no_hr)") {
		t.Errorf("an unknown name: %v, want the criteria listed", err)
	}
	// Without criteria the name is no term.
	if _, err := parseFilter("polite<1", critSet{}); err == nil {
		t.Error("polite<1 parsed in a run without criteria")
	}
}

func TestCriteriaSort(t *testing.T) {
	m := newTestModel(t, criteriaOptions(), 100, 30)
	for _, tc := range []struct {
		keys []string
		name string
		want []int
	}{
		// The keys go on from the order before. Worst first; a sample
		// without a score goes last either way.
		{[]string{"s", "s"}, "polite", []int{1, 0, 2}},
		{[]string{"s"}, "tone", []int{1, 0, 2}},
		{[]string{"S"}, "tone", []int{0, 1, 2}},
		{[]string{"s"}, "form", []int{1, 0, 2}},
		{[]string{"S"}, "form", []int{0, 1, 2}},
		{[]string{"s"}, "no_hr", []int{1, 0, 2}},
		{[]string{"s"}, "diagnosis", nil},
	} {
		press(m, tc.keys...)
		if got := m.sortKeys[m.sortIdx].name; got != tc.name {
			t.Fatalf("after %v the sort is by %s, want %s", tc.keys, got, tc.name)
		}
		if got := shownSamples(m); tc.want != nil && !slices.Equal(got, tc.want) {
			t.Errorf("by %s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if !strings.Contains(lineOf(screenText(m), "question"), "diagnosis^") {
		t.Error("the diagnosis column is not marked sorted")
	}
}

func TestCriteriaDetail(t *testing.T) {
	m := newTestModel(t, criteriaOptions(), 120, 200)
	press(m, "j", "enter")
	page := screenText(m)
	for _, want := range []string{
		"criterion polite  0.000  (passes at 1)",
		"✗ draw 2 sends the employee to HR instead of answering",
		`quote "请咨询HR"`,
		"1 of 3 draws yes: the majority says no = 0.000",
		"level 2: Partly in the company's register",
		"✗ Names the approver",
		"2 of 3 items passed = 0.667",
		"2 forbidden values found",
		`match "咨询HR" (咨询HR)`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	press(m, "esc", "j", "enter")
	page = screenText(m)
	for _, want := range []string{
		"criterion polite  (passes at 1)\n  unsupported: a yes_no criterion needs an LLM judge",
		"Not computable\n  tone: missing_input: criterion tone reads the reference",
		"Failures\n  form: parse_error: the judge gave 2 item verdicts",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	// tab reaches the criteria's sections after the metrics'.
	m = newTestModel(t, criteriaOptions(), 120, 20)
	press(m, "j", "enter", "2")
	if first := strings.Split(screenText(m), "\n")[1]; first != "Question" {
		t.Errorf("2, a key past the run's one metric, moved the page to %q", first)
	}
	press(m, "tab", "tab")
	if first := strings.Split(screenText(m), "\n")[1]; !strings.HasPrefix(first, "criterion polite") {
		t.Errorf("two tabs show %q first, want the polite section", first)
	}
}

// The matches are marked where they are in the wrapped, sanitised answer,
// after wide characters and an escape that sanitising turns into text.
func TestMarkQuoteSpans(t *testing.T) {
	rev := lipgloss.NewStyle().Reverse(true)
	for _, tc := range []struct {
		text  string
		find  []string
		width int
		want  []string // the marked text on each line
	}{
		{critAnswer, []string{"咨询HR", "ask HR"}, 200, []string{"咨询HR|ask HR"}},
		{critAnswer, []string{"咨询HR", "ask HR"}, 30, []string{"", "咨询HR", "ask HR"}},
		{"a\x1b[31mb ask HR", []string{"ask HR"}, 200, []string{"ask HR"}},
	} {
		var spans []span
		for _, f := range tc.find {
			i := strings.Index(tc.text, f)
			spans = append(spans, span{i, i + len(f)})
		}
		lines := markQuote(wrap(tc.text, tc.width), tc.text, spans, rev)
		if len(lines) != len(tc.want) {
			t.Fatalf("%q at %d: %d lines, want %d", tc.text, tc.width, len(lines), len(tc.want))
		}
		for i, l := range lines {
			if got := reversed(l); got != tc.want[i] {
				t.Errorf("%q at %d, line %d %q: marked %q, want %q", tc.text, tc.width, i, ansi.Strip(l), got, tc.want[i])
			}
		}
	}
}

// reversed is the text of a line's reversed runs, joined by |.
func reversed(l string) string {
	var runs []string
	for _, part := range strings.Split(l, "\x1b[7m")[1:] {
		runs = append(runs, ansi.Strip(strings.SplitN(part, "\x1b[m", 2)[0]))
	}
	return strings.Join(runs, "|")
}

func TestGoldenCriteriaDetail(t *testing.T) {
	m := New(criteriaOptions())
	m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
	requireGoldenFrame(t, m, [2]int{120, 40}, []string{"j", "enter", "tab", "tab"}, "criterion polite")
}

// The block of the other metrics' scores stays in its 64-byte size class
// with the pointer to the criteria's.
func TestMoreMetricsSize(t *testing.T) {
	if n := unsafe.Sizeof(moreMetrics{}); n > 64 {
		t.Errorf("moreMetrics is %d bytes, want at most 64", n)
	}
}

// Two runs compared: the metrics get their Δ columns and sort keys, the
// criteria neither, and their columns and sections stay.
func TestCriteriaCompared(t *testing.T) {
	m := newTestModel(t, criteriaOptions(), 120, 40)
	m.enterCompare("run-1", criteriaRun(), "run-2", criteriaRun())
	head := strings.Fields(lineOf(screenText(m), "question"))
	if want := []string{"F", "ΔF", "poli…", "tone", "form", "no_hr", "diagnosis"}; !slices.Equal(head[len(head)-len(want):], want) {
		t.Errorf("column titles %q, want them to end %q", head, want)
	}
	var keys []string
	for _, k := range m.sortKeys {
		keys = append(keys, k.name)
	}
	if want := []string{"index", "faithfulness", "change of faithfulness", "polite", "tone", "form", "no_hr", "diagnosis"}; !slices.Equal(keys, want) {
		t.Errorf("sort keys %q, want %q", keys, want)
	}
	press(m, "j", "enter")
	if page := screenText(m); !strings.Contains(page, "criterion no_hr  0.000") {
		t.Errorf("the compared page lacks the criteria:\n%s", page)
	}
}

// A run whose criteria the interface was not told of shows the metrics
// alone, as before, and still names a criterion's failure on the page of
// the row it marks failed.
func TestCriteriaNotGiven(t *testing.T) {
	opts := criteriaOptions()
	opts.Criteria, opts.CriteriaPass = nil, nil
	m := newTestModel(t, opts, 100, 60)
	if head := strings.Fields(lineOf(screenText(m), "question")); !slices.Equal(head[len(head)-2:], []string{"F", "diagnosis"}) {
		t.Errorf("column titles %q, want F and diagnosis last", head)
	}
	if _, err := m.readFilter("polite<1"); err == nil {
		t.Error("polite<1 parsed without the run's criteria")
	}
	press(m, "j", "j", "enter")
	page := screenText(m)
	if strings.Contains(page, "criterion polite") || !strings.Contains(page, "Failures\n  form: parse_error") {
		t.Errorf("the page of a sample with a failed criterion:\n%s", page)
	}
}

func TestCriteriaLegend(t *testing.T) {
	m := newTestModel(t, criteriaOptions(), 160, 60)
	press(m, "?")
	want := "Criteria, filtered by name (polite<1): red below their pass level (polite 1, tone 0.5, form 1, no_hr 1), marking the row ▾."
	if !strings.Contains(screenText(m), want) {
		t.Errorf("the help page lacks %q:\n%s", want, screenText(m))
	}
}

// A criterion's verdict and a checklist's items are labelled on the
// detail page like a metric's items, in the page's order (the file's,
// not the names'): the label shows under what it labels.
func TestCriteriaLabels(t *testing.T) {
	h := &fakeLabels{labels: map[string]labels.Label{}}
	opts := criteriaOptions()
	opts.Labels, opts.RunID = h, "run-c"
	m := newTestModel(t, opts, 120, 200)
	drive(t, m, m.Init())
	pressDrive(t, m, "j", "enter")
	for _, tc := range []struct {
		keys       []string
		task, item string
		value      int
		shown      string
	}{
		{[]string{"]", "d"}, "polite", eval.CriterionVerdict, 1, "> human: verdict 1, the judge said 0 (disputed)"},
		{[]string{"]", "a"}, "form", "Names the form", 1, "> human: agrees (verdict 1)"},
		{[]string{"[", "d"}, "polite", eval.CriterionVerdict, 1, "> human: verdict 1, the judge said 0 (disputed)"},
		{[]string{"[", "a"}, "no_hr", eval.CriterionVerdict, 0, "> human: agrees (verdict 0)"},
		{[]string{"[", "d"}, "form", "Names the approver", 1, "> human: verdict 1, the judge said 0 (disputed)"},
	} {
		pressDrive(t, m, tc.keys...)
		it := m.lab.items[m.lab.cursor]
		if l := h.labels[it.Key]; it.Task != tc.task || it.Text != tc.item || l.Value != tc.value {
			t.Fatalf("%v labelled %s %q as %d, want %s %q as %d", tc.keys, it.Task, it.Text, l.Value, tc.task, tc.item, tc.value)
		}
		if page := flat(screenText(m)); !strings.Contains(page, flat(tc.shown)) {
			t.Fatalf("the page lacks %q:\n%s", tc.shown, screenText(m))
		}
	}
	// Each label sits under what it labels.
	page := screenText(m)
	for _, pair := range [][2]string{
		{"1 of 3 draws yes: the majority says no", "human: verdict 1, the judge said 0"},
		{"no approver is named", "human: verdict 1, the judge said 0"},
		{"2 forbidden values found", "human: agrees (verdict 0)"},
	} {
		if next := lineAfter(page, pair[0]); !strings.Contains(next, pair[1]) {
			t.Errorf("under %q: %q, want %q", pair[0], next, pair[1])
		}
	}
}

// lineAfter is the line after the first that contains s.
func lineAfter(page, s string) string {
	lines := strings.Split(page, "\n")
	for i, l := range lines[:len(lines)-1] {
		if strings.Contains(l, s) {
			return lines[i+1]
		}
	}
	return ""
}

// r re-runs what the page is on: tab to a criterion's section focuses that
// criterion and r plans it alone; r with no focus plans the metrics and
// every criterion, and shift+tab back above the sections clears the focus.
func TestRerunCriteria(t *testing.T) {
	all := []eval.Metric{eval.Faithfulness, "polite", "tone", "form", "no_hr"}
	tests := []struct {
		name    string
		keys    []string
		want    []eval.Metric
		wantAsk string
	}{
		{"r plans the metrics and the criteria", []string{"enter", "r"}, all, "Re-run sample 0 (all metrics and criteria)?"},
		{"tab to faithfulness plans it alone", []string{"enter", "tab", "r"}, []eval.Metric{eval.Faithfulness}, "Re-run sample 0 (faithfulness)?"},
		{"tab to a criterion plans it alone", []string{"enter", "tab", "tab", "r"}, []eval.Metric{"polite"}, "Re-run sample 0 (polite)?"},
		{"the last criterion", []string{"enter", "tab", "tab", "tab", "tab", "tab", "r"}, []eval.Metric{"no_hr"}, "Re-run sample 0 (no_hr)?"},
		{"1 after a criterion focuses the metric", []string{"enter", "tab", "tab", "tab", "1", "r"}, []eval.Metric{eval.Faithfulness}, "(faithfulness)?"},
		{"back to the top re-runs all", []string{"enter", "tab", "tab", "shift+tab", "shift+tab", "r"}, all, "(all metrics and criteria)?"},
		{"R plans the metrics and the criteria", []string{"R"}, all, "Re-run 3 samples (all metrics and criteria)?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := fixtureHost()
			o := criteriaOptions()
			o.Host, o.RunID = h, "run-1"
			m := newTestModel(t, o, 120, 20)
			pressDrive(t, m, tt.keys...)
			if len(h.planned) != 1 || !slices.Equal(h.planned[0].Metrics, tt.want) {
				t.Fatalf("planned %+v, want metrics %v", h.planned, tt.want)
			}
			if s := flat(screenText(m)); !strings.Contains(s, tt.wantAsk) {
				t.Fatalf("question %q not on screen:\n%s", tt.wantAsk, screenText(m))
			}
		})
	}
}
