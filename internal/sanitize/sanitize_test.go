package sanitize

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
	"testing/quick"
	"unicode/utf8"
)

// hostile is the corpus every function is tested on: what a dataset, a
// file name or a judge's reply may carry to attack a terminal or a reader.
var hostile = []struct {
	name, in, line, text string
}{
	{"plain ASCII", "What is the capital of France?", "What is the capital of France?", "What is the capital of France?"},
	{"CJK", "小规模纳税人转为一般纳税人后，纳税人识别号会变吗？", "小规模纳税人转为一般纳税人后，纳税人识别号会变吗？", "小规模纳税人转为一般纳税人后，纳税人识别号会变吗？"},
	{"emoji", "ok 👍 🇫🇷 é", "ok 👍 🇫🇷 é", "ok 👍 🇫🇷 é"},
	{"markdown stays", "| a | *b* `c` # d", "| a | *b* `c` # d", "| a | *b* `c` # d"},
	{"OSC 52 clipboard write", "x\x1b]52;c;ZWNobyBwd25lZA==\x07y", `x\x1b]52;c;ZWNobyBwd25lZA==\x07y`, `x\x1b]52;c;ZWNobyBwd25lZA==\x07y`},
	{"OSC 52 with ST", "\x1b]52;c;aGk=\x1b\\", `\x1b]52;c;aGk=\x1b\`, `\x1b]52;c;aGk=\x1b\`},
	{"OSC 0 window title", "\x1b]0;owned\x07", `\x1b]0;owned\x07`, `\x1b]0;owned\x07`},
	{"CSI colour", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, `\x1b[31mred\x1b[0m`},
	{"CSI clear screen and move", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`, `\x1b[2J\x1b[H`},
	{"C1 CSI", "a\u009b31mb", `a\u009b31mb`, `a\u009b31mb`},
	{"C1 OSC and NEL", "\u009d52;c;x\u009c \u0085", `\u009d52;c;x\u009c \u0085`, `\u009d52;c;x\u009c \u0085`},
	{"DEL", "a\x7fb", `a\x7fb`, `a\x7fb`},
	{"NUL", "a\x00b", `a\x00b`, `a\x00b`},
	{"BEL and backspace", "\a\b", `\x07\x08`, `\x07\x08`},
	{"newline tab CR", "a\nb\tc\rd", `a\nb\tc\rd`, "a\nb\tc\\rd"},
	{"CRLF", "a\r\nb", `a\r\nb`, "a\\r\nb"},
	{"RLO override", "abc\u202Egnp.exe", `abc<U+202E>gnp.exe`, `abc<U+202E>gnp.exe`},
	{"all bidi embeddings", "\u202A\u202B\u202C\u202D", `<U+202A><U+202B><U+202C><U+202D>`, `<U+202A><U+202B><U+202C><U+202D>`},
	{"bidi isolates", "\u2066\u2067\u2068\u2069", `<U+2066><U+2067><U+2068><U+2069>`, `<U+2066><U+2067><U+2068><U+2069>`},
	{"marks", "\u200E\u200F\u061C", `<U+200E><U+200F><U+061C>`, `<U+200E><U+200F><U+061C>`},
	{"zero-width", "pass\u200Bword\u200C\u200D\u2060\uFEFF", `pass<U+200B>word<U+200C><U+200D><U+2060><U+FEFF>`, `pass<U+200B>word<U+200C><U+200D><U+2060><U+FEFF>`},
	{"tag characters", "hi\U000E0041\U000E007F", `hi<U+E0041><U+E007F>`, `hi<U+E0041><U+E007F>`},
	{"line separator", "a\u2028b\u2029", `a<U+2028>b<U+2029>`, `a<U+2028>b<U+2029>`},
	{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`, `a\xffb\xc3`},
	{"lone C1 byte", "\x9b31m", `\x9b31m`, `\x9b31m`},
	{"overlong ESC", "\xc0\x9b", `\xc0\x9b`, `\xc0\x9b`},
	{"empty", "", "", ""},
}

func TestLineAndText(t *testing.T) {
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			if got := Line(tc.in); got != tc.line {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
			}
			if got := Text(tc.in); got != tc.text {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
			}
		})
	}
}

func TestCSVCell(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"=HYPERLINK(\"http://x\",\"y\")", `'=HYPERLINK("http://x","y")`},
		{"+cmd|' /C calc'!A0", `'+cmd|' /C calc'!A0`},
		{"-2+3+cmd|' /C calc'!A0", `'-2+3+cmd|' /C calc'!A0`},
		{"@SUM(1+1)*cmd|' /C calc'!A0", `'@SUM(1+1)*cmd|' /C calc'!A0`},
		{"-", `'-`},
		{"\t=1+1", `\t=1+1`},
		{"\r=1+1", `\r=1+1`},
		{"=\x1b]52;c;aGk=\x07", `'=\x1b]52;c;aGk=\x07`},
		{"line one\nline two", `line one\nline two`},
		{"a, \"quoted\"", `a, "quoted"`},
		{"0.6667", "0.6667"},
		{"-0.1250", "-0.1250"},
		{"+1", "+1"},
		{"-1e-3", "-1e-3"},
		{"-1e", "'-1e"},
		{"-.5", "-.5"},
		{"-1.2.3", "'-1.2.3"},
		{"不会变。", "不会变。"},
		{"", ""},
	} {
		if got := CSVCell(tc.in); got != tc.want {
			t.Errorf("CSVCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// The CSV quoting stays encoding/csv's: a sanitised cell reads back as
	// itself, one record per row.
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	var row []string
	for _, tc := range hostile {
		row = append(row, CSVCell(tc.in))
	}
	w.Write(row)
	w.Flush()
	if strings.Count(buf.String(), "\n") != 1 {
		t.Fatalf("a sanitised row spans several lines:\n%s", buf.String())
	}
	back, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(back) != 1 || strings.Join(back[0], "\x00") != strings.Join(row, "\x00") {
		t.Fatalf("read back %q (%v), want %q", back, err, row)
	}
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := Writer(&buf)
	in := "file \x1b]52;c;aGk=\x07.jsonl: bad\n\tline \u202E2\n"
	n, err := w.Write([]byte(in))
	if err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(in))
	}
	if want := "file \\x1b]52;c;aGk=\\x07.jsonl: bad\n\tline <U+202E>2\n"; buf.String() != want {
		t.Fatalf("wrote %q, want %q", buf.String(), want)
	}
}

// TestJSONNeedsNoSanitising documents why JSON output is left alone:
// encoding/json escapes the C0 controls (ESC, BEL, NUL, newlines) itself,
// and the text must round-trip exactly. It does pass DEL, C1 runes and
// bidi controls through as they are: JSON is data for programs, and a
// reader who pipes it to a terminal gets those raw.
func TestJSONNeedsNoSanitising(t *testing.T) {
	for _, tc := range hostile {
		if !utf8.ValidString(tc.in) {
			continue // JSON replaces invalid bytes by U+FFFD, by design
		}
		b, err := json.Marshal(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range b {
			if c < 0x20 {
				t.Fatalf("json.Marshal(%q) = %q has a control byte", tc.in, b)
			}
		}
		var back string
		if err := json.Unmarshal(b, &back); err != nil || back != tc.in {
			t.Fatalf("round trip of %q: %q, %v", tc.in, back, err)
		}
	}
}

// unsafeIn is the first thing in s that a terminal would act on or hide,
// or -1. multi allows '\n' and '\t'.
func unsafeIn(s string, multi bool) int {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return i // invalid UTF-8
		case multi && (r == '\n' || r == '\t'):
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
			return i
		case r == 0x061c, r == 0x180e, r >= 0x200b && r <= 0x200f, r >= 0x2028 && r <= 0x202e,
			r >= 0x2060 && r <= 0x2064, r >= 0x2066 && r <= 0x206f, r == 0xfeff,
			r >= 0xfff9 && r <= 0xfffb, r >= 0xe0000 && r <= 0xe007f:
			return i
		}
	}
	return -1
}

