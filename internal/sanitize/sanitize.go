// Package sanitize is ragscope's one sanitiser for human-facing output:
// the terminal interface, the headless and CLI output, error messages and
// the Markdown and CSV reports. Datasets carry hostile text, and so do the
// judge's replies to them: an escape sequence in a question, a file name or
// a judge's reason must reach the user as visible text, never as a command
// to their terminal (OSC 52 writes the clipboard, CSI moves the cursor) or
// as a bidi override that reorders what they read.
//
// Everything that is not printable is shown as a visible escape:
//
//   - C0 controls, DEL and ESC as \x1b, \x07, \x00 ...; newline, carriage
//     return and tab as \n, \r, \t (Text keeps newlines and tabs);
//   - C1 controls (U+0080 to U+009F, e.g. the one-rune CSI U+009B) as
//     \u009b;
//   - bidi controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
//     U+2069), zero-width and other invisible format characters (U+200B to
//     U+200D, U+2060 to U+2064, U+FEFF, U+180E, U+206A to U+206F, U+FFF9 to
//     U+FFFB, the tag characters U+E0000 to U+E007F) and the line and
//     paragraph separators U+2028 and U+2029 as <U+202E>;
//   - bytes that are not UTF-8 as \xNN.
//
// Everything else, CJK, emoji and Markdown punctuation included, is left as
// it is, and a backslash is not escaped: the output is for reading, not for
// parsing back. JSON output must not go through Line or Text (it must
// decode to the data as it was): encoding/json escapes the C0 controls
// itself, and JSON escapes the rest (DEL, C1, the invisible runes) as
// \uXXXX.
package sanitize

import (
	"fmt"
	"io"
	"regexp"
	"strings"
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
	s := string(p)
	if _, err := io.WriteString(sw.w, Text(s)); err != nil {
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
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case multi && (c == '\n' || c == '\t'):
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < 0x20 || c == 0x7f:
				writeByteEscape(&b, c)
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeByteEscape(&b, c)
		case isC1(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		case IsInvisible(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the byte offset of the first thing clean must escape, or -1.
func firstUnsafe(s string, multi bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !(multi && (c == '\n' || c == '\t')) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || isC1(r) || IsInvisible(r) {
			return i
		}
		i += size
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
	switch {
	case r < 0x061c:
		return false
	case r == 0x061c: // ARABIC LETTER MARK
		return true
	case r == 0x180e: // MONGOLIAN VOWEL SEPARATOR
		return true
	case r >= 0x200b && r <= 0x200f: // ZWSP, ZWNJ, ZWJ, LRM, RLM
		return true
	case r >= 0x2028 && r <= 0x202e: // LINE/PARAGRAPH SEPARATOR, LRE, RLE, PDF, LRO, RLO
		return true
	case r >= 0x2060 && r <= 0x2064: // WORD JOINER, invisible operators
		return true
	case r >= 0x2066 && r <= 0x206f: // LRI, RLI, FSI, PDI, deprecated format controls
		return true
	case r == 0xfeff: // ZERO WIDTH NO-BREAK SPACE (BOM)
		return true
	case r >= 0xfff9 && r <= 0xfffb: // interlinear annotation
		return true
	case r >= 0xe0000 && r <= 0xe007f: // tag characters (invisible ASCII)
		return true
	}
	return false
}

// plainNumber is a decimal number: an optional sign, digits with at most
// one decimal point, an optional exponent. A spreadsheet reads it as the
// number it is; it cannot call anything.
var plainNumber = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
