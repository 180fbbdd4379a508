// Package fold holds the folded forms texts are compared in: a judge's
// quote in a chunk, an entity's matching key.
package fold

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragscope/ragscope/internal/sanitize"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Quote finds quote in chunk after folding both: white space runs count
// as one space, and as none next to a CJK character; fullwidth ASCII is
// ASCII; case is ignored; punctuation and quote marks around the quote are
// dropped; escapes and invisible characters are skipped. Anything else
// must match verbatim. It returns the byte span of the match in chunk.
func Quote(chunk, quote string) (start, end int, ok bool) {
	quote = TrimQuote(quote)
	if quote == "" {
		return 0, 0, false
	}
	fq := foldQuote(quote)
	if fq == "" {
		return 0, 0, false
	}
	i := strings.Index(foldQuote(chunk), fq)
	if i < 0 {
		return 0, 0, false
	}
	start, end = foldSpan(chunk, i, i+len(fq)-1)
	return start, end, true
}

// TrimQuote is quote without the white space, punctuation and quote marks
// around it, which a judge adds or drops.
func TrimQuote(quote string) string {
	return strings.TrimFunc(quote, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.In(r, unicode.Pi, unicode.Pf)
	})
}

// Locate finds quote in contexts: in chunk (1-based) alone when one is
// named, else in the first chunk holding it (0-based index, byte span).
func Locate(chunk int, quote string, contexts []string) (at, start, end int, ok bool) {
	if chunk != 0 {
		if chunk < 1 || chunk > len(contexts) {
			return 0, 0, 0, false
		}
		start, end, ok = Quote(contexts[chunk-1], quote)
		return chunk - 1, start, end, ok
	}
	for i, c := range contexts {
		if start, end, ok = Quote(c, quote); ok {
			return i, start, end, true
		}
	}
	return 0, 0, 0, false
}

// foldQuote folds s for Quote.
func foldQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	foldRunes(s, func(r rune, _, _ int) bool {
		b.WriteRune(r)
		return true
	})
	return b.String()
}

// foldSpan maps bytes i and j of foldQuote(s) back to the source runes
// they came from: the start offset in s of i's, the end offset of j's.
// Only a match calls it, so the search allocates no offset tables.
func foldSpan(s string, i, j int) (start, end int) {
	n := 0
	foldRunes(s, func(r rune, from, to int) bool {
		w := utf8.RuneLen(r)
		if n <= i && i < n+w {
			start = from
		}
		if n <= j && j < n+w {
			end = to
			return false
		}
		n += w
		return true
	})
	return start, end
}

// foldRunes yields the folded runes of s in order, each with the byte
// span [from, to) of s it came from, until yield returns false.
func foldRunes(s string, yield func(r rune, from, to int) bool) {
	var last rune
	emitted := false
	space, spaceAt := false, 0
	for i := 0; i < len(s); {
		if j := sanitize.SkipHidden(s, i); j > i {
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		at := i
		i += size
		if unicode.IsSpace(r) {
			if !space {
				space, spaceAt = true, at
			}
			continue
		}
		if r >= 0xFF01 && r <= 0xFF5E {
			r -= 0xFEE0
		}
		r = unicode.ToLower(r)
		if space && emitted && !wideText(last) && !wideText(r) {
			if !yield(' ', spaceAt, spaceAt+1) {
				return
			}
		}
		space = false
		if !yield(r, at, at+size) {
			return
		}
		last, emitted = r, true
	}
}

// wideText reports a character of a script written without spaces between
// words, or of its punctuation.
func wideText(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

var entityFolder = cases.Fold()

// Entity is an entity's matching key, eval.EntityKey, whose doc says
// what it folds.
func Entity(s string) string {
	s = entityFolder.String(norm.NFKC.String(s))
	fields := strings.Fields(s)
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			prev, _ := lastRune(fields[i-1])
			next := []rune(f)[0]
			if !wideText(prev) && !wideText(next) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(f)
	}
	return strings.TrimFunc(b.String(), func(r rune) bool { return unicode.IsPunct(r) })
}

func lastRune(s string) (rune, bool) {
	rs := []rune(s)
	if len(rs) == 0 {
		return 0, false
	}
	return rs[len(rs)-1], true
}
