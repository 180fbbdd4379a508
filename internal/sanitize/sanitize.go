// Package sanitize is ragscope's one sanitiser for human-facing output:
// datasets and judge replies carry hostile text, which must reach the user
// as visible escapes (\x1b, \u009b, <U+202E>, \xNN), never as a command to
// their terminal or a bidi override. JSON output goes through JSON instead,
// so that it decodes to the data as it was.
package sanitize

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Line makes s safe to print as one line of a terminal: no control
// character, no bidi control, no invisible character and no invalid UTF-8
// survives; each is shown as a visible escape.
func Line(s string) string { return clean(s, false) }

// Text is Line for multi-line bodies: newlines and tabs are kept as they
// are; a carriage return, which would let a line overwrite the one before
// it, is still shown as \r.
func Text(s string) string { return clean(s, true) }

// CSVCell makes s safe as a CSV cell that a spreadsheet will open: control
// characters are escaped as by Line (the cell stays one line; the CSV
// quoting itself is encoding/csv's), and a cell that begins with = + - or
// @, which a spreadsheet would evaluate as a formula, gets a leading single
// quote (the OWASP rule against CSV injection). A plain decimal number,
// such as a negative score, is no formula and is left as it is.
func CSVCell(s string) string {
	s = Line(s)
	if s != "" && strings.IndexByte("=+-@", s[0]) >= 0 && !plainNumber.MatchString(s) {
		return "'" + s
	}
	return s
}

// Writer returns a writer that sanitises, as Text does, what is written
// through it to w. Each Write is sanitised on its own, so a caller should
// write whole strings (fmt.Fprint* does): a UTF-8 sequence split across two
// writes would show as \xNN escapes.
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (sw writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(sw.w, Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// clean escapes s; multi keeps '\n' and '\t'. A string with nothing to
// escape is returned as it is, without allocating.
func clean(s string, multi bool) string {
	i := firstUnsafe(s, multi)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i >= 0 {
		b.WriteString(s[:i])
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80, r == utf8.RuneError && size == 1:
			writeByteEscape(&b, s[i])
		case isC1(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default: // IsInvisible
			fmt.Fprintf(&b, "<U+%04X>", r)
		}
		s = s[i+size:]
		i = firstUnsafe(s, multi)
	}
	b.WriteString(s)
	return b.String()
}

// firstUnsafe is the byte offset of the first thing clean must escape, or -1.
func firstUnsafe(s string, multi bool) int {
	for i, r := range s {
		switch {
		case multi && (r == '\n' || r == '\t'):
		case r < 0x20 || r == 0x7f || isC1(r) || IsInvisible(r):
			return i
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\ufffd"): // an invalid byte
			return i
		}
	}
	return -1
}

func writeByteEscape(b *strings.Builder, c byte) { fmt.Fprintf(b, `\x%02x`, c) }

func isC1(r rune) bool { return r >= 0x80 && r < 0xa0 }

// IsInvisible reports the bidi controls, the zero-width and other invisible
// format characters and the Unicode line separators: runes a terminal does
// not draw but that change what the text around them looks like. Line and
// Text show them as <U+...>; the offline judge strips them before reading a
// text. This is the one list of them.
func IsInvisible(r rune) bool {
	if r < 0x061c {
		return false
	}
	for _, rg := range invisible {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return false
}

var invisible = [][2]rune{
	{0x061c, 0x061c},   // ARABIC LETTER MARK
	{0x180e, 0x180e},   // MONGOLIAN VOWEL SEPARATOR
	{0x200b, 0x200f},   // ZWSP, ZWNJ, ZWJ, LRM, RLM
	{0x2028, 0x202e},   // LINE/PARAGRAPH SEPARATOR, LRE, RLE, PDF, LRO, RLO
	{0x2060, 0x2064},   // WORD JOINER, invisible operators
	{0x2066, 0x206f},   // LRI, RLI, FSI, PDI, deprecated format controls
	{0xfeff, 0xfeff},   // ZERO WIDTH NO-BREAK SPACE (BOM)
	{0xfff9, 0xfffb},   // interlinear annotation
	{0xe0000, 0xe007f}, // tag characters (invisible ASCII)
}

// plainNumber is a decimal number: an optional sign, digits with at most
// one decimal point, an optional exponent. A spreadsheet reads it as the
// number it is; it cannot call anything.
var plainNumber = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// JSON escapes, in JSON text, the runes that encoding/json passes through
// raw but that a terminal acts on or hides: DEL, the C1 controls (U+009B
// is a one-rune CSI) and the runes IsInvisible lists (a bidi override
// reorders what is read), each as \uXXXX (a surrogate pair above U+FFFF).
// In JSON text such runes can only be inside strings, where \uXXXX means
// the same rune, so the data decodes to exactly what it was: a report
// stays data for programs and is safe for the person who cats it. b is
// returned as it is when it holds none (the common case: one pass, no copy).
func JSON(b []byte) []byte {
	i := firstUnsafeJSON(b)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i >= 0 {
		out = append(out, b[:i]...)
		r, n := utf8.DecodeRune(b[i:])
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			out = appendU(appendU(out, hi), lo)
		} else {
			out = appendU(out, r)
		}
		b = b[i+n:]
		i = firstUnsafeJSON(b)
	}
	return append(out, b...)
}

func appendU(out []byte, r rune) []byte { return fmt.Appendf(out, `\u%04x`, r) }

// firstUnsafeJSON is the index of the first rune of b that JSON escapes,
// or -1.
func firstUnsafeJSON(b []byte) int {
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x7f {
			i++
			continue
		}
		if c == 0x7f {
			return i
		}
		r, n := utf8.DecodeRune(b[i:])
		if isC1(r) || IsInvisible(r) {
			return i
		}
		i += n
	}
	return -1
}

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
