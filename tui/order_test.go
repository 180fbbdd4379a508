package tui

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

func TestSortRowsOrdersNegativeAndMissingScores(t *testing.T) {
	tests := []struct {
		name     string
		scores   []float64 // NaN-free; -9 means "not scored"
		wantAsc  []int
		wantDesc []int
	}{
		{"negative cosines first", []float64{0.2, -0.3, 0, -0.1}, []int{1, 3, 2, 0}, []int{0, 2, 3, 1}},
		{"ties keep sample order both ways", []float64{0.5, 0.5, 0.1, 0.5}, []int{2, 0, 1, 3}, []int{0, 1, 3, 2}},
		{"unscored last both ways", []float64{-9, 0.9, -9, 0.1}, []int{3, 1, 0, 2}, []int{1, 3, 0, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows []*row
			// Arrival order differs from sample order, as in a live run.
			for i := len(tt.scores) - 1; i >= 0; i-- {
				res := &eval.Result{Index: i + 1000, Status: map[eval.Metric]eval.Status{eval.AnswerRelevancy: eval.StatusJudgeError}}
				if v := tt.scores[i]; v != -9 {
					res.Scores = map[eval.Metric]*float64{eval.AnswerRelevancy: score(v)}
					res.Status[eval.AnswerRelevancy] = eval.StatusOK
				}
				rows = append(rows, newRow(res.Index, res, report.Levels{}))
			}
			s := sortRows(rows, sortKey{slot: metricSlot(eval.AnswerRelevancy)})
			samples := func(pos []int32) []int {
				var out []int
				for _, p := range pos {
					out = append(out, rows[p].index-1000)
				}
				return out
			}
			if got := samples(order(s, rows, nil, matchEnv{}, false)); !slices.Equal(got, tt.wantAsc) {
				t.Errorf("ascending %v, want %v", got, tt.wantAsc)
			}
			if got := samples(order(s, rows, nil, matchEnv{}, true)); !slices.Equal(got, tt.wantDesc) {
				t.Errorf("descending %v, want %v", got, tt.wantDesc)
			}
		})
	}
}

// TestSortedRunsAcrossWords checks the descending walk over runs of equal
// keys that cross the 64-position words of the run bitset, against a
// stable sort by hand.
func TestSortedRunsAcrossWords(t *testing.T) {
	var rows []*row
	for i := 0; i < 300; i++ {
		res := &eval.Result{Index: i, Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}}
		if i%7 == 3 {
			res.Status[eval.Faithfulness] = eval.StatusJudgeError
		} else {
			res.Scores = map[eval.Metric]*float64{eval.Faithfulness: score(float64(i*i%5) / 4)}
		}
		rows = append(rows, newRow(i, res, report.Levels{}))
	}
	key := func(i int) (float64, bool) { return rows[i].scored(eval.Faithfulness) }
	var keyed, missing []int
	for i := range rows {
		if _, ok := key(i); ok {
			keyed = append(keyed, i)
		} else {
			missing = append(missing, i)
		}
	}
	asc := slices.Clone(keyed)
	slices.SortStableFunc(asc, func(a, b int) int { ka, _ := key(a); kb, _ := key(b); return cmpFloat(ka, kb) })
	desc := slices.Clone(keyed)
	slices.SortStableFunc(desc, func(a, b int) int { ka, _ := key(a); kb, _ := key(b); return cmpFloat(kb, ka) })
	s := sortRows(rows, sortKey{slot: metricSlot(eval.Faithfulness)})
	for _, tc := range []struct {
		desc bool
		want []int
	}{{false, append(asc, missing...)}, {true, append(desc, missing...)}} {
		var got []int
		for _, p := range order(s, rows, nil, matchEnv{}, tc.desc) {
			got = append(got, int(p))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("desc=%v:\n got %v\nwant %v", tc.desc, got, tc.want)
		}
	}
}

