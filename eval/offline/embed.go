package offline

import "math"

// EmbedDims is the dimension of the hashed n-gram vectors.
const EmbedDims = 1024

// Embed returns the L2-normalised hashed feature vector of a text: English
// word stems and character trigrams of each word, Chinese character unigrams
// and bigrams, and numbers. Stop words are left out so that two texts are not
// similar merely for sharing "the" or "的". A text without content yields the
// zero vector, whose cosine with anything is 0.
func Embed(text string) []float64 {
	v := make([]float64, EmbedDims)
	sp := analyze(text)
	for f := range sp.feats {
		addHashed(v, f, 1)
		if len(f) > 2 && f[:2] == "w:" {
			w := f[2:]
			padded := "<" + w + ">"
			for i := 0; i+3 <= len(padded); i++ {
				addHashed(v, "t:"+padded[i:i+3], 0.5)
			}
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

// addHashed adds w to the feature's bucket. The weights stay non-negative
// (no signed hashing) so that cosines fall in [0, 1], the range of answer
// relevancy; at 1024 buckets collisions are rare for texts of a few
// hundred features.
func addHashed(v []float64, feature string, w float64) {
	// FNV-1a, inlined: hash/fnv allocates per call and Embed runs for
	// every sample.
	h := uint64(14695981039346656037)
	for i := 0; i < len(feature); i++ {
		h ^= uint64(feature[i])
		h *= 1099511628211
	}
	v[h%uint64(len(v))] += w
}
