package tui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/internal/sanitize"
)

func TestWrapBreaksWhereUnicodeAllows(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		width int
		want  []string
	}{
		{"english breaks between words", "the judge found two statements unsupported", 16,
			[]string{"the judge found", "two statements", "unsupported"}},
		{"chinese breaks between ideographs", "纳税人识别号不变无需重新办理税务登记", 10,
			[]string{"纳税人识别", "号不变无需", "重新办理税", "务登记"}},
		// 。and ，may not start a line: the ideograph before them moves down.
		{"closing punctuation stays with its text", "原识别号作废。新号码", 12,
			[]string{"原识别号作", "废。新号码"}},
		{"no break after an opening bracket", "答案（错误）是会变", 8,
			[]string{"答案（错", "误）是会", "变"}},
		{"mixed chinese and english", "识别号 ID 不变 unless the law changes", 14,
			[]string{"识别号 ID 不变", "unless the law", "changes"}},
		{"a word longer than the line is cut", "https://example.com/a/very/long/path", 12,
			[]string{"https://", "example.com/", "a/very/long/", "path"}},
		{"a token without break opportunities is cut at clusters", "abcdefghijklmnopqrstuvwxyz", 10,
			[]string{"abcdefghij", "klmnopqrst", "uvwxyz"}},
		{"a wide rune is never split", "ab中文字", 5,
			[]string{"ab中", "文字"}},
		{"combining marks stay on their letter", "cafe\u0301 cafe\u0301 cafe\u0301", 6,
			[]string{"cafe\u0301", "cafe\u0301", "cafe\u0301"}},
		{"an emoji with a modifier is one character", "ok 👍🏽 family 🇨🇳 done", 10,
			[]string{"ok 👍🏽", "family 🇨🇳", "done"}},
		// The sanitiser shows a zero-width joiner, so a joined emoji shows
		// its parts; the wrapper keeps them all.
		{"a joined emoji shows its joiners", "👨‍👩‍👧", 12,
			[]string{"👨<U+200D>👩", "<U+200D>👧"}},
		{"paragraphs and blank lines are kept", "one\r\n\ntwo", 10,
			[]string{"one", "", "two"}},
		{"continuation lines hang under the indent", "     content of the judge prompt goes on", 20,
			[]string{"     content of the", "     judge prompt", "     goes on"}},
		{"an indent wider than half the line hangs at the half", "                abc def ghi", 20,
			[]string{"                abc", "         def ghi"}},
		{"tabs are four spaces", "\tab cd", 6,
			[]string{"    ab", "  cd"}},
		{"escapes are shown, not obeyed", "a\x1b[2Jb", 20,
			[]string{`a\x1b[2Jb`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wrap(tt.text, tt.width)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("wrap(%q, %d)\n got %q\nwant %q", tt.text, tt.width, got, tt.want)
			}
			requireWrapped(t, tt.text, tt.width, got)
		})
	}
}

// requireWrapped checks the promises of wrap on any input: no line wider
// than width, and the lines, read in order, are the sanitised source with
// only spaces dropped at the breaks (and the hanging indent added).
func requireWrapped(t testing.TB, src string, width int, lines []string) {
	t.Helper()
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			t.Fatalf("line %d is %d cells, wider than %d: %q\nsource %q", i, w, width, l, src)
		}
		if strings.Contains(l, "\n") {
			t.Fatalf("line %d holds a newline: %q", i, l)
		}
	}
	text := strings.ReplaceAll(sanitize.Text(strings.ReplaceAll(src, "\r\n", "\n")), "\t", "    ")
	pos, paragraphs := 0, 1
	skipSpaces := func() {
		for pos < len(text) && text[pos] == ' ' {
			pos++
		}
	}
	for i, l := range lines {
		skipSpaces()
		if i > 0 && pos < len(text) && text[pos] == '\n' {
			pos++
			paragraphs++
			skipSpaces()
		}
		body := strings.TrimLeft(l, " ")
		if !strings.HasPrefix(text[pos:], body) {
			t.Fatalf("line %d %q is not where the source goes on: %q\nsource %q\nlines %q", i, l, text[pos:], src, lines)
		}
		pos += len(body)
	}
	skipSpaces()
	if pos != len(text) || paragraphs != strings.Count(text, "\n")+1 {
		t.Fatalf("the lines lose text: %q left of %q (%d of %d paragraphs)\nlines %q", text[pos:], text, paragraphs, strings.Count(text, "\n")+1, lines)
	}
}

