package tui

import (
	"math"
	"slices"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// sortKey is a column the table can be sorted by: the sample index, one of
// the selected metrics, the change of one in compare mode, or the diagnosis.
type sortKey struct {
	name   string
	slot   int // metric slot; -1 for index, -2 for diagnosis
	metric eval.Metric
	// delta reads a row's change of metric (a Δ column); nil for the
	// other columns, whose values the row holds.
	delta func(r *row) (float64, bool)
}

const (
	slotIndex = -1
	slotDiag  = -2
)

// sortKeys are the table's columns in order: the index, the scores (the
// metrics', then the criteria's, at their slots) and the diagnosis.
func sortKeys(columns []eval.Metric, slotOf func(eval.Metric) int) []sortKey {
	keys := []sortKey{{name: "index", slot: slotIndex}}
	for _, m := range columns {
		keys = append(keys, sortKey{name: string(m), slot: slotOf(m), metric: m})
	}
	return append(keys, sortKey{name: "diagnosis", slot: slotDiag})
}

var diagRank = func() map[report.Diagnosis]int {
	out := map[report.Diagnosis]int{}
	for i, d := range report.Diagnoses {
		out[d] = i
	}
	return out
}()

// sorted is the full order of all rows by one column, kept until the rows
// change: cycling through the columns with s then costs one sort per
// column, and a filter only walks an existing order. Only the ascending
// order is stored, with a bit per position marking where a run of equal
// keys starts; the descending order is walked from it (see each). At a
// million rows a column's order is 4 MB, not 8.
type sorted struct {
	asc []int32
	// runStart has bit i set when asc[i] has a different key than
	// asc[i-1]; keyed is how many positions have a key (the rest, rows
	// without a value, stay last in both directions).
	runStart []uint64
	keyed    int
}

// each calls fn with the row positions in order, descending or not, until
// it returns false. Descending walks runs of equal keys from the end, each
// run in ascending sample order, so ties keep sample order either way.
func (s sorted) each(desc bool, fn func(pos int32) bool) {
	if !desc {
		for _, p := range s.asc {
			if !fn(p) {
				return
			}
		}
		return
	}
	for end := s.keyed; end > 0; {
		start := end - 1
		for start > 0 && s.runStart[start/64]&(1<<(start%64)) == 0 {
			start--
		}
		for _, p := range s.asc[start:end] {
			if !fn(p) {
				return
			}
		}
		end = start
	}
	for _, p := range s.asc[s.keyed:] {
		if !fn(p) {
			return
		}
	}
}

// sortRows orders the rows by key. Rows without a value for the column
// (not scored, still running) go last in both directions, because they are
// not what a sort by score looks for; ties keep sample order either way.
//
// Each row becomes one uint64: the key as an order-preserving float32 in
// the high half, the sample index in the low half. Sorting plain integers
// needs no comparator, which keeps a cold 100,000-row sort within a frame.
// float32 still separates every score at the three decimals shown.
func sortRows(rows []*row, key sortKey) sorted {
	if len(rows) == 0 {
		return sorted{}
	}
	lo, hi := rows[0].index, rows[0].index
	for _, r := range rows {
		lo, hi = min(lo, r.index), max(hi, r.index)
	}
	posOf := make([]int32, hi-lo+1)
	packed := make([]uint64, 0, len(rows))
	var missing []uint64
	for i, r := range rows {
		rel := uint32(r.index - lo)
		posOf[rel] = int32(i)
		if key.slot == slotIndex {
			packed = append(packed, uint64(rel)<<32|uint64(rel))
			continue
		}
		var k float64
		switch {
		case key.delta != nil:
			k = math.NaN()
			if v, ok := key.delta(r); ok {
				k = v
			}
		case key.slot == slotDiag && r.done:
			k = float64(diagRank[r.diagnosis()])
		case key.slot == slotDiag:
			k = math.NaN()
		default:
			k = r.score(key.slot)
		}
		if math.IsNaN(k) {
			missing = append(missing, uint64(rel))
			continue
		}
		packed = append(packed, uint64(orderedBits(float32(k)))<<32|uint64(rel))
	}
	slices.Sort(packed)
	slices.Sort(missing)

	out := sorted{asc: make([]int32, 0, len(rows)), runStart: make([]uint64, (len(packed)+63)/64), keyed: len(packed)}
	for i, p := range packed {
		out.asc = append(out.asc, posOf[uint32(p)])
		if i == 0 || packed[i-1]>>32 != p>>32 {
			out.runStart[i/64] |= 1 << (i % 64)
		}
	}
	for _, p := range missing {
		out.asc = append(out.asc, posOf[uint32(p)])
	}
	return out
}

// orderedBits maps a float32 to a uint32 with the same order, negative
// numbers included (a cosine can be below zero).
func orderedBits(f float32) uint32 {
	b := math.Float32bits(f)
	if b&0x8000_0000 != 0 {
		return ^b
	}
	return b | 0x8000_0000
}

// order is the rows shown: the sorted order filtered.
func order(s sorted, rows []*row, f *filter, env matchEnv, desc bool) []int32 {
	if f.empty() {
		if !desc {
			return slices.Clone(s.asc)
		}
		out := make([]int32, 0, len(s.asc))
		s.each(true, func(p int32) bool { out = append(out, p); return true })
		return out
	}
	out := make([]int32, 0, len(s.asc)/4)
	s.each(desc, func(p int32) bool {
		if f.match(rows[p], env) {
			out = append(out, p)
		}
		return true
	})
	return out
}
