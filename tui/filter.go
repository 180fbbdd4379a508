package tui

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// filter is a parsed filter expression: every term must hold (AND).
type filter struct {
	src   string
	terms []term
}

type termKind int

const (
	termText termKind = iota
	termScore
	termStatus
	termDiag
	termDelta // the change of a score in compare mode (df<0: got worse)
	termLabel // label:any|disputed|agreed|none (labels.go)
)

type term struct {
	kind   termKind
	word   string // as typed, to name the term in an error
	text   string // lower-cased, for termText
	slot   int    // metric slot, for termScore and termDelta
	op     string
	value  float64
	status string // "failed", "ok", "low", "running", "n/a" or an eval.Status
	diag   report.Diagnosis
}

var statusWords = []string{
	"ok", "low", "failed", "running", "n/a",
	string(eval.StatusNoStatements), string(eval.StatusMissingInput), string(eval.StatusParseError),
	string(eval.StatusJudgeError), string(eval.StatusCancelled), string(eval.StatusCacheMiss),
	string(eval.StatusNoQuestions), string(eval.StatusUnsupported), string(eval.StatusTruncated),
}

// diagWords lists the diagnoses diag: accepts, for its error message.
var diagWords = strings.Join(mapped(report.Diagnoses, func(d report.Diagnosis) string { return string(d) }), ", ")

// ops is ordered so two-character operators are tried first.
var ops = []string{"<=", ">=", "!=", "==", "<", ">", "="}

// parseFilter parses the filter bar, where the names of the run's criteria
// are score terms too. The empty string is the empty filter.
func parseFilter(src string, crit critSet) (*filter, error) {
	f := &filter{src: strings.TrimSpace(src)}
	words, err := splitWords(src)
	if err != nil {
		return nil, err
	}
	for _, w := range words {
		t, err := parseTerm(w, crit)
		if err != nil {
			return nil, err
		}
		f.terms = append(f.terms, t)
	}
	return f, nil
}

// splitWords splits on spaces, keeping "double quoted phrases" whole so
// free text can contain spaces.
func splitWords(src string) ([]word, error) {
	var out []word
	var cur strings.Builder
	quoted, inQuote, has := false, false, false
	flush := func() {
		if has {
			out = append(out, word{cur.String(), quoted})
		}
		cur.Reset()
		quoted, has = false, false
	}
	for _, r := range src {
		switch {
		case r == '"':
			inQuote = !inQuote
			quoted, has = true, true
		case unicode.IsSpace(r) && !inQuote:
			flush()
		default:
			cur.WriteRune(r)
			has = true
		}
	}
	if inQuote {
		return nil, fmt.Errorf("unclosed quote in %q: add the closing \"", src)
	}
	flush()
	return out, nil
}

type word struct {
	s      string
	quoted bool
}

func parseTerm(w word, crit critSet) (term, error) {
	if w.quoted {
		return term{kind: termText, text: strings.ToLower(w.s)}, nil
	}
	s := w.s
	lower := strings.ToLower(s)
	if k, v, ok := strings.Cut(lower, ":"); ok {
		switch k {
		case "label":
			if slices.Contains(labelWordsFilter, v) {
				return term{kind: termLabel, status: v}, nil
			}
			return term{}, fmt.Errorf("%s: unknown label state %q (use label:any, label:disputed, label:agreed or label:none)", s, v)
		case "status":
			if slices.Contains(statusWords, v) {
				return term{kind: termStatus, status: v}, nil
			}
			return term{}, fmt.Errorf("%s: unknown status %q (use one of %s)", s, v, strings.Join(statusWords, ", "))
		case "diag":
			if v == "offtopic" {
				v = string(report.DiagOffTopic)
			}
			if slices.Contains(report.Diagnoses, report.Diagnosis(v)) {
				return term{kind: termDiag, diag: report.Diagnosis(v)}, nil
			}
			return term{}, fmt.Errorf("%s: unknown diagnosis %q (use one of %s)", s, v, diagWords)
		}
	}
	for _, op := range ops {
		name, num, ok := strings.Cut(lower, op)
		if !ok {
			continue
		}
		t := term{kind: termScore, op: op, slot: crit.slot(eval.Metric(name))}
		if op == "==" {
			t.op = "="
		}
		lo, what := 0.0, "score"
		// A criterion's name first: only a change term could share it.
		if m, ok := deltaMetric(name); t.slot < 0 && ok {
			t.kind, t.word, t.slot, lo, what = termDelta, s, metricSlot(m), -1, "change"
		} else if t.slot < 0 {
			m, ok := eval.LookupMetric(name)
			if !ok {
				return term{}, fmt.Errorf("%s: unknown metric %q (use f, ar, cp, cr, cu, as, ac, fc, er or ns%s, or df, dar, dcp, ... for the change "+
					"when comparing; put free text with < > = in double quotes)", s, name, crit.list())
			}
			t.slot = metricSlot(m)
		}
		v, err := parseBounded(s, num, lo, what)
		if err != nil {
			return term{}, err
		}
		t.value = v
		return t, nil
	}
	return term{kind: termText, text: lower}, nil
}

