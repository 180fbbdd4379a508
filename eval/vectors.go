package eval

import (
	"cmp"
	"fmt"
	"math"
)

// CheckVectors refuses embeddings no cosine can be trusted with (empty,
// non-finite, all-zero, or of different dimensions) with a judge error
// that names the problem; want is the dimension asked for (0: any, all
// alike). Vectors that fail are never cached.
func CheckVectors(vecs [][]float64, want int) error {
	dim := want
	for i, v := range vecs {
		if len(v) == 0 {
			return NewStepError(StatusJudgeError, "the embedding endpoint returned an empty vector for text %d of %d", i+1, len(vecs))
		}
		dim = cmp.Or(dim, len(v))
		if len(v) != dim {
			what := fmt.Sprintf("the first has %d", dim)
			if want > 0 {
				what = fmt.Sprintf("%d were asked for (--embedding-dimensions)", want)
			}
			return NewStepError(StatusJudgeError, "the embedding endpoint returned a vector of %d dimensions for text %d of %d, but %s", len(v), i+1, len(vecs), what)
		}
		zero := true
		for j, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return NewStepError(StatusJudgeError, "the embedding endpoint returned %v at component %d of the vector of text %d of %d", x, j, i+1, len(vecs))
			}
			if x != 0 {
				zero = false
			}
		}
		if zero {
			return NewStepError(StatusJudgeError, "the embedding endpoint returned an all-zero vector for text %d of %d (no cosine can be computed from it)", i+1, len(vecs))
		}
	}
	return nil
}

// Cosine is the cosine similarity of two vectors; 0 when either is zero or
// their lengths differ (an embedding endpoint that changes dimensions
// mid-run is a judge error caught earlier, never a NaN here).
func Cosine(a, b []float64) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}
