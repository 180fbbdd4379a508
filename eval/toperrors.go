package eval

import "sort"

// ErrorCount is one failure message and how many (sample, metric) pairs
// ended with it.
type ErrorCount struct {
	Message string
	Count   int
}

// TopErrors are the most frequent failure messages of the results, most
// frequent first: a count of failures says that something is wrong, the
// message says what.
func TopErrors(results []*Result, n int) []ErrorCount {
	counts := map[string]int{}
	for _, r := range results {
		if r == nil {
			continue
		}
		for m, st := range r.Status {
			if !st.Failed() {
				continue
			}
			msg := r.Errors[m]
			if msg == "" {
				msg = string(st)
			}
			counts[msg]++
		}
	}
	out := make([]ErrorCount, 0, len(counts))
	for msg, c := range counts {
		out = append(out, ErrorCount{msg, c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Message < out[j].Message
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}