// parseBounded reads the number of term s, a score (from 0) or a change
// (from -1) up to 1.
func parseBounded(s, num string, lo float64, what string) (float64, error) {
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || v < lo || v > 1 {
		return 0, fmt.Errorf("%s: %q is not a %s between %g and 1", s, num, what, lo)
	}
	return v, nil
}

// deltaMetric reads the name of a change term: d or Δ (as the column
// title has it) before a metric name, df or Δf for faithfulness.
func deltaMetric(name string) (eval.Metric, bool) {
	for _, prefix := range []string{"d", "δ"} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			if m, ok := eval.LookupMetric(rest); ok {
				return m, true
			}
		}
	}
	return "", false
}

// needsComparison is the first change term of the filter, if any.
func (f *filter) needsComparison() (term, bool) {
	if f == nil {
		return term{}, false
	}
	for _, t := range f.terms {
		if t.kind == termDelta {
			return t, true
		}
	}
	return term{}, false
}

// readFilter parses the filter bar for the table as it is: a change term
// is an error unless two runs are compared.
func (m *Model) readFilter(src string) (*filter, error) {
	f, err := parseFilter(src, m.st.crit)
	if err != nil {
		return nil, err
	}
	if t, ok := f.needsComparison(); ok && m.cmp == nil {
		return nil, fmt.Errorf("%s: a change term needs two runs side by side; compare runs first (c), then filter on the change", t.word)
	}
	return f, nil
}

// scoreEpsilon judges scores at the three decimals shown: cp=0.667
// matches 0.6666….
const scoreEpsilon = 0.0005

func (f *filter) empty() bool { return f == nil || len(f.terms) == 0 }

// matchEnv is what a term reads besides the row.
type matchEnv struct {
	metrics []eval.Metric
	crit    critSet
	delta   func(r *row, slot int) (float64, bool) // nil outside compare mode
	marks   map[int]uint8                          // human-label marks by sample index
	whole   func(r *row, needle string) bool       // a cut row's whole texts (wholeText)
}

func (f *filter) match(r *row, env matchEnv) bool {
	if f.empty() {
		return true
	}
	for i := range f.terms {
		if !f.terms[i].match(r, env) {
			return false
		}
	}
	return true
}

func (t *term) match(r *row, env matchEnv) bool {
	switch t.kind {
	case termText:
		return r.matchText(t.text) || env.whole != nil && env.whole(r, t.text)
	case termScore:
		v := r.score(t.slot)
		return !math.IsNaN(v) && t.compare(v)
	case termDelta:
		if env.delta == nil {
			return false
		}
		v, ok := env.delta(r, t.slot)
		return ok && t.compare(v)
	case termDiag:
		return r.done && r.diagnosis() == t.diag
	case termStatus:
		return matchStatus(r, t.status, env.metrics, env.crit)
	case termLabel:
		return matchLabel(env.marks[r.index], t.status)
	}
	return false
}

