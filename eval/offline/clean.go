package offline

import (
	"strings"
	"unicode/utf8"

	"github.com/ragscope/ragscope/internal/sanitize"
)

// stripControls removes from a text what a reader never sees as text: ANSI
// escape sequences (CSI such as ESC [ 31 m, OSC such as the clipboard write
// ESC ] 52 ; ... BEL, DCS, SOS, PM and APC strings, and the short ESC
// sequences), their one-rune C1 forms (U+009B CSI, U+009D OSC ...), every
// other C0 and C1 control but tab, newline and carriage return, DEL, the
// bidi controls and the zero-width and other invisible format characters
// that sanitize shows as <U+...>. The analysis then sees the words a
// terminal would show, so a hostile escape neither splits a word ("Par" ESC
// [31m "is") nor adds one (the 31 of the sequence read as a number), and
// cannot change a verdict. U+2028 and U+2029 become line breaks. A text
// without any of these is returned as it is.
//
// A string sequence (OSC, DCS ...) without its terminator loses only its
// introducer: what follows is the rest of the text, not the sequence, for
// every reader that does not execute it.
func stripControls(s string) string {
	i := firstControl(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		if j := sanitize.SkipHidden(s, i); j > i {
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0x2028 || r == 0x2029 { // a line or paragraph separator is a line break
			b.WriteByte('\n')
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstControl is the offset of the first byte stripControls removes, or -1.
func firstControl(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r >= 0x80 && r < 0xa0) || sanitize.IsInvisible(r) {
			return i
		}
		i += size
	}
	return -1
}
