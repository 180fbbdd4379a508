package tui

import (
	"slices"
	"testing"

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

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