// wrapPieces are what analysts' data is made of: Chinese and English words
// and punctuation, emoji (with modifiers and joiners), combining marks,
// Hangul, wide and ambiguous symbols, indentation, tabs, line ends and
// control characters the sanitiser makes visible.
var wrapPieces = []string{
	"纳税人", "识别号", "不变", "。", "，", "、", "（", "）", "「", "」", "？", "！",
	"the", "judge", "statement", "unsupported", "a", "I", "-", "/", "https://example.com/x",
	" ", " ", " ", "  ", "    ", "\t", "\n", "\r\n", "\n\n",
	"👍", "👍🏽", "👨‍👩‍👧", "🇨🇳", "❤️", "e\u0301", "\u0301", "한국어", "ｆｕｌｌ", "…", "·", "→",
	"\x1b[31m", "\x00", "\u202e", "\u200b", "0.333", "[1]", "\"key\":", "{", "}",
}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(40) {
		b.WriteString(wrapPieces[r.IntN(len(wrapPieces))])
	}
	return b.String()
}

func TestWrapKeepsEveryCharacterWithinTheWidth(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 3))
	for range 3000 {
		src, width := randomText(r), 2+r.IntN(40)
		requireWrapped(t, src, width, wrap(src, width))
	}
}

// FuzzWrap runs the same checks on any input: go test ./tui -fuzz FuzzWrap.
func FuzzWrap(f *testing.F) {
	f.Add("会变。转为一般纳税人后需要重新办理税务登记，领取新的纳税人识别号，原识别号作废。", 20)
	f.Add("     [reply 1]\n     {\"statements\": [\"the id does not change\"]}", 17)
	f.Add("ok 👨‍👩‍👧 family e\u0301\u0301 \t\r\n\x1b]52;c;x\x07", 3)
	f.Fuzz(func(t *testing.T, src string, width int) {
		width = 2 + abs(width)%80
		requireWrapped(t, src, width, wrap(src, width))
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Below 80 columns lines are cut; each cut line says so with the ellipsis
// (~ in ASCII mode), never splits a wide rune and never overflows.
func TestClippedLinesEndWithEllipsis(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		cut  []string // the start of lines that must be cut
	}{
		{"table", nil, []string{"▾   0 小规模纳税人转为", "✓   1 When was the Eif"}},
		// The prompt list gives way column by column (the file, then the
		// hash) before it cuts a line: at these widths no row is cut, and
		// none overflows.
		{"prompt list", []string{"p"}, nil},
	}
	for _, tt := range tests {
		for _, ascii := range []bool{false, true} {
			for _, width := range []int{60, 61, 71} {
				t.Run(fmt.Sprintf("%s_%d_ascii=%v", tt.name, width, ascii), func(t *testing.T) {
					opts := hostOptions(fixtureHost())
					opts.ASCII = ascii
					m := newTestModel(t, opts, width, 20)
					pressDrive(t, m, tt.keys...)
					tail := m.g.ellipsis
					lines := strings.Split(screenText(m), "\n")
					for i, l := range lines {
						if w := ansi.StringWidth(l); w > width {
							t.Fatalf("line %d is %d cells wide, more than %d: %q", i, w, width, l)
						}
					}
					for _, start := range tt.cut {
						if ascii {
							start = strings.ReplaceAll(strings.ReplaceAll(start, "✓", m.g.ok), "▾", m.g.low)
						}
						l := lineOf(strings.Join(lines, "\n"), start)
						if l == "" {
							t.Fatalf("no line starts %q:\n%s", start, strings.Join(lines, "\n"))
						}
						if !strings.Contains(l, tail) {
							t.Fatalf("the cut line does not say so with %q: %q", tail, l)
						}
					}
				})
			}
		}
	}
}

// A long message in the raw view continues under its own indent, not at
// the left edge, so the [role] headings still stand out.
func TestRawViewKeepsTheHangingIndent(t *testing.T) {
	const msg = "判断每条陈述能否从上下文推出。Judge whether each statement can be inferred from the context, and give a reason for every verdict."
	raw := "== call 1 of 1  key k0a\n   [user]\n     " + msg + "\n   [reply 1]\n     {}"
	opts := fixtureOptions()
	opts.RawCalls = func([]string) (string, error) { return raw, nil }
	for _, width := range []int{60, 80} {
		t.Run(fmt.Sprintf("%d", width), func(t *testing.T) {
			m := newTestModel(t, opts, width, 30)
			pressDrive(t, m, "enter", "x")
			lines := strings.Split(screenText(m), "\n")
			start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "       判断") })
			end := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "     [reply 1]") })
			if start < 0 || end < start+2 {
				t.Fatalf("the message does not wrap under its heading:\n%s", strings.Join(lines, "\n"))
			}
			var text string
			for _, l := range lines[start:end] {
				if !strings.HasPrefix(l, "       ") || l[7] == ' ' || ansi.StringWidth(l) > width {
					t.Fatalf("line %q is not under the message's indent (7 cells) or overflows %d", l, width)
				}
				text += strings.TrimSpace(l) + " "
			}
			if strings.ReplaceAll(text, " ", "") != strings.ReplaceAll(msg, " ", "") {
				t.Fatalf("the message lost text: %q", text)
			}
		})
	}
}
