package report

import "github.com/ragscope/ragscope/eval"

// ErrorCount is one failure message and how many (sample, metric) pairs
// ended with it.
type ErrorCount struct {
	Message string
	Count   int
}

// TopErrors are the most frequent failure messages of the results, most
// frequent first: a count of failures says that something is wrong, the
// message says what.
func TopErrors(results []*eval.Result, n int) []ErrorCount {
	return tallyOf(nil, results).TopErrors(n)
}
