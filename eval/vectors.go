package eval

import (
	"fmt"
	"math"
)

// CheckVectors refuses embeddings no cosine can be trusted with: empty,
// NaN or infinite components, all-zero vectors (a cosine of 0 that looks
// like a score), and vectors of different dimensions (another model behind
// the same name, or dims not honoured). want is the dimension asked for (0:
// any, but all alike). The error is a judge error that names the problem;
// vectors that fail are never cached.
func CheckVectors(vecs [][]float64, want int) error {
	dim := want
	for i, v := range vecs {
		if len(v) == 0 {
			return NewStepError(StatusJudgeError, "the embedding endpoint returned an empty vector for text %d of %d", i+1, len(vecs))
		}
		if dim == 0 {
			dim = len(v)
		}
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
