package report

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// maxErrorMessages bounds the distinct failure messages a Tally counts: a
// run whose every failure quotes its sample would otherwise keep one entry
// per sample. Messages past the bound are counted together.
const maxErrorMessages = 256

// otherErrors is the message under which a Tally counts the failures whose
// message came after maxErrorMessages distinct ones.
const otherErrors = "(other messages)"

// Tally aggregates results one at a time: the per-metric summary, the
// diagnosis counts, the failures and their most frequent messages. It
// holds no result, so a run of any size is summarised in little memory.
type Tally struct {
	metrics []eval.Metric
	levels  Levels
	sums    map[eval.Metric]*exactSum
	summary map[eval.Metric]MetricSummary
	diag    map[Diagnosis]int
	samples int
	failed  int
	errs    map[string]int
	convs   *conversations
}

// NewTally starts a tally over the metrics, diagnosing with the default
// pass levels.
func NewTally(metrics []eval.Metric) *Tally { return NewTallyAt(metrics, Levels{}) }

// NewTallyAt starts a tally over the metrics, diagnosing with levels.
func NewTallyAt(metrics []eval.Metric, levels Levels) *Tally {
	t := &Tally{
		metrics: metrics,
		levels:  levels,
		sums:    make(map[eval.Metric]*exactSum, len(metrics)),
		summary: make(map[eval.Metric]MetricSummary, len(metrics)),
		diag:    make(map[Diagnosis]int, len(Diagnoses)),
		errs:    map[string]int{},
		convs:   newConversations(metrics, func(m eval.Metric, v float64) bool { return !levels.Passes(m, v) }),
	}
	for _, m := range metrics {
		t.summary[m] = MetricSummary{}
		t.sums[m] = &exactSum{}
	}
	for _, d := range DiagnosesAt(levels) {
		t.diag[d] = 0
	}
	return t
}

// Add counts one result; nil (a sample never finished) counts nothing.
func (t *Tally) Add(r *eval.Result) {
	if r == nil {
		return
	}
	t.samples++
	t.convs.add(r)
	t.diag[t.levels.Diagnose(r)]++
	if r.Failed() {
		t.failed++
	}
	for _, m := range t.metrics {
		st, ok := r.Status[m]
		if !ok {
			continue
		}
		ms := t.summary[m]
		if v, ok := r.Score(m); ok && st == eval.StatusOK {
			t.sums[m].add(v)
			ms.Scored++
			t.summary[m] = ms
			continue
		}
		if st.Failed() {
			ms.Failed++
		} else {
			ms.NotApplicable++
		}
		if ms.ByStatus == nil {
			ms.ByStatus = map[eval.Status]int{}
		}
		ms.ByStatus[st]++
		t.summary[m] = ms
	}
	for m, st := range r.Status {
		if !st.Failed() {
			continue
		}
		msg := failedText(r, m)
		if _, ok := t.errs[msg]; !ok && len(t.errs) >= maxErrorMessages {
			msg = otherErrors
		}
		t.errs[msg]++
	}
}

// Samples is the number of results added.
func (t *Tally) Samples() int { return t.samples }

// Failed is the number of results with some failed metric.
func (t *Tally) Failed() int { return t.failed }

// Summary is the per-metric summary so far (a copy).
func (t *Tally) Summary() map[eval.Metric]MetricSummary {
	out := make(map[eval.Metric]MetricSummary, len(t.summary))
	for m, ms := range t.summary {
		ms.ByStatus = maps.Clone(ms.ByStatus)
		ms.Mean = meanOf(t.sums[m].value(), ms.Scored)
		out[m] = ms
	}
	return out
}

// Conversations are the run's conversations over the turns added, in the
// order they first came; nil when no result is a conversation's turn.
func (t *Tally) Conversations() []ConversationSummary { return t.convs.summaries() }

// Diagnoses counts the results per diagnosis (a copy; every diagnosis has
// an entry, 0 when no result has it).
func (t *Tally) Diagnoses() map[Diagnosis]int { return maps.Clone(t.diag) }

// ErrorCount is one failure message and how many (sample, metric) pairs
// ended with it.
type ErrorCount struct {
	Message string
	Count   int
}

// TopErrors are the n most frequent failure messages, most frequent first.
func (t *Tally) TopErrors(n int) []ErrorCount {
	out := make([]ErrorCount, 0, len(t.errs))
	for msg, c := range t.errs {
		out = append(out, ErrorCount{msg, c})
	}
	slices.SortFunc(out, func(a, b ErrorCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Message, b.Message))
	})
	return out[:min(n, len(out))]
}

// exactSum adds float64s exactly and rounds once, when read (Shewchuk's
// partials, as Python's math.fsum): the sum is the same in whatever order
// the values come, so a run tallied as its samples finish, out of order,
// has the means of the run read back in the order of its samples.
type exactSum struct{ partials []float64 }

func (s *exactSum) add(x float64) {
	i := 0
	for _, y := range s.partials {
		if math.Abs(x) < math.Abs(y) {
			x, y = y, x
		}
		hi := x + y
		lo := y - (hi - x)
		if lo != 0 {
			s.partials[i] = lo
			i++
		}
		x = hi
	}
	s.partials = append(s.partials[:i], x)
}

// value is the sum correctly rounded (half to even).
func (s *exactSum) value() float64 {
	p := s.partials
	n := len(p)
	if n == 0 {
		return 0
	}
	n--
	hi, lo := p[n], 0.0
	for n > 0 {
		x := hi
		n--
		y := p[n]
		hi = x + y
		lo = y - (hi - x)
		if lo != 0 {
			break
		}
	}
	if n > 0 && (lo < 0 && p[n-1] < 0 || lo > 0 && p[n-1] > 0) {
		y := lo * 2
		x := hi + y
		if y == x-hi {
			hi = x
		}
	}
	return hi
}
