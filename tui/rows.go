package tui

import (
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval"
)

// row is one sample in the table, compact: what the table draws, sorts and
// filters on, not the eval.Result with its contexts, traces and calls. A
// million rows of these fit in a terminal's memory budget; the full result
// is kept for a few samples only (see results) and read from the store
// (Options.Load) when a sample is opened.
type row struct {
	index int
	// id is the sample's id. heads holds the first headRunes runes of
	// the question, then of the answer (one allocation for both), qlen
	// bytes of question: the table shows the question, the free-text
	// filter searches both. qcut says the question was longer.
	id    string
	heads string
	qlen  uint16
	// known is what the runner's EventSampleStarted told of a sample still
	// being evaluated: its texts, no scores. Nil once done, and when the
	// stream sent no texts (an older stream, a watcher). Only the samples
	// in flight have one.
	known *eval.Result
	// scores stay float64: a float32 0.9 is 0.8999999, which lands in
	// the wrong histogram bin and misses f>=0.9 at the edge.
	scores [4]float64 // NaN when the metric has no score
	// status is each metric's status as a statusCode; 0 when the metric
	// was not evaluated for this sample.
	status [4]uint8
	done   bool // the sample has a result
	qcut   bool
	mark   rowMark
	diag   eval.Diagnosis
	// errs are the failure messages of the metrics that failed, nil when
	// none did: the header shows the most frequent one.
	errs *[4]string
}

// headRunes is how much of a question and of an answer a row keeps: more
// than the question column shows on a 200-column terminal.
const headRunes = 80

type rowMark uint8

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

// statusCodes interns the statuses rows hold: a status read from the store
// is a fresh string per sample, a byte per metric is not. Code 0 is "not
// evaluated". A status this version does not know (a newer writer) gets a
// code of its own, up to the 255 a byte holds.
var statusCodes = struct {
	sync.Mutex
	names []eval.Status
	codes map[eval.Status]uint8
}{names: []eval.Status{""}, codes: map[eval.Status]uint8{}}

func init() {
	for _, s := range []eval.Status{eval.StatusOK, eval.StatusNoStatements, eval.StatusMissingInput,
		eval.StatusParseError, eval.StatusJudgeError, eval.StatusCancelled, eval.StatusCacheMiss, eval.StatusNoQuestions} {
		statusCode(s)
	}
}

func statusCode(s eval.Status) uint8 {
	statusCodes.Lock()
	defer statusCodes.Unlock()
	if c, ok := statusCodes.codes[s]; ok {
		return c
	}
	if len(statusCodes.names) > math.MaxUint8 {
		// Past 255 distinct statuses, the rest read as a judge error: a
		// failure still, never a score.
		return statusCodes.codes[eval.StatusJudgeError]
	}
	c := uint8(len(statusCodes.names))
	statusCodes.names = append(statusCodes.names, s)
	statusCodes.codes[s] = c
	return c
}

func statusName(c uint8) eval.Status {
	statusCodes.Lock()
	defer statusCodes.Unlock()
	return statusCodes.names[c]
}

func newRow(index int, res *eval.Result) *row {
	r := &row{index: index}
	r.set(res)
	return r
}

