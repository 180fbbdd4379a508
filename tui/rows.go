package tui

import (
	"math"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// row is one sample in the table. The scores and the diagnosis are
// extracted once when the result arrives so sorting and filtering 100,000
// rows never touches the maps of eval.Result.
type row struct {
	index int
	res   *eval.Result // nil while the sample is being evaluated
	// known is what the runner's EventSampleStarted told of a sample still
	// being evaluated: its texts, no scores. Nil once res is set, and when
	// the stream sent no texts (an older stream, a watcher).
	known  *eval.Result
	scores [4]float64 // NaN when the metric has no score
	diag   eval.Diagnosis
	mark   rowMark
	// haystack is the lower-cased question and answer, built the first
	// time a free-text filter needs it.
	haystack string
}

type rowMark int

const (
	markRunning rowMark = iota
	markOK
	markWarn // a metric was not computable (no statements, missing input, ...)
	markFailed
)

// metricSlot maps a metric to its position in row.scores, which follows
// eval.AllMetrics.
func metricSlot(m eval.Metric) int {
	for i, x := range eval.AllMetrics {
		if x == m {
			return i
		}
	}
	return -1
}

func newRow(index int, res *eval.Result) *row {
	r := &row{index: index}
	r.set(res)
	return r
}

func (r *row) set(res *eval.Result) {
	r.res = res
	r.haystack = ""
	if res != nil {
		r.known = nil
	}
	for i := range r.scores {
		r.scores[i] = math.NaN()
	}
	if res == nil {
		r.mark = markRunning
		r.diag = ""
		return
	}
	for i, m := range eval.AllMetrics {
		if st, ok := res.Status[m]; ok && st == eval.StatusOK {
			if v, ok := res.Score(m); ok {
				r.scores[i] = v
			}
		}
	}
	r.diag = eval.Diagnose(res)
	r.mark = markOK
	for _, st := range res.Status {
		switch {
		case st.Failed():
			r.mark = markFailed
		case st != eval.StatusOK && r.mark == markOK:
			r.mark = markWarn
		}
	}
}

// start records the texts of a sample that is still being evaluated; the
// row stays running (res nil) until its result arrives.
func (r *row) start(known *eval.Result) {
	if r.res != nil {
		return
	}
	r.known = known
	r.haystack = ""
}

// texts is the result to take the sample's texts from: the result, or
// while the sample runs what its start told, nil when nothing is known.
func (r *row) texts() *eval.Result {
	if r.res != nil {
		return r.res
	}
	return r.known
}

func (r *row) text() string {
	if t := r.texts(); r.haystack == "" && t != nil {
		r.haystack = strings.ToLower(t.Question + "\n" + t.Answer)
	}
	return r.haystack
}

func (r *row) question() string {
	if t := r.texts(); t != nil {
		return t.Question
	}
	return ""
}

// status returns the status of a metric and whether the metric was
// evaluated for this sample at all (it is absent when not selected).
func (r *row) status(m eval.Metric) (eval.Status, bool) {
	if r.res == nil {
		return "", false
	}
	st, ok := r.res.Status[m]
	return st, ok
}
