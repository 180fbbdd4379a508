package tui

import (
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
)

// storedResults are n samples of a stored run, every seventh missing when
// gaps is set: scored, failed with a message, in conversations, with calls
// the header counts.
func storedResults(n int, gaps bool) []*eval.Result {
	var out []*eval.Result
	for i := range n {
		if gaps && i%7 == 3 {
			continue
		}
		r := benchResultOf(i, eval.DefaultMetrics)
		if i%97 == 0 {
			r.Errors = map[eval.Metric]string{eval.Faithfulness: fmt.Sprintf("judge said no to %d", i%3)}
		}
		if i%5 == 0 {
			r.ConversationID, r.Turn = fmt.Sprintf("c%d", i/50), i%50/5
		}
		r.Calls = []eval.CallRecord{{Task: "statements", Tokens: eval.Usage{PromptTokens: i % 11, CompletionTokens: 3}, Retries: i % 2},
			{Cached: i%3 == 0}, {Error: "timeout", Cancelled: i%4 == 0}}
		out = append(out, r)
	}
	return out
}

// summariesOf serves results as Options.Summaries does: from sample index
// from on, at most limit, each through one value it then overwrites, its
// id, question and answer lent from one buffer it then overwrites, so a
// row that kept anything of it would change after the fact.
func summariesOf(results []*eval.Result) func(from, limit int, fn func(*eval.Result) error) (int, error) {
	return func(from, limit int, fn func(*eval.Result) error) (int, error) {
		scratch := &eval.Result{Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{}}
		scores := make([]float64, eval.NumMetrics)
		var texts [3][]byte
		n := 0
		for _, r := range results {
			if r.Index < from {
				continue
			}
			if n == limit {
				return r.Index, nil
			}
			n++
			s, st := scratch.Scores, scratch.Status
			clear(s)
			clear(st)
			*scratch = eval.Result{Index: r.Index, Scores: s, Status: st,
				Errors: maps.Clone(r.Errors), ConversationID: r.ConversationID, Turn: r.Turn, Calls: r.Calls}
			for i, f := range []*string{&scratch.ID, &scratch.Question, &scratch.Answer} {
				*f = lendFrom(&texts[i], []string{r.ID, r.Question, r.Answer}[i])
			}
			for j, m := range slices.Sorted(maps.Keys(r.Scores)) {
				if v := r.Scores[m]; v != nil {
					scores[j] = *v
					s[m] = &scores[j]
				} else {
					s[m] = nil
				}
			}
			maps.Copy(st, r.Status)
			if err := fn(scratch); err != nil {
				return -1, err
			}
			for _, b := range texts {
				for i := range b {
					b[i] = '#'
				}
			}
		}
		for i := range scores {
			scores[i] = -42
		}
		for m := range scratch.Status {
			scratch.Status[m] = "overwritten"
		}
		return -1, nil
	}
}

// lendFrom is s in buf, as a string lent for as long as buf is not
// written again.
func lendFrom(buf *[]byte, s string) string {
	if s == "" {
		return ""
	}
	*buf = append((*buf)[:0], s...)
	return unsafe.String(unsafe.SliceData(*buf), len(*buf))
}

