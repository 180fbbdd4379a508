package sanitize

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

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
