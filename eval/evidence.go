package eval

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragscope/ragscope/sanitize"
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
	// QuoteNotFound is set when the quote is not in the chunk it names (or
	// that chunk does not exist); Flag then says so in words. It checks the
	// judge itself: a quote it made up is a hallucinated justification.
	QuoteNotFound bool   `json:"quote_not_found,omitempty"`
	Flag          string `json:"flag,omitempty"`
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
// is not there. An empty quote is not checked: there is nothing to verify.
// A quote that names no chunk is looked for in every chunk.
func (e *Citation) Check(contexts []string) {
	if e == nil {
		return
	}
	e.QuoteNotFound, e.Flag = false, ""
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
		start, end, ok = FindQuote(contexts[e.Chunk-1], e.Quote)
		return e.Chunk - 1, start, end, ok
	}
	for i, c := range contexts {
		if start, end, ok = FindQuote(c, e.Quote); ok {
			return i, start, end, true
		}
	}
	return 0, 0, 0, false
}

// FindQuote finds quote in chunk after folding both: runs of white space
// count as one space, and as none next to a CJK character (judges add or
// drop spaces there); fullwidth ASCII (ｒａｇ，) is its ASCII form; case is
// ignored; punctuation and quote marks around the quote are dropped (a
// judge ends a quote with 。 or wraps it in “” where the chunk goes on).
// Escapes and invisible characters are skipped, as every reader of the
// text skips them. Anything else must match verbatim: an elided "…" in the middle is not the
// chunk's text. It returns the byte span of the match in chunk.
func FindQuote(chunk, quote string) (start, end int, ok bool) {
	quote = strings.TrimFunc(quote, trimQuoteRune)
	if quote == "" {
		return 0, 0, false
	}
	fq, _, _ := foldQuoteText(quote)
	fc, starts, ends := foldQuoteText(chunk)
	if fq == "" {
		return 0, 0, false
	}
	i := strings.Index(fc, fq)
	if i < 0 {
		return 0, 0, false
	}
	return starts[i], ends[i+len(fq)-1], true
}

func trimQuoteRune(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.In(r, unicode.Pi, unicode.Pf)
}

// foldQuoteText folds s for FindQuote and maps each byte of the result back
// to the source rune it came from (its start and end offsets in s).
func foldQuoteText(s string) (string, []int, []int) {
	var b strings.Builder
	b.Grow(len(s))
	starts := make([]int, 0, len(s))
	ends := make([]int, 0, len(s))
	var last rune
	space, spaceAt := false, 0
	emit := func(r rune, from, to int) {
		n := b.Len()
		b.WriteRune(r)
		for range b.Len() - n {
			starts = append(starts, from)
			ends = append(ends, to)
		}
		last = r
	}
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
		if space && b.Len() > 0 && !wideText(last) && !wideText(r) {
			emit(' ', spaceAt, spaceAt+1)
		}
		space = false
		emit(r, at, at+size)
	}
	return b.String(), starts, ends
}

// wideText reports a character of a script written without spaces between
// words, or of its punctuation.
func wideText(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}