// compare applies the term's operator at the table's precision.
func (t *term) compare(v float64) bool {
	switch t.op {
	case "<":
		return v < t.value-scoreEpsilon
	case "<=":
		return v <= t.value+scoreEpsilon
	case ">":
		return v > t.value+scoreEpsilon
	case ">=":
		return v >= t.value-scoreEpsilon
	case "=":
		return math.Abs(v-t.value) <= scoreEpsilon
	case "!=":
		return math.Abs(v-t.value) > scoreEpsilon
	}
	return false
}

func matchStatus(r *row, want string, metrics []eval.Metric, crit critSet) bool {
	switch want {
	case "running":
		return !r.done
	case "failed":
		return r.mark == markFailed
	case "ok": // whether its scores pass or not
		return r.done && r.mark != markFailed && !r.na
	case "low":
		return r.mark == markLow
	case "n/a":
		return r.done && r.mark != markFailed && r.na
	}
	has := func(slot int) bool {
		st, ok := r.statusAt(slot)
		return ok && string(st) == want
	}
	return slices.ContainsFunc(metrics, func(m eval.Metric) bool { return has(metricSlot(m)) }) ||
		slices.ContainsFunc(crit.names, func(c eval.Metric) bool { return has(crit.slot(c)) })
}

// filterBar is the state of an open filter bar, which filters as the user
// types: an edit that does not parse keeps the last filter and shows its
// error dimmed; esc puts back the one in force when it opened.
type filterBar struct {
	before     *filter // the filter in force when the bar opened
	beforeRow  int     // the sample under the cursor then, -1 for none
	errPressed bool    // enter was pressed on the error: show it as one
}

// openFilter is /: the bar opens on the filter in force.
func (m *Model) openFilter() tea.Cmd {
	m.closeFilter() // a closed bar holds the filter in force
	m.mode = modeFilter
	m.bar = filterBar{before: m.filter, beforeRow: cursorIndex(m)}
	m.input.CursorEnd()
	return m.input.Focus()
}

// filterKey edits the filter: enter keeps it (or shows its error), esc
// cancels the edit.
func (m *Model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.FilterApply):
		f, err := m.readFilter(m.input.Value())
		if err != nil {
			m.filterErr, m.bar.errPressed = err.Error(), true
			return nil
		}
		m.closeFilter() // first: a filter in force reads long samples (wholeText)
		m.setFilter(f)
		return nil
	case key.Matches(msg, k.FilterCancel):
		before, row := m.bar.before, m.bar.beforeRow
		m.closeFilter()
		m.setFilter(before)
		m.keepCursorOn(row)
		return nil
	}
	return m.editFilter(msg)
}

// editFilter passes a key or a paste to the bar and filters the rows by
// what it then holds.
func (m *Model) editFilter(msg tea.Msg) tea.Cmd {
	was := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if src := m.input.Value(); src != was {
		m.bar.errPressed = false
		f, err := m.readFilter(src)
		if err != nil {
			m.filterErr = err.Error()
			return cmd
		}
		m.filterErr = ""
		m.setFilter(f)
	}
	return cmd
}

// setFilter puts a filter in force, the empty one as none, with the cursor
// on the first row it shows.
func (m *Model) setFilter(f *filter) {
	if f.empty() {
		f = nil
	}
	if f == m.filter {
		return
	}
	m.filter = f
	m.cursor = 0
	m.derive()
}

func (m *Model) closeFilter() {
	m.mode = modeScreen
	m.filterErr = ""
	m.bar = filterBar{}
	m.input.Blur()
	m.input.SetValue("")
	if m.filter != nil {
		m.input.SetValue(m.filter.src)
	}
}

// wholeText is the free-text filter's search of the whole texts of rows
// that keep only their heads: in memory when the result is there, else
// read from the store in the background, a batch at a time. Which of the
// filter's words a row holds is kept for the filter's life.
type wholeText struct {
	f        *filter          // a new filter starts afresh
	found    map[int][]string // by sample index, the filter's words its whole texts hold
	want     map[int]struct{} // rows to read from the store
	deferred map[int]struct{} // rows enter will read: none is read for a prefix being typed
	inFlight int              // rows a command is reading now
	failed   int              // rows the store could not give
}

// wholeTextBatch is how many results one background command reads.
const wholeTextBatch = 512

