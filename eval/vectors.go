package eval

import "github.com/ragscope/ragscope/eval/internal/vec"

// CheckVectors refuses embeddings no cosine can be trusted with: empty,
// NaN or infinite components, all-zero vectors (a cosine of 0 that looks
// like a score), and vectors of different dimensions (another model behind
// the same name, or dims not honoured). want is the dimension asked for (0:
// any, but all alike). The error is a judge error that names the problem;
// vectors that fail are never cached.
func CheckVectors(vecs [][]float64, want int) error {
	if why := vec.Check(vecs, want); why != "" {
		return NewStepError(StatusJudgeError, "%s", why)
	}
	return nil
}
