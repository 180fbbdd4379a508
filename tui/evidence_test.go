package tui

import (
	"regexp"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/eval"
)

// evidenceOptions is the fixture's taxpayer sample with the evidence an
// LLM judge of contract 2 gives: a true quote, a quote chunk 2 does not
// hold (flagged by the run's check), a true quote in chunk 2; its recall
// classifications came from an older reply and have none.
func evidenceOptions() Options {
	opts := fixtureOptions()
	res := *opts.Results[0]
	tr := *res.Faithfulness
	tr.Statements = append([]eval.StatementVerdict(nil), tr.Statements...)
	cites := []*eval.Citation{
		{Chunk: 1, Quote: "其纳税人识别号不变"},
		{Chunk: 2, Quote: "无需重新办理税务登记"},
		{Chunk: 2, Quote: "可以使用增值税专用发票"},
	}
	for i := range tr.Statements {
		cites[i].Check(res.Contexts)
		tr.Statements[i].Evidence = cites[i]
	}
	res.Faithfulness = &tr
	opts.Results = []*eval.Result{&res}
	return opts
}

func TestDetailEvidence(t *testing.T) {
	m := newTestModel(t, evidenceOptions(), 120, 40)
	press(m, "enter")
	s := screenText(m)
	for _, want := range []string{
		`evidence [1] "其纳税人识别号不变"`,
		`evidence [2] "无需重新办理税务登记"`,
		"! quote not found in chunk 2",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "> ") || strings.Contains(s, "statement 1:") {
		t.Fatalf("a statement is picked before any key:\n%s", s)
	}

	// ] picks the first judged item, statement 1, and highlights its
	// quote in its chunk; the page does not move.
	press(m, "]")
	s = screenText(m)
	if !strings.Contains(s, "Retrieved chunks (2) · statement 1: quote in [1]") || !strings.Contains(s, "> ✗ 转为一般纳税人后纳税人识别号会变。") {
		t.Fatalf("] did not pick statement 1:\n%s", s)
	}
	if got := highlighted(m.View().Content); got != "其纳税人识别号不变" {
		t.Errorf("highlighted %q, want the quote", got)
	}
	if !strings.HasPrefix(strings.Split(s, "\n")[1], "Question") {
		t.Errorf("picking a statement scrolled the page")
	}
	// j scrolls; the pick stays.
	press(m, "j", "k")
	if m.detail.pick != 1 {
		t.Fatalf("j/k moved the pick to %d", m.detail.pick)
	}

	press(m, "]")
	s = screenText(m)
	if !strings.Contains(s, "statement 2: quote not found in chunk 2") {
		t.Fatalf("the flag of statement 2 is not on the chunks' heading:\n%s", s)
	}
	if got := highlighted(m.View().Content); got != "" {
		t.Errorf("a quote that is not in its chunk is highlighted: %q", got)
	}

	// Past faithfulness, ] walks the items that cite nothing (generated
	// questions, chunks' verdicts: no statement is marked), then recall's
	// statements.
	sawNone := false
	for i := 0; i < 30 && m.detail.pick != 4; i++ {
		press(m, "]")
		sawNone = sawNone || m.detail.pick == 0
	}
	if s = screenText(m); m.detail.pick != 4 || !strings.Contains(s, "> ✓ 纳税人识别号保持不变。") {
		t.Fatalf("] did not reach recall's first statement (pick %d):\n%s", m.detail.pick, s)
	}
	if !sawNone {
		t.Error("no item between faithfulness and recall left the statements unmarked")
	}
	if !strings.Contains(s, "no evidence given") {
		t.Errorf("an old reply's classification does not say it gave no evidence:\n%s", s)
	}

	// [ walks back to statement 1.
	for i := 0; i < 30 && m.detail.pick != 1; i++ {
		press(m, "[")
	}
	if s = screenText(m); !strings.Contains(s, "statement 1: quote in [1]") {
		t.Fatalf("[ did not walk back to statement 1:\n%s", s)
	}

	// Another sample starts with nothing picked.
	press(m, "esc", "enter")
	if s = screenText(m); strings.Contains(s, "statement 1:") {
		t.Fatalf("the pick survived reopening:\n%s", s)
	}
}

// reverseRun is text after an SGR that turns reverse video on (parameter 7).
var reverseRun = regexp.MustCompile(`\x1b\[(?:[0-9;]*;)?7(?:;[0-9;]*)?m([^\x1b]*)`)

// highlighted is the text drawn reversed (the quote's style) on a frame.
func highlighted(frame string) string {
	var b strings.Builder
	for _, m := range reverseRun.FindAllStringSubmatch(frame, -1) {
		b.WriteString(m[1])
	}
	return b.String()
}

// The quote is marked on the wrapped lines of its chunk wherever they
// break, wide characters and sanitised escapes included, and the lines
// keep their layout.
func TestMarkQuote(t *testing.T) {
	rev := lipgloss.NewStyle().Reverse(true)
	chunk := "纳税人由小规模纳税人转为一般纳税人的，其纳税人识别号不变，\x1b[31m无需重新办理税务登记。"
	quote := "其纳税人识别号不变，\x1b[31m无需重新办理"
	from := strings.Index(chunk, quote)
	lines := wrap(chunk, 16)
	marked := markQuote(lines, chunk, []span{{from, from + len(quote)}}, rev)
	var got strings.Builder
	for i := range lines {
		if ansi.Strip(marked[i]) != lines[i] {
			t.Errorf("line %d changed: %q -> %q", i, lines[i], ansi.Strip(marked[i]))
		}
		got.WriteString(highlighted(marked[i]))
	}
	if want := `其纳税人识别号不变，\x1b[31m无需重新办理`; got.String() != want {
		t.Errorf("marked %q, want %q over lines %q", got.String(), want, lines)
	}
	for i, l := range marked {
		if w := ansi.StringWidth(l); w > 16 {
			t.Errorf("line %d is %d cells wide", i, w)
		}
	}
}

func TestGoldenEvidence(t *testing.T) {
	for _, sz := range [][2]int{{120, 40}} {
		t.Run("detail_quote_120x40", func(t *testing.T) {
			m := New(evidenceOptions())
			requireGoldenFrame(t, m, sz, []string{"enter", "]"}, "quote in [1]")
		})
	}
}

// A citation of a chunk the sample does not have is its own flag on the
// page, and what ] says of it on the chunks' heading.
func TestDetailEvidenceNoSuchChunk(t *testing.T) {
	opts := evidenceOptions()
	res := opts.Results[0]
	ev := &eval.Citation{Chunk: 7, Quote: "其纳税人识别号不变"}
	ev.Check(res.Contexts)
	res.Faithfulness.Statements[0].Evidence = ev
	m := newTestModel(t, opts, 120, 40)
	press(m, "enter")
	if s := screenText(m); !strings.Contains(s, "! cites chunk 7, but the sample has 2 chunks") {
		t.Fatalf("the page does not flag the chunk:\n%s", s)
	}
	press(m, "]")
	if s := screenText(m); !strings.Contains(s, "statement 1: cites chunk 7, but the sample has 2 chunks") {
		t.Fatalf("] does not say what statement 1 cites:\n%s", s)
	}
}
