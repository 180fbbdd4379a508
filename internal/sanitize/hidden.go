package sanitize

import "unicode/utf8"

// SkipHidden returns the offset after the run of text a reader never sees
// that starts at s[i]: an ANSI escape sequence (CSI such as ESC [ 31 m, OSC
// such as the clipboard write ESC ] 52 ; ... BEL, DCS, SOS, PM and APC
// strings, the short ESC sequences) or its one-rune C1 form, any other C0 or
// C1 control but tab, newline and carriage return, DEL, or an invisible
// format character (IsInvisible) but the line and paragraph separators,
// which read as line breaks. It returns i when s[i] starts visible
// text. Readers of a text (the offline judge, the quote check) skip these
// so that a hostile escape neither splits a word nor adds one.
//
// A string sequence (OSC, DCS ...) without its terminator loses only its
// introducer: what follows is the rest of the text, not the sequence, for
// every reader that does not execute it.
func SkipHidden(s string, i int) int {
	if i >= len(s) {
		return i
	}
	c := s[i]
	switch {
	case c == 0x1b:
		return skipEscape(s, i)
	case c == '\t' || c == '\n' || c == '\r':
		return i
	case c < 0x20 || c == 0x7f:
		return i + 1
	case c < utf8.RuneSelf:
		return i
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == 0x9b: // CSI
		return skipCSI(s, i+size)
	case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // OSC, DCS, SOS, PM, APC
		return skipString(s, i, i+size)
	case r == 0x2028 || r == 0x2029: // line breaks: white space to a reader
		return i
	case isC1(r), IsInvisible(r):
		return i + size
	}
	return i
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