// A stored run read as summaries, pages at a time, makes the same
// table as one read whole a page at a time through upsert: the rows, the
// failure messages, the conversations, the counts and the screen. With
// gaps in the samples the second page of a read starts inside the first
// and is read again; without, the pages of a read join.
func TestSummariesFillTheTableAsWholeResultsDo(t *testing.T) {
	for _, tc := range []struct {
		gaps, short bool
	}{{false, false}, {true, false}, {false, true}} {
		gaps := tc.gaps
		t.Run(fmt.Sprintf("gaps %v, short pages %v", gaps, tc.short), func(t *testing.T) {
			results := storedResults(3*storedPage+100, gaps)
			// A store may give fewer than asked (a holder gives 512):
			// then the pages after the first of a read are read again.
			st := &storeOf{results: results, per: 1000}
			load := func(i int) (*eval.Result, error) { return nil, nil }

			whole := newTestModel(t, Options{Dataset: "d.jsonl", Started: fixedStart, Results: results}, 120, 40)
			opts := Options{Dataset: "d.jsonl", Started: fixedStart, Summaries: summariesOf(results), Load: load}
			if tc.short {
				opts.Summaries = st.summaries
			}
			m := newTestModel(t, opts, 120, 40)
			pages := 0
			for cmd := m.readPage(0); cmd != nil; {
				pages++
				msg := cmd().(storedPageMsg)
				cmd = m.storedPageIn(msg)
				if !m.reading {
					break
				}
				cmd = m.readPage(msg.next)
			}
			m.derive()
			if len(m.rows) != len(results) || m.reading {
				t.Fatalf("%d rows after %d reads, want %d", len(m.rows), pages, len(results))
			}
			// The first read is of one page, which tells how many the
			// store gives; the others read pages spaced by it, joined.
			workers, per := min(runtime.GOMAXPROCS(0), maxPagesAtOnce), storedPage
			if tc.short {
				per = st.per
			}
			at := workers * per
			want := 1 + (len(results)-per+at-1)/at
			if !gaps && pages != want {
				t.Errorf("%d reads of %d results, want %d", pages, at, want)
			}
			// Rows as text: a score's NaN is not equal to itself.
			byIndex := func(m *Model) []string {
				var out []string
				for _, r := range slices.SortedFunc(slices.Values(m.rows), func(a, b *row) int { return a.index - b.index }) {
					if r.more != nil {
						t.Fatal("a default run's row has the other metrics' block")
					}
					out = append(out, fmt.Sprintf("%+v", *r))
				}
				return out
			}
			got, wantRows := byIndex(m), byIndex(whole)
			for i := range wantRows {
				if got[i] != wantRows[i] {
					t.Fatalf("row %d:\n%s\nwant\n%s", i, got[i], wantRows[i])
				}
			}
			if !reflect.DeepEqual(m.extras.errs, whole.extras.errs) {
				t.Errorf("failure messages differ: %d rows have them, want %d", len(m.extras.errs), len(whole.extras.errs))
			}
			if !reflect.DeepEqual(m.convs, whole.convs) {
				t.Errorf("conversations differ")
			}
			if m.progress != whole.progress {
				t.Errorf("counts %+v, want %+v", m.progress, whole.progress)
			}
			if got, want := screenText(m), screenText(whole); got != want {
				t.Errorf("screen:\n%s\nwant:\n%s", got, want)
			}
			if n := len(m.full.pinned) + len(m.full.recent); n != 0 {
				t.Errorf("%d results kept: a summary is not a result", n)
			}
		})
	}
}

// Once a large stored table is read, its score columns are sorted in a
// command: s then finds each order made, the same order a sort on the
// key press gives. A presort still queued when something must change the
// rows is called off, and one whose table changed meanwhile is not taken.
func TestPresortSortsTheColumnsOnceTheTableIsRead(t *testing.T) {
	results := storedResults(presortRows+100, false)
	fill := func() (*Model, tea.Cmd) {
		opts := Options{Dataset: "d.jsonl", Started: fixedStart, Summaries: summariesOf(results), Load: func(int) (*eval.Result, error) { return nil, nil }}
		m := newTestModel(t, opts, 120, 40)
		var presort tea.Cmd
		for cmd := m.readPage(0); cmd != nil; {
			cmd = m.storedPageIn(cmd().(storedPageMsg))
			if !m.reading {
				presort = cmd
				break
			}
			cmd = m.readPage(len(m.rows)) // the samples have no gaps
		}
		return m, presort
	}

	m, presort := fill()
	if m.presort == nil || presort == nil {
		t.Fatal("no presort after the table was read")
	}
	run(m, presort)
	if m.presort != nil {
		t.Fatal("the presort was not taken")
	}
	for i, k := range m.sortKeys {
		if _, ok := m.sorted[i]; !ok && k.slot != slotIndex {
			t.Errorf("column %s not presorted", k.name)
		}
	}
	for i := range m.sortKeys {
		want := sortRows(m.rows, m.sortKeys[i])
		if got := m.sorted[i]; i > 0 && (!slices.Equal(got.asc, want.asc) || !slices.Equal(got.runStart, want.runStart) || got.keyed != want.keyed) {
			t.Errorf("column %s: the presorted order differs from a sort", m.sortKeys[i].name)
		}
	}

	// Queued behind a message that changes the rows: called off, and the
	// command then leaves the rows alone.
	m, presort = fill()
	m.upsert(results[0].Index, results[1])
	if m.presort != nil {
		t.Fatal("a queued presort was waited for")
	}
	run(m, presort)
	if len(m.sorted) > 1 {
		t.Fatalf("a called-off presort sorted: %d orders", len(m.sorted))
	}

	// Run, but the table's orders dropped since: not taken.
	m, presort = fill()
	p := m.presort
	m.dropSorted()
	run(m, presort)
	if p.state.Load() != presortRunning || len(m.sorted) != 0 {
		t.Fatalf("%d orders of a table since changed were taken", len(m.sorted))
	}
}
