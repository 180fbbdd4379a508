package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
)

// conversationsResults is a finished run of the demo conversations
// (testdata/conversations.jsonl), interleaved as the file has them:
// tax-zh of four turns, the fourth contradicting the first and scored 0;
// leave-en of three, all passing.
func conversationsResults() []*eval.Result {
	turns := []struct {
		conv     string
		turn     int
		q, a     string
		f, cp    float64
		standIn  string
		contexts []string
	}{
		{"tax-zh", 1, "我们公司下个月转为一般纳税人。", "转为一般纳税人后，按一般计税方法计算增值税。", 1, 1, "", []string{"一般纳税人按一般计税方法计算缴纳增值税。"}},
		{"leave-en", 1, "How many days of annual leave do employees get?", "Employees get 5 days of paid leave a year after one year of service.", 1, 1, "", []string{"Employees get 5 days of paid leave a year after one year of service."}},
		{"tax-zh", 2, "那纳税人识别号会变吗？", "它不会变。纳税人由小规模纳税人转为一般纳税人的，其纳税人识别号不变。", 1, 1, "", []string{"纳税人由小规模纳税人转为一般纳税人的，其纳税人识别号不变。"}},
		{"tax-zh", 3, "发票抬头呢？", "发票抬头不需要变更。我们公司下个月转为一般纳税人。", 0.5, 1, "", []string{"发票抬头为纳税人登记的名称。"}},
		{"leave-en", 2, "And after ten years?", "They get more. Employees get 10 days of paid leave a year after ten years.", 1, 1, "", []string{"After ten years of service, employees get 10 days of paid leave a year."}},
		{"leave-en", 3, "Can I carry the unused days over?", "Unused leave can be carried over into the first quarter of the next year.", 1, 1, "", []string{"Unused leave can be carried over into the first quarter of the next year."}},
		{"tax-zh", 4, "转登记以后还能用简易计税吗？", "转为一般纳税人后，不按一般计税方法计算增值税。", 0, 0, "", []string{"一般纳税人不得再转为小规模纳税人。"}},
	}
	var out []*eval.Result
	history := map[string][]eval.Turn{}
	for i, t := range turns {
		r := &eval.Result{
			Index: i, ID: fmt.Sprintf("%s#%d", t.conv, t.turn), ConversationID: t.conv, Turn: t.turn,
			Question: t.q, Answer: t.a, Contexts: t.contexts,
			History: slices.Clone(history[t.conv]),
			Scores:  map[eval.Metric]*float64{eval.Faithfulness: score(t.f), eval.ContextPrecision: score(t.cp)},
			Status: map[eval.Metric]eval.Status{
				eval.Faithfulness: eval.StatusOK, eval.AnswerRelevancy: eval.StatusUnsupported,
				eval.ContextPrecision: eval.StatusOK, eval.ContextRecall: eval.StatusMissingInput,
			},
		}
		if t.turn > 1 {
			r.Standalone = &eval.StandaloneTrace{Status: eval.StatusUnsupported, Reason: "the offline judge cannot rewrite a question"}
		}
		history[t.conv] = append(history[t.conv], eval.Turn{Turn: t.turn, Question: t.q, Answer: t.a, Contexts: t.contexts})
		out = append(out, r)
	}
	return out
}

func conversationsRun() Options {
	opts := fixtureOptions()
	opts.Dataset = "testdata/conversations.jsonl"
	opts.Results = conversationsResults()
	opts.Total = len(opts.Results)
	return opts
}

// lineTexts are the table's lines as the test reads them: a
// conversation's by its id ("tax-zh"), a sample's by its index ("#2").
func lineTexts(m *Model) []string {
	var out []string
	for _, l := range m.lines {
		if n, ok := lineConv(l); ok {
			out = append(out, m.convs.ids[n])
			continue
		}
		out = append(out, fmt.Sprintf("#%d", m.rows[l].index))
	}
	return out
}