// matchWhole reports whether needle is in the whole texts of a cut row;
// one not in memory is queued for the store and does not match yet.
func (m *Model) matchWhole(r *row, needle string) bool {
	if !r.cut() {
		return false
	}
	w := m.whole
	if w == nil || w.f != m.filter {
		w = &wholeText{f: m.filter, found: map[int][]string{}, want: map[int]struct{}{}, deferred: map[int]struct{}{}}
		m.whole = w
	}
	found, ok := w.found[r.index]
	if res := m.detailResult(r); !ok && res != nil {
		found, ok = w.f.wordsIn(res), true
		w.found[r.index] = found
	}
	// Read for a filter put in force, not for every prefix typed.
	if !ok && m.opts.Load != nil && r.done {
		if m.shownMode() == modeFilter {
			w.deferred[r.index] = struct{}{}
		} else {
			w.want[r.index] = struct{}{}
		}
	}
	return slices.Contains(found, needle)
}

// wordsIn are the filter's free-text words that res's whole texts hold,
// as matchText finds them in a row's.
func (f *filter) wordsIn(res *eval.Result) []string {
	var out []string
	for _, t := range f.terms {
		if t.kind == termText && (containsFold(res.Question, t.text) || containsFold(res.Answer, t.text) || containsFold(res.ID, t.text)) {
			out = append(out, t.text)
		}
	}
	return out
}

// wholeTextCmd reads the next batch of rows to search whole from the store.
func (m *Model) wholeTextCmd() tea.Cmd {
	w := m.whole
	if w == nil || w.f != m.filter || w.inFlight > 0 || len(w.want) == 0 || m.opts.Load == nil {
		return nil
	}
	batch := make([]int, 0, min(len(w.want), wholeTextBatch))
	for i := range w.want {
		batch = append(batch, i)
		delete(w.want, i)
		if len(batch) == wholeTextBatch {
			break
		}
	}
	w.inFlight = len(batch)
	load, f := m.opts.Load, w.f
	return func() tea.Msg {
		found, failed := make(map[int][]string, len(batch)), 0
		for _, i := range batch {
			res, err := load(i)
			if err != nil || res == nil {
				failed++
				found[i] = nil // searched no further
				continue
			}
			found[i] = f.wordsIn(res)
		}
		return reply(func() tea.Cmd {
			m.wholeTextIn(f, found, failed)
			return nil
		})
	}
}

// wholeTextIn records a batch searched whole for f and shows the rows it found.
func (m *Model) wholeTextIn(f *filter, found map[int][]string, failed int) {
	w := m.whole
	if w == nil || w.f != f {
		return // the filter changed meanwhile
	}
	w.inFlight = 0
	w.failed += failed
	maps.Copy(w.found, found)
	m.dirty, m.statsValid = true, false
	m.derive()
}

// wholePending is how many rows the filter has still to search whole.
func (m *Model) wholePending() int {
	if w := m.whole; w != nil && w.f == m.filter {
		return len(w.want) + w.inFlight
	}
	return 0
}

// deferredNote says, while a filter is typed, how many long samples enter
// will search whole; "" when none.
func (m *Model) deferredNote() string {
	w := m.whole
	if w == nil || w.f != m.filter || m.shownMode() != modeFilter || len(w.deferred) == 0 {
		return ""
	}
	n := len(w.deferred)
	return fmt.Sprintf("enter searches the whole text of %d long %s too", n, plural(n, "sample", "samples"))
}

// pendingNote says how much of the whole-text search is left, "" when done.
func (m *Model) pendingNote() string {
	w := m.whole
	if w == nil || w.f != m.filter {
		return ""
	}
	var notes []string
	if n := m.wholePending(); n > 0 {
		notes = append(notes, fmt.Sprintf("searching the whole text of %d more long %s", n, plural(n, "sample", "samples")))
	}
	if w.failed > 0 {
		notes = append(notes, fmt.Sprintf("%d long %s could not be read: only the first %d characters of question and answer were searched",
			w.failed, plural(w.failed, "sample", "samples"), headRunes))
	}
	return strings.Join(notes, "; ")
}
