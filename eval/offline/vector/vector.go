// Package vector makes the offline judge's embeddings: L2-normalised
// vectors of a text's features hashed into buckets (FNV-1a, no signed
// hashing, so that cosines fall in [0, 1], the range of answer relevancy).
package vector

import "math"

// Dims is the dimension of the vectors.
const Dims = 1024

// Of is the unit vector of an analysed text's features (a "w:" word adds
// its character trigrams at half weight) and Chinese characters (half
// weight); the zero vector for none.
func Of(feats, unis map[string]bool) []float64 {
	v := make([]float64, Dims)
	for f := range feats {
		addHashed(v, f, 1)
		if len(f) > 2 && f[:2] == "w:" {
			addTrigrams(v, f[2:], 0.5)
		}
	}
	for f := range unis {
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
	for i := range len(word) {
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

// addHashed adds w to the feature's bucket.
func addHashed(v []float64, feature string, w float64) {
	// hash/fnv would allocate per call.
	h := uint64(fnvOffset)
	for i := 0; i < len(feature); i++ {
		h = fnvAdd(h, feature[i])
	}
	v[h%uint64(len(v))] += w
}
