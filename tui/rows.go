package tui

import (
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// row is one sample in the table, compact: what the table draws, sorts and
// filters on, so that a million rows fit in memory; the full result is
// read when a sample is opened (results). Rows are allocated in slabs
// (rowSlab); what few rows have is kept beside them (rowExtras).
type row struct {
	// scores stay float64: a float32 0.9 misses f>=0.9. The default
	// metrics' are inline, the others' in a block allocated only when one
	// is evaluated (moreMetrics).
	scores [inlineScores]float64 // NaN when the metric has no score
	more   *moreMetrics
	// texts holds the id (idLen bytes), then the heads of the question
	// (qLen bytes) and of the answer: one allocation for the three.
	texts       string
	index       int
	idLen, qLen uint16
	status      [inlineScores]uint8 // statusCodes; 0: not evaluated
	diag        uint8               // the diagnosis as a code (diagCodes)
	mark        rowMark
	na          bool // a metric was not computable (no statements, missing input, ...; not unsupported)
	done        bool // the sample has a result
	qcut        bool // the question was longer than its head
	acut        bool // the answer (or the id) was longer than its head
}

// inlineScores is how many metrics' scores a row holds inline: the
// default ones, first in eval.AllMetrics.
const inlineScores = 4

// moreMetrics holds the metrics past the default ones and a pointer to
// the criteria's (slots from eval.NumMetrics on): 64 bytes.
type moreMetrics struct {
	scores [eval.NumMetrics - inlineScores]float64
	status [eval.NumMetrics - inlineScores]uint8
	crit   *[]critCell
}

// critCell is a criterion's score (NaN without one) and status code.
type critCell struct {
	score  float64
	status uint8
}

// rowSlab hands out rows from blocks of slabRows, so a million rows are a
// few hundred allocations.
type rowSlab struct{ block []row }

const slabRows = 4096

func (s *rowSlab) alloc() *row {
	if len(s.block) == cap(s.block) {
		s.block = make([]row, 0, slabRows)
	}
	s.block = s.block[:len(s.block)+1]
	return &s.block[len(s.block)-1]
}

// trim moves the rows of the last block, when it is less than half used,
// to a block of their size, and points rows (the slab's, in order) at
// them: a page of a stored run may be far smaller than a block.
func (s *rowSlab) trim(rows []*row) {
	n := len(s.block)
	if n == 0 || n > cap(s.block)/2 {
		return
	}
	fit := slices.Clone(s.block)
	for i := range fit {
		rows[len(rows)-n+i] = &fit[i]
	}
	s.block = fit
}

// headRunes is how much of a question and of an answer a row keeps: more
// than the question column shows on a 200-column terminal.
const headRunes = 80

type rowMark uint8

const (
	markRunning rowMark = iota
	markOK              // evaluated, every score passes its pass level
	markLow             // evaluated, and diagnosed other than ok: a score fails its pass level, or the answer evades
	markWarn            // a metric was not computable (no statements, missing input, ...; not unsupported)
	markFailed
)

// fillNaN marks every score of s as none.
func fillNaN(s []float64) {
	for i := range s {
		s[i] = math.NaN()
	}
}

// metricSlot is a metric's position in row.scores (eval.AllMetrics).
func metricSlot(m eval.Metric) int { return slices.Index(eval.AllMetrics, m) }

// codes interns the short strings rows hold, a byte each. Code 0 is the
// empty string; values past the 255th read as fallback.
type codes[T ~string] struct {
	mu       sync.Mutex
	codes    map[T]uint8
	fallback T
	// names and known are replaced, never changed in place, so name and
	// code read them without the lock.
	names atomic.Pointer[[]T]
	known atomic.Pointer[map[T]uint8]
}

func newCodes[T ~string](fallback T, known ...T) *codes[T] {
	c := &codes[T]{codes: map[T]uint8{"": 0}, fallback: fallback}
	c.names.Store(&[]T{""})
	for _, v := range known {
		c.code(v)
	}
	return c
}

func (c *codes[T]) code(v T) uint8 {
	if known := c.known.Load(); known != nil {
		if n, ok := (*known)[v]; ok {
			return n
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.codes[v]; ok {
		return n
	}
	names := *c.names.Load()
	if len(names) > math.MaxUint8 {
		return c.codes[c.fallback]
	}
	n := uint8(len(names))
	grown := append(slices.Clip(names), v)
	c.names.Store(&grown)
	c.codes[v] = n
	known := maps.Clone(c.codes)
	c.known.Store(&known)
	return n
}

func (c *codes[T]) name(n uint8) T { return (*c.names.Load())[n] }

// A status past the 255th reads as a judge error: a failure still, never a
// score.
var statusCodes = newCodes(eval.StatusJudgeError, eval.StatusOK, eval.StatusNoStatements, eval.StatusMissingInput,
	eval.StatusParseError, eval.StatusJudgeError, eval.StatusCancelled, eval.StatusCacheMiss, eval.StatusNoQuestions,
	eval.StatusUnsupported, eval.StatusTruncated)

var diagCodes = newCodes(report.DiagLowScore, report.Diagnoses...)

// diagnosis is the row's diagnosis, "" while it runs.
func (r *row) diagnosis() report.Diagnosis { return diagCodes.name(r.diag) }

// rowExtras is what only some rows have, by sample index: the texts of a
// sample in flight (EventSampleStarted) and the failure messages.
type rowExtras struct {
	known map[int]*eval.Result
	errs  map[int]*[eval.NumMetrics]string
}

// newRow is a row of its own, outside a table (the before side of a
// comparison), diagnosed with levels: it keeps no failure messages.
func newRow(index int, res *eval.Result, levels report.Levels) *row {
	r := &row{index: index}
	r.set(res, nil, levels)
	return r
}

// set makes the row show res, diagnosed with levels; nil makes it a
// running row. The failure messages go to x when it is not nil.
func (r *row) set(res *eval.Result, x *rowExtras, levels report.Levels) {
	fillNaN(r.scores[:])
	if r.more != nil {
		r.more.reset()
	}
	r.status, r.diag, r.na = [inlineScores]uint8{}, 0, false
	r.done = res != nil
	if x != nil {
		delete(x.errs, r.index)
	}
	if res == nil {
		r.mark = markRunning
		return
	}
	if x != nil {
		delete(x.known, r.index)
	}
	r.setTexts(res)
	for i, m := range eval.AllMetrics {
		r.setCell(i, res, m)
		if res.Status[m].Failed() && x != nil {
			if x.errs[r.index] == nil {
				setIn(&x.errs, r.index, new([eval.NumMetrics]string))
			}
			x.errs[r.index][i] = res.Errors[m]
		}
	}
	d := levels.Diagnose(res)
	r.diag = diagCodes.code(d)
	// The mark is the worst of: failed, diagnosed other than ok, a metric
	// not computable (unsupported is the judge's, not the sample's).
	failed := false
	for _, st := range res.Status {
		switch {
		case st.Failed():
			failed = true
		case st != eval.StatusOK && st != eval.StatusUnsupported:
			r.na = true
		}
	}
	switch {
	case failed:
		r.mark = markFailed
	case d != report.DiagOK:
		r.mark = markLow
	case r.na:
		r.mark = markWarn
	default:
		r.mark = markOK
	}
}

// setTexts keeps copies of the id (up to maxRowID bytes) and the heads of
// the question and the answer: the result may be lent (Options.Summaries).
func (r *row) setTexts(res *eval.Result) {
	id, idcut := headBytes(res.ID, maxRowID)
	q, qcut := head(res.Question)
	a, acut := head(res.Answer)
	// Join copies: a lone non-empty part is not handed back as it is.
	r.texts = strings.Join([]string{id, q, a}, "")
	r.idLen, r.qLen, r.qcut, r.acut = uint16(len(id)), uint16(len(q)), qcut, acut || idcut
}

// cut reports a row whose kept texts are heads of longer ones: the
// free-text filter searches its whole texts (see wholeText).
func (r *row) cut() bool { return r.qcut || r.acut }

const maxRowID = 1024

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

// headBytes is the longest prefix of s of at most n bytes that ends on a
// rune boundary, and whether s was longer.
func headBytes(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// id is the sample's id (its first maxRowID bytes).
func (r *row) id() string { return r.texts[:r.idLen] }

// question is the head of the question, what the table shows.
func (r *row) question() string { return r.texts[r.idLen : int(r.idLen)+int(r.qLen)] }

// answer is the head of the answer.
func (r *row) answer() string { return r.texts[int(r.idLen)+int(r.qLen):] }

// start records the texts of a sample that is still being evaluated; the
// row stays running until its result arrives.
func (r *row) start(known *eval.Result, x *rowExtras) {
	if r.done {
		return
	}
	setIn(&x.known, r.index, known)
	r.setTexts(known)
}

// at is a metric's (or a criterion's) score by slot, NaN without one, and
// its status code, 0 when it was not evaluated.
func (r *row) at(slot int) (float64, uint8) {
	switch {
	case slot < 0:
	case slot < inlineScores:
		return r.scores[slot], r.status[slot]
	case r.more == nil:
	case slot < eval.NumMetrics:
		return r.more.scores[slot-inlineScores], r.more.status[slot-inlineScores]
	case r.more.crit != nil && slot-eval.NumMetrics < len(*r.more.crit):
		c := (*r.more.crit)[slot-eval.NumMetrics]
		return c.score, c.status
	}
	return math.NaN(), 0
}

func (r *row) score(slot int) float64 {
	v, _ := r.at(slot)
	return v
}

// cell is where the row keeps a slot's score and status code, allocated
// on first use.
func (r *row) cell(slot int) (*float64, *uint8) {
	if slot < inlineScores {
		return &r.scores[slot], &r.status[slot]
	}
	if r.more == nil {
		r.more = new(moreMetrics)
		r.more.reset()
	}
	if slot < eval.NumMetrics {
		return &r.more.scores[slot-inlineScores], &r.more.status[slot-inlineScores]
	}
	if r.more.crit == nil {
		r.more.crit = new([]critCell)
	}
	cells, i := r.more.crit, slot-eval.NumMetrics
	for len(*cells) <= i {
		*cells = append(*cells, critCell{score: math.NaN()})
	}
	return &(*cells)[i].score, &(*cells)[i].status
}

func (x *moreMetrics) reset() {
	fillNaN(x.scores[:])
	x.status = [eval.NumMetrics - inlineScores]uint8{}
	if x.crit != nil {
		for i := range *x.crit {
			(*x.crit)[i] = critCell{score: math.NaN()}
		}
	}
}

// statusOf returns the status of a metric and whether it was evaluated.
func (r *row) statusOf(m eval.Metric) (eval.Status, bool) { return r.statusAt(metricSlot(m)) }

// statusAt is statusOf by slot, a criterion's too.
func (r *row) statusAt(slot int) (eval.Status, bool) {
	if _, c := r.at(slot); c != 0 {
		return statusCodes.name(c), true
	}
	return "", false
}

// setCriteria keeps the criteria's scores and statuses in their slots,
// and marks low a row that fails a criterion's pass level (after set).
func (r *row) setCriteria(res *eval.Result, c critSet) {
	if res == nil {
		return
	}
	for i, name := range c.names {
		if v, ok := r.setCell(eval.NumMetrics+i, res, name); ok && !c.passes(name, v) && (r.mark == markOK || r.mark == markWarn) {
			r.mark = markLow
		}
	}
}

// setCell keeps res's status of name and its score (when ok) in slot,
// and returns the score kept.
func (r *row) setCell(slot int, res *eval.Result, name eval.Metric) (float64, bool) {
	st, ok := res.Status[name]
	if !ok {
		return 0, false
	}
	score, code := r.cell(slot)
	*code = statusCodes.code(st)
	v, ok := res.Score(name)
	if !ok || st != eval.StatusOK {
		return 0, false
	}
	*score = v
	return v, true
}

// errText is the failure message of a metric of a row, "" when it did not
// fail or the judge gave none.
func (x *rowExtras) errText(r *row, m eval.Metric) string {
	if e, slot := x.errs[r.index], metricSlot(m); e != nil && slot >= 0 {
		return e[slot]
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

// matchText is the free-text filter on the row's kept texts, each apart
// (no match across the seam), case folded without allocating.
func (r *row) matchText(needle string) bool {
	return containsFold(r.question(), needle) || containsFold(r.answer(), needle) || containsFold(r.id(), needle)
}

// containsFold reports whether lower-cased needle occurs in s, ignoring
// case, jumping between candidate first runes with strings.IndexRune.
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

// rowIndex finds a sample's row by its index: a slice for dense indexes,
// a map for one far beyond the rows seen (a hostile stream).
type rowIndex struct {
	pos    []int32 // row position + 1; 0: no row
	sparse map[int]int
}

// denseSlack is how far past the rows already indexed the slice may grow
// at once.
const denseSlack = 1 << 20

func (x *rowIndex) get(index int) (int, bool) {
	if index >= 0 && index < len(x.pos) {
		p := x.pos[index]
		return int(p) - 1, p != 0
	}
	p, ok := x.sparse[index]
	return p, ok
}

func (x *rowIndex) set(index, pos int) {
	if index >= 0 && index < len(x.pos)+denseSlack && pos < 1<<31-1 {
		if index >= len(x.pos) {
			x.pos = append(x.pos, make([]int32, index+1-len(x.pos))...)
		}
		x.pos[index] = int32(pos + 1)
		return
	}
	setIn(&x.sparse, index, pos)
}

// reset empties the index, keeping room for n rows.
func (x *rowIndex) reset(n int) {
	x.pos, x.sparse = make([]int32, 0, n), nil
}

// inOrder is the row positions + 1 by sample index (0: no row), false
// when some are in the sparse map.
func (x *rowIndex) inOrder() ([]int32, bool) { return x.pos, len(x.sparse) == 0 }