// interesting builds strings from the runes and bytes that matter, mixed
// with ordinary text, so a random input is likely to hold several.
func interesting(rng *rand.Rand) string {
	pieces := []string{
		"\x1b", "\x07", "\x00", "\x7f", "\n", "\r", "\t", "\x9b", "\xff", "\xc3", "\xe2\x80",
		"\u009b", "\u009d", "\u0085", "\u202e", "\u2066", "\u200b", "\u200d", "\ufeff", "\u061c",
		"\u2028", "\U000E0041", "[31m", "]52;c;", "a", "é", "纳税", "👍", "\\", "<U+", " ",
	}
	var b strings.Builder
	for n := rng.Intn(24); n > 0; n-- {
		b.WriteString(pieces[rng.Intn(len(pieces))])
	}
	return b.String()
}

// TestProperties: whatever the input, Line's output has no byte below
// 0x20, no DEL, no C1 rune, no bidi or invisible rune and is valid UTF-8;
// Text's the same but for '\n' and '\t'; CSVCell's is Line's and never
// starts a formula. All three are idempotent, and keep safe text as it is.
func TestProperties(t *testing.T) {
	check := func(s string) bool {
		line, text, cell := Line(s), Text(s), CSVCell(s)
		for _, c := range []byte(line) {
			if c < 0x20 || c == 0x7f {
				t.Errorf("Line(%q) = %q has byte %#x", s, line, c)
				return false
			}
		}
		if !utf8.ValidString(line) || !utf8.ValidString(text) || !utf8.ValidString(cell) {
			t.Errorf("invalid UTF-8 out of %q", s)
			return false
		}
		if i := unsafeIn(line, false); i >= 0 {
			t.Errorf("Line(%q) = %q: unsafe at %d", s, line, i)
			return false
		}
		if i := unsafeIn(text, true); i >= 0 {
			t.Errorf("Text(%q) = %q: unsafe at %d", s, text, i)
			return false
		}
		if i := unsafeIn(cell, false); i >= 0 || (cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) && !plainNumber.MatchString(cell)) {
			t.Errorf("CSVCell(%q) = %q", s, cell)
			return false
		}
		if Line(line) != line || Text(text) != text || CSVCell(cell) != cell && CSVCell(cell) != "'"+cell {
			t.Errorf("not idempotent on %q", s)
			return false
		}
		if unsafeIn(s, false) < 0 && line != s {
			t.Errorf("Line changed safe text %q to %q", s, line)
			return false
		}
		if unsafeIn(s, true) < 0 && text != s {
			t.Errorf("Text changed safe text %q to %q", s, text)
			return false
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 5000}); err != nil {
		t.Error(err)
	}
	if err := quick.Check(func(b []byte) bool { return check(string(b)) }, &quick.Config{MaxCount: 5000}); err != nil {
		t.Error(err)
	}
	rng := rand.New(rand.NewSource(1))
	for range 20000 {
		if !check(interesting(rng)) {
			break
		}
	}
	for _, tc := range hostile {
		check(tc.in)
	}
	// Every rune of the planes in use, one at a time.
	for r := rune(0); r <= 0xe01ef; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		if r == 0x30000 {
			r = 0xe0000
		}
		if !check(string(r)) {
			break
		}
	}
}