// set makes the row show res; nil makes it a running row.
func (r *row) set(res *eval.Result) {
	for i := range r.scores {
		r.scores[i] = math.NaN()
	}
	r.status, r.errs, r.diag = [4]uint8{}, nil, ""
	r.done = res != nil
	if res == nil {
		r.mark = markRunning
		return
	}
	r.known = nil
	r.setTexts(res)
	for i, m := range eval.AllMetrics {
		st, ok := res.Status[m]
		if !ok {
			continue
		}
		r.status[i] = statusCode(st)
		if v, ok := res.Score(m); ok && st == eval.StatusOK {
			r.scores[i] = v
		}
		if st.Failed() {
			if r.errs == nil {
				r.errs = new([4]string)
			}
			r.errs[i] = res.Errors[m]
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

// setTexts keeps the id and the heads of the question and the answer,
// copied so the row does not pin the result's memory.
func (r *row) setTexts(res *eval.Result) {
	r.id = strings.Clone(res.ID)
	q, qcut := head(res.Question)
	a, _ := head(res.Answer)
	r.heads, r.qlen, r.qcut = q+a, uint16(len(q)), qcut
}

// head is the first headRunes runes of s, and whether s was longer.
func head(s string) (string, bool) {
	n := 0
	for i := range s {
		if n == headRunes {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// question is the head of the question, what the table shows.
func (r *row) question() string { return r.heads[:r.qlen] }

// start records the texts of a sample that is still being evaluated; the
// row stays running until its result arrives.
func (r *row) start(known *eval.Result) {
	if r.done {
		return
	}
	r.known = known
	r.setTexts(known)
}

// score is a metric's score by slot, NaN when it has none.
func (r *row) score(slot int) float64 { return r.scores[slot] }

// status returns the status of a metric and whether the metric was
// evaluated for this sample at all (it is absent when not selected).
func (r *row) statusOf(m eval.Metric) (eval.Status, bool) {
	slot := metricSlot(m)
	if slot < 0 || r.status[slot] == 0 {
		return "", false
	}
	return statusName(r.status[slot]), true
}

// errText is the failure message of a metric, "" when it did not fail or
// the judge gave none.
func (r *row) errText(m eval.Metric) string {
	if slot := metricSlot(m); r.errs != nil && slot >= 0 {
		return r.errs[slot]
	}
	return ""
}

// scored is a metric's score when its status is ok, what a comparison
// takes a change from.
func (r *row) scored(m eval.Metric) (float64, bool) {
	slot := metricSlot(m)
	if r == nil || !r.done || slot < 0 {
		return 0, false
	}
	if st, _ := r.statusOf(m); st != eval.StatusOK {
		return 0, false
	}
	v := r.score(slot)
	return v, !math.IsNaN(v)
}

// matchText is the free-text filter: needle (lower-cased) in the kept
// heads of the question or the answer, or in the id, case folded without
// allocating, so a search over a million rows stays one pass over their
// short texts. The question and the answer are searched apart, so a needle
// never matches across the seam.
func (r *row) matchText(needle string) bool {
	return containsFold(r.question(), needle) || containsFold(r.heads[r.qlen:], needle) || containsFold(r.id, needle)
}

// containsFold reports whether lower-cased needle occurs in s, ignoring
// case. It jumps from one candidate first rune to the next with
// strings.Index, so most of s is skipped at memchr speed.
func containsFold(s, needle string) bool {
	if needle == "" {
		return true
	}
	first, _ := utf8.DecodeRuneInString(needle)
	upper := unicode.ToUpper(first)
	for i := 0; i < len(s); {
		j := indexRune2(s[i:], first, upper)
		if j < 0 {
			return false
		}
		at := i + j
		if hasPrefixFold(s[at:], needle) {
			return true
		}
		_, w := utf8.DecodeRuneInString(s[at:])
		i = at + max(w, 1)
	}
	return false
}

// indexRune2 is the first index of a or b in s.
func indexRune2(s string, a, b rune) int {
	i := strings.IndexRune(s, a)
	if a == b {
		return i
	}
	j := strings.IndexRune(s, b)
	switch {
	case i < 0:
		return j
	case j < 0:
		return i
	}
	return min(i, j)
}

// hasPrefixFold reports whether s starts with lower-cased needle, rune by
// rune under unicode.ToLower (what strings.ToLower does).
func hasPrefixFold(s, needle string) bool {
	for _, nr := range needle {
		if s == "" {
			return false
		}
		sr, w := utf8.DecodeRuneInString(s)
		if sr != nr && unicode.ToLower(sr) != nr {
			return false
		}
		s = s[w:]
	}
	return true
}