// diagRank is each diagnosis's place in report.Diagnoses, the order the
// diagnosis column sorts by.
var diagRank = func() map[report.Diagnosis]int {
	out := map[report.Diagnosis]int{}
	for i, d := range report.Diagnoses {
		out[d] = i
	}
	return out
}()

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestRadixSortHighIsStable checks the radix sort against a stable sort
// by the high half, on keys that differ in every digit, in a few digits
// (the passes skipped) and in none, by one worker and by several.
func TestRadixSortHighIsStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		key  func(i int) uint32
	}{
		{"random keys", func(int) uint32 { return rng.Uint32() }},
		{"few distinct keys", func(int) uint32 { return orderedBits(float32(rng.IntN(5)) / 4) }},
		{"one digit differs", func(int) uint32 { return 0xABC00000 | uint32(rng.IntN(7))<<11 }},
		{"one key", func(int) uint32 { return 42 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{0, 1, 2, 1000, 70000} {
				for _, workers := range []int{1, 2, 3} {
					v := make([]uint64, n)
					for i := range v {
						v[i] = uint64(tc.key(i))<<32 | uint64(i)
					}
					want := slices.Clone(v)
					slices.SortStableFunc(want, func(a, b uint64) int { return cmp.Compare(a>>32, b>>32) })
					if got := radixSortHigh(v, make([]uint64, len(v)), workers); !slices.Equal(got, want) {
						t.Fatalf("n=%d, %d workers: the radix sort differs from a stable sort", n, workers)
					}
				}
			}
		})
	}
}

// TestSortKeyOrdersLikeAStableSort presses s through Update on a table whose
// rows came in out of sample order, with ties, negative scores, failed
// (unscored) samples and a missing sample, and checks each column's order,
// both ways, against a stable sort of the samples by that column. The
// table is large enough to be sorted on several cores.
func TestSortKeyOrdersLikeAStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var results []*eval.Result
	for _, i := range rng.Perm(parallelSortRows + 5000) {
		if i == 1234 {
			continue // a sample with no row
		}
		res := &eval.Result{Index: i, ID: fmt.Sprintf("s%d", i), Question: "q", Answer: "a",
			Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{}}
		for j, mt := range eval.DefaultMetrics {
			switch {
			case (i+j)%11 == 0:
				res.Status[mt] = eval.StatusJudgeError
			case j == 1:
				res.Scores[mt], res.Status[mt] = score(rng.Float64()*2-1), eval.StatusOK // a cosine, ties unlikely
			default:
				res.Scores[mt], res.Status[mt] = score(float64(rng.IntN(5))/4), eval.StatusOK // many ties
			}
		}
		results = append(results, res)
	}
	m := New(Options{Dataset: "d.jsonl", Results: results, Started: fixedStart})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	samples := func() []int {
		var out []int
		for _, p := range m.shown {
			out = append(out, m.rows[p].index)
		}
		return out
	}
	for range len(m.sortKeys) {
		m.Update(keyMsg("s"))
		k := m.sortKeys[m.sortIdx]
		val := func(r *row) (float64, bool) {
			switch {
			case k.slot == slotIndex:
				return float64(r.index), true
			case k.slot == slotDiag:
				return float64(diagRank[r.diagnosis()]), r.done
			}
			v := r.score(k.slot)
			return v, !math.IsNaN(v)
		}
		for _, desc := range []bool{false, true} {
			if m.desc != desc {
				m.Update(keyMsg("S"))
			}
			rows := slices.Clone(m.rows)
			slices.SortStableFunc(rows, func(a, b *row) int { return a.index - b.index })
			slices.SortStableFunc(rows, func(a, b *row) int {
				va, oka := val(a)
				vb, okb := val(b)
				switch {
				case !oka || !okb:
					return cmp.Compare(b2i(!oka), b2i(!okb)) // unscored last
				case desc:
					return cmpFloat(float64(float32(vb)), float64(float32(va)))
				}
				return cmpFloat(float64(float32(va)), float64(float32(vb)))
			})
			var want []int
			for _, r := range rows {
				want = append(want, r.index)
			}
			if got := samples(); !slices.Equal(got, want) {
				t.Errorf("sorted by %s, desc=%v: the order differs from a stable sort", k.name, desc)
			}
		}
	}
}