func FuzzLine(f *testing.F) {
	for _, tc := range hostile {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line := Line(s)
		if i := unsafeIn(line, false); i >= 0 || !utf8.ValidString(line) {
			t.Fatalf("Line(%q) = %q", s, line)
		}
		if text := Text(s); unsafeIn(text, true) >= 0 {
			t.Fatalf("Text(%q) = %q", s, text)
		}
	})
}

func TestCleanTextDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("纳税人识别号 The Eiffel Tower 👍\n\t", 20)
	if n := testing.AllocsPerRun(100, func() { Text(s); Line("plain line") }); n != 0 {
		t.Fatalf("%v allocations for text with nothing to escape", n)
	}
}

func BenchmarkLine(b *testing.B) {
	clean := strings.Repeat("小规模纳税人转为一般纳税人后 The Eiffel Tower was completed. ", 20)
	dirty := strings.Repeat("a\x1b[31mb\u202e ", 100)
	b.Run("clean", func(b *testing.B) {
		for b.Loop() {
			Line(clean)
		}
	})
	b.Run("hostile", func(b *testing.B) {
		for b.Loop() {
			Line(dirty)
		}
	})
}

// JSON escapes DEL, C1 and invisible runes inside JSON strings; the text
// decodes to the same string, and text without them is returned as is.
func TestJSONEscapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain 税号 ✓", `"plain 税号 ✓"`},
		{"rlo\u202eend", `"rlo\u202eend"`},
		{"csi\u009b2J nel\u0085 del\u007f", `"csi\u009b2J nel\u0085 del\u007f"`},
		{"zwsp\u200b bom\ufeff lri\u2066", `"zwsp\u200b bom\ufeff lri\u2066"`},
		{"tag\U000E0041", `"tag\udb40\udc41"`},
		{"ls\u2028ps\u2029", `"ls\u2028ps\u2029"`},
	} {
		b, err := json.Marshal(c.in)
		if err != nil {
			t.Fatal(err)
		}
		got := JSON(b)
		if string(got) != c.want {
			t.Errorf("JSON(%q) = %s, want %s", c.in, got, c.want)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil || back != c.in {
			t.Errorf("%s decodes to %q, %v", got, back, err)
		}
	}
	plain := []byte(`{"a":"税号"}`)
	if got := JSON(plain); &got[0] != &plain[0] {
		t.Error("text with nothing to escape was copied")
	}
}
