package offline

import (
	"strings"
	"unicode/utf8"

	"github.com/ragscope/ragscope/sanitize"
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
		c := s[i]
		switch {
		case c == 0x1b:
			i = skipEscape(s, i)
			continue
		case c == '\t' || c == '\n' || c == '\r':
			b.WriteByte(c)
			i++
			continue
		case c < 0x20 || c == 0x7f:
			i++
			continue
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x9b: // CSI
			i = skipCSI(s, i+size)
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // OSC, DCS, SOS, PM, APC
			i = skipString(s, i, i+size)
		case r == 0x2028 || r == 0x2029: // a line or paragraph separator is a line break
			b.WriteByte('\n')
			i += size
		case r >= 0x80 && r < 0xa0, sanitize.IsInvisible(r):
			i += size
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
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

// skipEscape returns the offset after the escape sequence that starts with
// the ESC at s[i].
func skipEscape(s string, i int) int {
	j := i + 1
	if j >= len(s) {
		return j
	}
	switch c := s[j]; {
	case c == '[':
		return skipCSI(s, j+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, i, j+1)
	case c >= 0x20 && c <= 0x2f: // intermediates, then a final byte: ESC ( B
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
			j++
		}
		return j
	case c >= 0x30 && c <= 0x7e: // ESC 7, ESC c, ESC M ...
		return j + 1
	}
	return j // a lone ESC
}

// skipCSI returns the offset after a control sequence whose parameters
// start at s[j]: parameter bytes 0x30-0x3F, intermediates 0x20-0x2F, one
// final byte 0x40-0x7E. A byte outside those ends it where it stands.
func skipCSI(s string, j int) int {
	for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
		j++
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
		j++
	}
	return j
}

// skipString returns the offset after a control string (OSC, DCS, SOS, PM,
// APC) introduced at s[start] whose body starts at s[j]: it ends at BEL,
// ST (ESC \) or the C1 ST (U+009C). Without one, only the introducer goes.
func skipString(s string, start, j int) int {
	for k := j; k < len(s); k++ {
		switch {
		case s[k] == 0x07:
			return k + 1
		case s[k] == 0x1b && k+1 < len(s) && s[k+1] == '\\':
			return k + 2
		case s[k] == 0xc2 && k+1 < len(s) && s[k+1] == 0x9c:
			return k + 2
		}
	}
	return j
}
