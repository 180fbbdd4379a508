package plaintext

import (
	"testing"

	"github.com/ragscope/ragscope/internal/sanitize"
)

func TestStripControls(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1889."},
		{"纳税人识别号不变。", "纳税人识别号不变。"},
		{"\x1b[31mred\x1b[0m text", "red text"},
		{"Par\x1b[1;31mis", "Paris"},
		{"a\x1b[?1049hb", "ab"},
		{"copy\x1b]52;c;MTIzNDU=\x07 this", "copy this"},
		{"copy\x1b]52;c;MTIzNDU=\x1b\\ this", "copy this"},
		{"link \x1b]8;;http://evil\x07here\x1b]8;;\x07", "link here"},
		{"\x1bPq#0;2;0;0;0\x1b\\image", "image"},
		{"unterminated \x1b]0;title and the rest", "unterminated 0;title and the rest"},
		{"charset \x1b(B ok \x1b7saved\x1b8", "charset  ok saved"},
		{"lone ESC at the end\x1b", "lone ESC at the end"},
		{"C1 \u009b31mCSI\u009b0m", "C1 CSI"},
		{"C1 \u009d52;c;eA==\u009c OSC", "C1  OSC"},
		{"NEL\u0085 and DEL\x7f and NUL\x00 and BEL\a", "NEL and DEL and NUL and BEL"},
		{"keeps\ttab\nnewline\r\n", "keeps\ttab\nnewline\r\n"},
		{"abc\u202Egnp.exe", "abcgnp.exe"},
		{"\u2066isolated\u2069 \u200Emarks\u200F\u061C", "isolated marks"},
		{"zero\u200Bwidth\u200C\u200D\u2060\uFEFF", "zerowidth"},
		{"tags\U000E0041\U000E0042", "tags"},
		{"line\u2028separator", "line\nseparator"},
		{"invalid \xff kept", "invalid \xff kept"},
		{"emoji 👍 kept", "emoji 👍 kept"},
	} {
		if got := StripControls(tc.in); got != tc.want {
			t.Errorf("StripControls(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestStripMatchesSanitize: what sanitize shows as an escape, the judge
// does not read; what sanitize leaves as it is, the judge reads as it is.
func TestStripMatchesSanitize(t *testing.T) {
	for r := rune(0); r <= 0xe01ef; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		if r == 0x30000 {
			r = 0xe0000
		}
		s := string(r)
		escaped := sanitize.Line(s) != s
		stripped := StripControls(s) != s
		if r == '\t' || r == '\n' || r == '\r' {
			if stripped {
				t.Errorf("%U stripped", r)
			}
			continue
		}
		if escaped != stripped {
			t.Errorf("%U: sanitize escapes it %v, the judge strips it %v", r, escaped, stripped)
		}
	}
}

func TestStripControlsDoesNotAllocateCleanText(t *testing.T) {
	s := "小规模纳税人转为一般纳税人后，纳税人识别号会变吗？ The Eiffel Tower was completed in 1889.\n"
	if n := testing.AllocsPerRun(100, func() { StripControls(s) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}
