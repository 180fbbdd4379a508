package offline

import (
	"github.com/ragscope/ragscope/eval/offline/vector"
	"github.com/ragscope/ragscope/internal/memo"
)

// EmbedDims is the dimension of the hashed n-gram vectors.
const EmbedDims = vector.Dims

// Embed returns the L2-normalised hashed feature vector of a text's content
// (stop words left out); the zero vector for a text without content.
func Embed(text string) []float64 { return vectorOf(embedSpan(text)) }

// vectorOf is the unit vector of an analysed text's features.
func vectorOf(sp *span) []float64 { return vector.Of(sp.feats, sp.unis) }

// embedSpan is the analysis Embed reads: for a big text, one without
// clauses and not memoised, as the full one is many times its size.
func embedSpan(text string) *span {
	if len(text) < memo.BigText {
		return analyze(text)
	}
	return analyzeClauses(text, false, false)
}
