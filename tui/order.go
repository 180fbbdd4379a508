package tui

import (
	"math"
	"slices"

	"github.com/ragscope/ragscope/eval"
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

func sortKeys(metrics []eval.Metric) []sortKey {
	keys := []sortKey{{name: "index", slot: slotIndex}}
	for _, m := range metrics {
		keys = append(keys, sortKey{name: string(m), slot: metricSlot(m), metric: m})
	}
	return append(keys, sortKey{name: "diagnosis", slot: slotDiag})
}

var diagRank = func() map[eval.Diagnosis]int {
	out := map[eval.Diagnosis]int{}
	for i, d := range eval.Diagnoses {
		out[d] = i
	}
	return out
}()

// sorted is the full order of all rows by one column, in both directions,
// kept until the rows change: cycling through the columns with s then
// costs one sort per column, and a filter only walks an existing order.
type sorted struct {
	asc, desc []int32
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
			k = float64(diagRank[r.diag])
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

	out := sorted{asc: make([]int32, 0, len(rows)), desc: make([]int32, 0, len(rows))}
	for _, p := range packed {
		out.asc = append(out.asc, posOf[uint32(p)])
	}
	// Descending walks runs of equal keys from the end, each run in
	// ascending sample order.
	for end := len(packed); end > 0; {
		start := end - 1
		for start > 0 && packed[start-1]>>32 == packed[end-1]>>32 {
			start--
		}
		for _, p := range packed[start:end] {
			out.desc = append(out.desc, posOf[uint32(p)])
		}
		end = start
	}
	for _, p := range missing {
		out.asc = append(out.asc, posOf[uint32(p)])
		out.desc = append(out.desc, posOf[uint32(p)])
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
	seq := s.asc
	if desc {
		seq = s.desc
	}
	if f.empty() {
		return slices.Clone(seq)
	}
	out := make([]int32, 0, len(seq)/4)
	for _, i := range seq {
		if f.match(rows[i], env) {
			out = append(out, i)
		}
	}
	return out
}
