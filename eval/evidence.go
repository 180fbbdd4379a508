package eval

import (
	"fmt"

	"github.com/ragscope/ragscope/eval/internal/fold"
)

// Citation is where a judge found what decided a verdict: the chunk and a
// short verbatim quote from it. nil means the judge gave none (before
// contract 2).
type Citation struct {
	// Chunk is the 1-based rank of the chunk, as the prompts number them
	// (<chunk n="1">); 0 when the judge named none.
	Chunk int    `json:"chunk"`
	Quote string `json:"quote"`
	// QuoteNotFound is set when the quote is not in the chunk it names;
	// Flag then says so in words. It checks the judge itself: a quote it
	// made up is a hallucinated justification.
	QuoteNotFound bool `json:"quote_not_found,omitempty"`
	// NoSuchChunk is set when the citation names a chunk the sample does not
	// have: the judge cited something never shown to it. Flag then says so.
	NoSuchChunk bool   `json:"no_such_chunk,omitempty"`
	Flag        string `json:"flag,omitempty"`
}

// Flagged reports a citation the check found wrong; Flag says how.
func (e *Citation) Flagged() bool {
	return e != nil && (e.QuoteNotFound || e.NoSuchChunk)
}

// Describe is the chunk and quote the citation names as the views show
// them under its verdict; cites is false for none ("no evidence given",
// "cites no chunk").
func (e *Citation) Describe() (text string, cites bool) {
	switch {
	case e == nil:
		return "no evidence given", false
	case e.Chunk == 0 && e.Quote == "":
		return "cites no chunk", false
	}
	where := "no chunk named"
	if e.Chunk != 0 {
		where = fmt.Sprintf("[%d]", e.Chunk)
	}
	if e.Quote == "" {
		return where + ", no quote", true
	}
	return where + " \"" + e.Quote + "\"", true
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

// Check looks for the quote in the chunk it names (in every chunk when it
// names none) and sets the flag when it is not there; a chunk the sample
// does not have is flagged NoSuchChunk. An empty quote is not checked.
func (e *Citation) Check(contexts []string) {
	if e == nil {
		return
	}
	e.QuoteNotFound, e.NoSuchChunk, e.Flag = false, false, ""
	if e.Chunk < 0 || e.Chunk > len(contexts) {
		e.NoSuchChunk, e.Flag = true, noSuchChunkFlag(e.Chunk, len(contexts))
		return
	}
	if fold.TrimQuote(e.Quote) == "" {
		return
	}
	if _, _, _, ok := e.Locate(contexts); !ok {
		e.QuoteNotFound, e.Flag = true, QuoteNotFoundFlag(e.Chunk)
	}
}

// Locate finds the quote in the contexts: the 0-based index of its chunk
// (the named one alone, else the first holding it) and its byte span.
func (e *Citation) Locate(contexts []string) (chunk, start, end int, ok bool) {
	if e == nil {
		return 0, 0, 0, false
	}
	return fold.Locate(e.Chunk, e.Quote, contexts)
}
