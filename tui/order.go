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
// The rows are visited in sample order and each keyed one becomes one
// uint64: the key as an order-preserving float32 in the high half, the
// row's position in the low half. A stable radix sort on the high half
// (radixSortHigh) then orders them in time linear in the rows, ties left
// in sample order: a cold sort of a million rows stays within a frame,
// where a comparison sort took several. float32 still separates every
// score at the three decimals shown.
func sortRows(rows []*row, key sortKey) sorted {
	if len(rows) == 0 {
		return sorted{}
	}
	lo, hi := rows[0].index, rows[0].index
	for _, r := range rows {
		lo, hi = min(lo, r.index), max(hi, r.index)
	}
	posOf := make([]int32, hi-lo+1)
	for i, r := range rows {
		posOf[r.index-lo] = int32(i) + 1
	}
	return sortIn(rows, posOf, key)
}

// sortIn is sortRows with the rows' positions in sample order given:
// posOf holds a row's position + 1 (0: no row) for each sample in turn,
// and names every row once. The table's row index is such a list, so a
// sort of the table does not build its own.
func sortIn(rows []*row, posOf []int32, key sortKey) sorted {
	out := sorted{asc: make([]int32, 0, len(rows))}
	if key.slot == slotIndex {
		for _, p := range posOf {
			if p != 0 {
				out.asc = append(out.asc, p-1)
			}
		}
		out.keyed = len(out.asc)
		out.runStart = make([]uint64, (out.keyed+63)/64)
		for i := range out.keyed {
			out.runStart[i/64] |= 1 << (i % 64) // every sample is a key of its own
		}
		return out
	}
	packed := make([]uint64, 0, len(rows))
	var missing []int32
	for _, p := range posOf {
		if p == 0 {
			continue
		}
		pos := p - 1
		r := rows[pos]
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
			missing = append(missing, pos)
			continue
		}
		packed = append(packed, uint64(orderedBits(float32(k)))<<32|uint64(pos))
	}
	packed = radixSortHigh(packed)

	out.runStart, out.keyed = make([]uint64, (len(packed)+63)/64), len(packed)
	for i, p := range packed {
		out.asc = append(out.asc, int32(uint32(p)))
		if i == 0 || packed[i-1]>>32 != p>>32 {
			out.runStart[i/64] |= 1 << (i % 64)
		}
	}
	out.asc = append(out.asc, missing...)
	return out
}

// radixSortHigh sorts v by the high 32 bits of each value, stably, and
// returns the sorted slice (v or a buffer of the same length): a least
// significant digit radix sort, radixBits at a time, that skips the digits
// every value shares (scores on a coarse scale differ in a few bits only).
func radixSortHigh(v []uint64) []uint64 {
	const (
		digits  = (32 + radixBits - 1) / radixBits
		buckets = 1 << radixBits
	)
	if len(v) < 2 {
		return v
	}
	var counts [digits][buckets]int
	for _, x := range v {
		k := x >> 32
		for d := range digits {
			counts[d][k>>(d*radixBits)&(buckets-1)]++
		}
	}
	var buf []uint64
	for d := range digits {
		c := &counts[d]
		if c[v[0]>>32>>(d*radixBits)&(buckets-1)] == len(v) {
			continue // every value has this digit: the pass would move nothing
		}
		sum := 0
		for i, n := range c {
			c[i] = sum
			sum += n
		}
		if buf == nil {
			buf = make([]uint64, len(v))
		}
		shift := 32 + d*radixBits
		for _, x := range v {
			b := x >> shift & (buckets - 1)
			buf[c[b]] = x
			c[b]++
		}
		v, buf = buf, v
	}
	return v
}

// radixBits is the digit of radixSortHigh: 11 bits make three passes over
// a 32-bit key with counts that stay in the cache.
const radixBits = 11

// sortRows is the table's rows sorted by key, walked in sample order
// through the row index when it holds every row.
func (m *Model) sortRows(key sortKey) sorted {
	if posOf, ok := m.byIndex.inOrder(); ok && len(m.rows) > 0 {
		return sortIn(m.rows, posOf, key)
	}
	return sortRows(m.rows, key)
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