func TestConversationRowsFold(t *testing.T) {
	m := newTestModel(t, conversationsRun(), 120, 40)
	// Collapsed by default, in the order their first turns came.
	if got, want := lineTexts(m), []string{"tax-zh", "leave-en"}; !slices.Equal(got, want) {
		t.Fatalf("lines %v, want %v", got, want)
	}
	s := screenText(m)
	for _, w := range []string{"[+] tax-zh  4 turns, fails from turn 4", "[+] leave-en  3 turns", "→/l expand", "←/h collapse"} {
		if !strings.Contains(s, w) {
			t.Errorf("the table lacks %q:\n%s", w, s)
		}
	}
	// The conversation's line shows its worst turn's score.
	if line := lineWith(s, "tax-zh"); !strings.Contains(line, "0.000") {
		t.Errorf("tax-zh's line does not show its worst faithfulness 0.000: %q", line)
	}
	if line := lineWith(s, "leave-en"); strings.Contains(line, "fails") || !strings.Contains(line, "1.000") {
		t.Errorf("leave-en's line: %q", line)
	}

	// → expands, turns in turn order, indented.
	press(m, "right")
	if got, want := lineTexts(m), []string{"tax-zh", "#0", "#2", "#3", "#6", "leave-en"}; !slices.Equal(got, want) {
		t.Fatalf("expanded: lines %v, want %v", got, want)
	}
	if !strings.Contains(screenText(m), "[-] tax-zh") || !strings.Contains(screenText(m), "t2 那纳税人识别号会变吗？") {
		t.Errorf("the expanded conversation:\n%s", screenText(m))
	}
	// enter on a turn opens it; its page shows the conversation before it.
	press(m, "j", "j", "enter")
	if m.screen != screenDetail || m.rows[m.detail.row].index != 2 {
		t.Fatalf("enter on turn 2 did not open sample 2 (screen %v)", m.screen)
	}
	if s := screenText(m); !strings.Contains(s, "Conversation tax-zh, turn 2") || !strings.Contains(s, "1 user: 我们公司下个月转为一般纳税人。") {
		t.Errorf("turn 2's page lacks its history:\n%s", s)
	}
	// n steps to the next turn, then over leave-en's line: it is collapsed.
	press(m, "n")
	if got := m.rows[m.detail.row].index; got != 3 {
		t.Errorf("n went to sample %d, want 3", got)
	}
	press(m, "esc")
	if cursorSample(m) != 3 {
		t.Errorf("back in the table the cursor is on %d, want 3", cursorSample(m))
	}
	// ← on a turn collapses its conversation and lands on its line.
	press(m, "left")
	if got, want := lineTexts(m), []string{"tax-zh", "leave-en"}; !slices.Equal(got, want) {
		t.Fatalf("collapsed: lines %v, want %v", got, want)
	}
	if m.cursor != 0 || cursorSample(m) != -1 {
		t.Errorf("the cursor is at line %d, want tax-zh's line 0", m.cursor)
	}
	// enter on a conversation's line toggles it; on leave-en now.
	press(m, "j", "enter")
	if got, want := lineTexts(m), []string{"tax-zh", "leave-en", "#1", "#4", "#5"}; !slices.Equal(got, want) {
		t.Fatalf("enter on leave-en: lines %v, want %v", got, want)
	}
	if m.screen != screenTable {
		t.Errorf("enter on a conversation's line left the table")
	}
	press(m, "enter")
	if got := len(m.lines); got != 2 {
		t.Errorf("enter again: %d lines, want 2", got)
	}
	if !strings.Contains(screenText(m), "[2/2]") {
		t.Errorf("the position counts lines:\n%s", screenText(m))
	}
	// The ? page lists the fold keys.
	press(m, "?")
	if s := screenText(m); !strings.Contains(s, "expand") || !strings.Contains(s, "collapse") {
		t.Errorf("the help page lacks the fold keys:\n%s", s)
	}
}

// A filter matching a turn shows its conversation expanded, with the
// turns that match; clearing it folds them back.
func TestConversationRowsFilter(t *testing.T) {
	m := newTestModel(t, conversationsRun(), 120, 40)
	m.filter, _ = parseFilter("f<0.6", m.st.crit)
	m.derive()
	if got, want := lineTexts(m), []string{"tax-zh", "#6", "#3"}; !slices.Equal(got, want) {
		// sorted by index: turn 3 (#3) then turn 4 (#6)
		if want2 := []string{"tax-zh", "#3", "#6"}; !slices.Equal(got, want2) {
			t.Fatalf("filtered: lines %v, want %v", got, want2)
		}
	}
	// Folding still works under the filter.
	press(m, "left")
	if got := lineTexts(m); !slices.Equal(got, []string{"tax-zh"}) {
		t.Errorf("folded under the filter: %v", got)
	}
	press(m, "esc")
	if got := lineTexts(m); !slices.Equal(got, []string{"tax-zh", "leave-en"}) {
		t.Errorf("filter cleared: %v", got)
	}
	// Statistics and re-runs take the samples, not the lines.
	if len(m.shown) != 7 {
		t.Errorf("shown %d samples, want 7", len(m.shown))
	}
}

