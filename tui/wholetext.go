package tui

import (
	tea "charm.land/bubbletea/v2"
	"fmt"

	"github.com/ragscope/ragscope/eval"
)

// wholeText is the free-text filter's search of the whole texts of rows
// that keep only their heads: in memory when the result is there, else
// read from the store in the background, a batch at a time. Each
// (needle, row) outcome is kept for the filter's life.
type wholeText struct {
	f        *filter                 // a new filter starts afresh
	found    map[string]map[int]bool // per needle, by sample index
	want     map[int]struct{}        // rows to read from the store
	inFlight int                     // rows a command is reading now
	failed   int                     // rows the store could not give
}

// wholeTextBatch is how many results one background command reads.
const wholeTextBatch = 512

// wholeTextMsg is a batch of rows searched whole by a background command.
type wholeTextMsg struct {
	f      *filter
	found  map[string]map[int]bool
	failed int
}

// matchWhole reports whether needle is in the whole texts of a cut row;
// one not in memory is queued for the store and does not match yet.
func (m *Model) matchWhole(r *row, needle string) bool {
	if !r.cut() {
		return false
	}
	w := m.whole
	if w == nil || w.f != m.filter {
		w = &wholeText{f: m.filter, found: map[string]map[int]bool{}, want: map[int]struct{}{}}
		m.whole = w
	}
	if v, ok := w.found[needle][r.index]; ok {
		return v
	}
	res := m.full.get(r.index)
	if res == nil && !r.done {
		res = m.extras.known[r.index]
	}
	if res == nil {
		// Read for a filter put in force, not for every prefix typed.
		if m.opts.Load != nil && r.done && m.shownMode() != modeFilter {
			w.want[r.index] = struct{}{}
		}
		return false
	}
	v := resultHas(res, needle)
	w.record(needle, r.index, v)
	return v
}

func (w *wholeText) record(needle string, index int, v bool) {
	if w.found[needle] == nil {
		w.found[needle] = map[int]bool{}
	}
	w.found[needle][index] = v
}

// resultHas is matchText on a sample's whole texts.
func resultHas(res *eval.Result, needle string) bool {
	return containsFold(res.Question, needle) || containsFold(res.Answer, needle) || containsFold(res.ID, needle)
}

// wholeTextCmd reads the next batch of rows to search whole from the store.
func (m *Model) wholeTextCmd() tea.Cmd {
	w := m.whole
	if w == nil || w.f != m.filter || w.inFlight > 0 || len(w.want) == 0 || m.opts.Load == nil {
		return nil
	}
	var needles []string
	for _, t := range m.filter.terms {
		if t.kind == termText {
			needles = append(needles, t.text)
		}
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
		msg := wholeTextMsg{f: f, found: map[string]map[int]bool{}}
		for _, n := range needles {
			msg.found[n] = map[int]bool{}
		}
		for _, i := range batch {
			res, err := load(i)
			if err != nil || res == nil {
				msg.failed++
				for _, n := range needles {
					msg.found[n][i] = false
				}
				continue
			}
			for _, n := range needles {
				msg.found[n][i] = resultHas(res, n)
			}
		}
		return msg
	}
}

// wholeTextIn records a batch searched whole and shows the rows it found.
func (m *Model) wholeTextIn(msg wholeTextMsg) {
	w := m.whole
	if w == nil || w.f != msg.f {
		return // the filter changed meanwhile
	}
	w.inFlight = 0
	w.failed += msg.failed
	for n, rows := range msg.found {
		for i, v := range rows {
			w.record(n, i, v)
		}
	}
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

// pendingNote says how much of the whole-text search is left, "" when done.
func (m *Model) pendingNote() string {
	w := m.whole
	if w == nil || w.f != m.filter {
		return ""
	}
	note := ""
	if n := m.wholePending(); n > 0 {
		note = fmt.Sprintf("searching the whole text of %d more long %s", n, plural(n, "sample", "samples"))
	}
	if w.failed > 0 {
		if note != "" {
			note += "; "
		}
		note += fmt.Sprintf("%d long %s could not be read: only the first %d characters of question and answer were searched",
			w.failed, plural(w.failed, "sample", "samples"), headRunes)
	}
	return note
}
