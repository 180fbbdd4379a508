package offline

import (
	"math"

	"github.com/ragscope/ragscope/internal/memo"
)

// EmbedDims is the dimension of the hashed n-gram vectors.
const EmbedDims = 1024

// Embed returns the L2-normalised hashed feature vector of a text's content
// (stop words left out); the zero vector for a text without content.
func Embed(text string) []float64 { return vectorOf(embedSpan(text)) }

// vectorOf is the unit vector of an analysed text's features.
func vectorOf(sp *span) []float64 {
	v := make([]float64, EmbedDims)
	for f := range sp.feats {
		addHashed(v, f, 1)
		if len(f) > 2 && f[:2] == "w:" {
			addTrigrams(v, f[2:], 0.5)
		}
	}
	for f := range sp.unis {
		addHashed(v, f, 0.5)
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	if norm == 0 {
		return v
	}
	norm = math.Sqrt(norm)
	for i := range v {
		v[i] /= norm
	}
	return v
}

// embedSpan is the analysis Embed reads: for a big text, one without
// clauses and not memoised, as the full one is many times its size.
func embedSpan(text string) *span {
	if len(text) < memo.BigText {
		return analyze(text)
	}
	return analyzeClauses(text, false, false)
}

// addTrigrams adds w to the buckets of "t:" + each trigram of "<word>", as
// addHashed would, without building the strings.
func addTrigrams(v []float64, word string, w float64) {
	padded := func(k int) byte {
		switch k {
		case 0:
			return '<'
		case len(word) + 1:
			return '>'
		}
		return word[k-1]
	}
	t := fnvAdd(fnvAdd(fnvOffset, 't'), ':')
	for i := 0; i+3 <= len(word)+2; i++ {
		h := fnvAdd(fnvAdd(fnvAdd(t, padded(i)), padded(i+1)), padded(i+2))
		v[h%uint64(len(v))] += w
	}
}

// FNV-1a, 64 bits.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvAdd(h uint64, b byte) uint64 { return (h ^ uint64(b)) * fnvPrime }

// addHashed adds w to the feature's bucket: no signed hashing, so that
// cosines fall in [0, 1], the range of answer relevancy.
func addHashed(v []float64, feature string, w float64) {
	// hash/fnv would allocate per call.
	h := uint64(fnvOffset)
	for i := 0; i < len(feature); i++ {
		h = fnvAdd(h, feature[i])
	}
	v[h%uint64(len(v))] += w
}