// Sorted on faithfulness, worst first, a conversation stands at its worst
// turn, and its turns stay in turn order.
func TestConversationRowsSort(t *testing.T) {
	opts := conversationsRun()
	// A sample of no conversation keeps its own line among them.
	single := *opts.Results[1]
	single.Index, single.ID, single.ConversationID, single.Turn, single.History = 7, "alone", "", 0, nil
	single.Scores = map[eval.Metric]*float64{eval.Faithfulness: score(0.25), eval.ContextPrecision: score(1)}
	opts.Results = append(opts.Results, &single)
	m := newTestModel(t, opts, 120, 40)
	if got, want := lineTexts(m), []string{"tax-zh", "leave-en", "#7"}; !slices.Equal(got, want) {
		t.Fatalf("by index: %v, want %v", got, want)
	}
	press(m, "s") // faithfulness, ascending
	if got, want := lineTexts(m), []string{"tax-zh", "#7", "leave-en"}; !slices.Equal(got, want) {
		t.Fatalf("by faithfulness: %v, want %v", got, want)
	}
	press(m, "g", "right")
	if got, want := lineTexts(m), []string{"tax-zh", "#0", "#2", "#3", "#6", "#7", "leave-en"}; !slices.Equal(got, want) {
		t.Fatalf("expanded, by faithfulness: %v, want %v", got, want)
	}
}

// A run without conversations has no fold keys and draws its lines as its
// samples.
func TestNoConversationsNoFold(t *testing.T) {
	m := newTestModel(t, fixtureOptions(), 120, 40)
	if m.convs != nil {
		t.Fatal("a run without conversations has conversations")
	}
	if s := screenText(m); strings.Contains(s, "expand") {
		t.Errorf("the footer offers expand:\n%s", s)
	}
	before := slices.Clone(m.lines)
	press(m, "right", "left")
	if !slices.Equal(before, m.lines) || !slices.Equal(m.lines, m.shown) {
		t.Errorf("→/← changed the lines of a run without conversations")
	}
}

func lineWith(screen, needle string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, needle) {
			return l
		}
	}
	return ""
}

// The demo conversations' table at 100x30: collapsed, then tax-zh
// expanded.
func TestGoldenConversationRows(t *testing.T) {
	for _, tt := range []struct {
		name string
		keys []string
		wait string
	}{
		{"collapsed", nil, "leave-en"},
		{"expanded", []string{"right"}, "转登记以后还能用简易计税吗"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := New(conversationsRun())
			m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
			requireGoldenFrame(t, m, [2]int{100, 30}, tt.keys, tt.wait)
		})
	}
}

// While a run streams, a started turn joins its conversation at once (its
// texts carry the conversation), and results fill the conversation's line.
func TestConversationRowsLive(t *testing.T) {
	opts := conversationsRun()
	results := opts.Results
	opts.Results, opts.Live = nil, true
	m := newTestModel(t, opts, 120, 40)
	started := func(r *eval.Result) eval.Event {
		return eval.Event{Kind: eval.EventSampleStarted, Sample: r.Index, Result: &eval.Result{
			Index: r.Index, ID: r.ID, Question: r.Question, ConversationID: r.ConversationID, Turn: r.Turn}}
	}
	m.Update(EventsMsg{Events: []eval.Event{started(results[0]), started(results[2])}})
	if got, want := lineTexts(m), []string{"tax-zh"}; !slices.Equal(got, want) {
		t.Fatalf("started: lines %v, want %v", got, want)
	}
	if s := screenText(m); !strings.Contains(s, "[+] tax-zh  2 turns") {
		t.Errorf("the running conversation:\n%s", s)
	}
	var done []eval.Event
	for _, r := range results {
		done = append(done, started(r), eval.Event{Kind: eval.EventSampleFinished, Sample: r.Index, Result: r})
	}
	m.Update(EventsMsg{Events: done})
	if got, want := lineTexts(m), []string{"tax-zh", "leave-en"}; !slices.Equal(got, want) {
		t.Fatalf("finished: lines %v, want %v", got, want)
	}
	if s := screenText(m); !strings.Contains(s, "[+] tax-zh  4 turns, fails from turn 4") {
		t.Errorf("the finished conversation:\n%s", s)
	}
	// y on a conversation's line says what to copy instead.
	press(m, "y")
	if s := screenText(m); !strings.Contains(s, "a conversation's line is no sample") {
		t.Errorf("y on a conversation's line:\n%s", s)
	}
}
