package eval

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragscope/ragscope/internal/sanitize"
)

// Citation is where a judge found what decided a verdict (the Evidence of
// a statement): the retrieved chunk and a short verbatim quote from it. A
// nil *Citation means the judge gave none: a reply cached, or a run stored,
// before contract 2.
type Citation struct {
	// Chunk is the 1-based rank of the chunk, as the prompts number them
	// (<chunk n="1">); 0 when the judge named none.
	Chunk int    `json:"chunk"`
	Quote string `json:"quote"`
	// QuoteNotFound is set when the quote is not in the chunk it names;
	// Flag then says so in words. It checks the judge itself: a quote it
	// made up is a hallucinated justification.
	QuoteNotFound bool `json:"quote_not_found,omitempty"`
	// NoSuchChunk is set when the citation names a chunk the sample does
	// not have (a rank past its last chunk, or any chunk of a sample with
	// none); Flag then says so. It is its own flag, not a missing quote:
	// the judge cited something that was never shown to it.
	NoSuchChunk bool   `json:"no_such_chunk,omitempty"`
	Flag        string `json:"flag,omitempty"`
}

// Flagged reports a citation the check found wrong (QuoteNotFound or
// NoSuchChunk); Flag says how.
func (e *Citation) Flagged() bool {
	return e != nil && (e.QuoteNotFound || e.NoSuchChunk)
}

// noSuchChunkFlag is the text of the flag for a citation of chunk
// (1-based) in a sample of n chunks that does not have it.
// A chunk below 0 is a judge's number that is no rank at all (1.5, -2).
func noSuchChunkFlag(chunk, n int) string {
	what := fmt.Sprintf("cites chunk %d", chunk)
	if chunk < 0 {
		what = "cites a chunk number that is no rank"
	}
	switch n {
	case 0:
		return what + ", but the sample has no chunks"
	case 1:
		return what + ", but the sample has 1 chunk"
	}
	return fmt.Sprintf("%s, but the sample has %d chunks", what, n)
}

// QuoteNotFoundFlag is the text of the flag for a quote missing from chunk
// (1-based), or from every chunk when chunk is 0.
func QuoteNotFoundFlag(chunk int) string {
	if chunk == 0 {
		return "quote not found in any chunk"
	}
	return fmt.Sprintf("quote not found in chunk %d", chunk)
}

// Check looks for the quote in the chunk it names and sets the flag when it
// is not there. A citation of a chunk the sample does not have is flagged
// NoSuchChunk, quote or not. An empty quote is not checked otherwise:
// there is nothing to verify. A quote that names no chunk is looked for in
// every chunk.
func (e *Citation) Check(contexts []string) {
	if e == nil {
		return
	}
	e.QuoteNotFound, e.NoSuchChunk, e.Flag = false, false, ""
	if e.Chunk < 0 || e.Chunk > len(contexts) {
		e.NoSuchChunk, e.Flag = true, noSuchChunkFlag(e.Chunk, len(contexts))
		return
	}
	if strings.TrimFunc(e.Quote, trimQuoteRune) == "" {
		return
	}
	if _, _, _, ok := e.Locate(contexts); !ok {
		e.QuoteNotFound, e.Flag = true, QuoteNotFoundFlag(e.Chunk)
	}
}

// Locate finds the quote in the contexts: the 0-based index of the chunk
// holding it and its byte span there. The named chunk is the only one
// searched; with none named, the first chunk holding it wins.
func (e *Citation) Locate(contexts []string) (chunk, start, end int, ok bool) {
	if e == nil {
		return 0, 0, 0, false
	}
	if e.Chunk != 0 {
		if e.Chunk < 1 || e.Chunk > len(contexts) {
			return 0, 0, 0, false
		}
		start, end, ok = findQuote(contexts[e.Chunk-1], e.Quote)
		return e.Chunk - 1, start, end, ok
	}
	for i, c := range contexts {
		if start, end, ok = findQuote(c, e.Quote); ok {
			return i, start, end, true
		}
	}
	return 0, 0, 0, false
}

// findQuote finds quote in chunk after folding both: runs of white space
// count as one space, and as none next to a CJK character (judges add or
// drop spaces there); fullwidth ASCII (ｒａｇ，) is its ASCII form; case is
// ignored; punctuation and quote marks around the quote are dropped (a
// judge ends a quote with 。 or wraps it in “” where the chunk goes on).
// Escapes and invisible characters are skipped, as every reader of the
// text skips them. Anything else must match verbatim: an elided "…" in the middle is not the
// chunk's text. It returns the byte span of the match in chunk.
func findQuote(chunk, quote string) (start, end int, ok bool) {
	quote = strings.TrimFunc(quote, trimQuoteRune)
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

func trimQuoteRune(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.In(r, unicode.Pi, unicode.Pf)
}

// foldQuote folds s for FindQuote.
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
// findQuote calls it once, on a match, so the search itself allocates no
// offset tables (two ints a byte of every chunk of every citation).
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
