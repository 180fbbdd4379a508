package tui

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// sortKey is a column the table can be sorted by: the sample index, one of
// the selected metrics, the change of one in compare mode, or the diagnosis.
type sortKey struct {
	name   string
	slot   int // metric slot; -1 for index, -2 for diagnosis
	metric eval.Metric
	delta  func(r *row) (float64, bool) // a Δ column's; nil for the others
}

const (
	slotIndex = -1
	slotDiag  = -2
)

// sortKeys are the table's columns in order: the index, the scores (the
// metrics', then the criteria's, at their slots) and the diagnosis.
func sortKeys(columns []eval.Metric, slotOf func(eval.Metric) int) []sortKey {
	keys := mapped(columns, func(m eval.Metric) sortKey { return sortKey{name: string(m), slot: slotOf(m), metric: m} })
	return slices.Concat([]sortKey{{name: "index", slot: slotIndex}}, keys, []sortKey{{name: "diagnosis", slot: slotDiag}})
}

// sorted is the full order of all rows by one column, kept until the rows
// change. Only the ascending order is stored; the descending one is
// walked from it (each).
type sorted struct {
	asc []int32
	// runStart has bit i set when asc[i]'s key differs from asc[i-1]'s;
	// keyed is how many positions have a key (the rest stay last).
	runStart []uint64
	keyed    int
}

// each calls fn with the row positions in order until it returns false;
// ties keep sample order either way.
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

// sortRows orders the rows by key; rows without a value go last in both
// directions, ties keep sample order. Each keyed row becomes a uint64, the
// key as an order-preserving float32 high and its position low, radix
// sorted in time linear in the rows.
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
	return sortIn(rows, posOf, key, nil)
}

// sortIn is sortRows with posOf, each row's position + 1 (0: none) in
// sample order, and scratch (may be nil) to work in; a large table is
// sorted on several cores.
func sortIn(rows []*row, posOf []int32, key sortKey, scratch *sortScratch) sorted {
	if key.slot == slotIndex {
		out := sorted{asc: make([]int32, 0, len(rows))}
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
	if scratch == nil {
		scratch = new(sortScratch)
	}
	if len(scratch.a) < len(posOf) {
		scratch.a, scratch.b = make([]uint64, len(posOf)), make([]uint64, len(posOf))
	}
	value := sortValue(key)
	workers := 1
	if key.delta == nil && len(posOf) >= parallelSortRows {
		workers = min(runtime.GOMAXPROCS(0), maxSortWorkers)
	}

	// Each worker packs the keys of its stretch.
	type share struct {
		n       int
		missing []int32
	}
	shares := make([]share, workers)
	stretch := (len(posOf) + workers - 1) / workers
	parallel(workers, func(w int) {
		lo, hi := min(w*stretch, len(posOf)), min((w+1)*stretch, len(posOf))
		sh := &shares[w]
		out := scratch.a[lo:lo:hi]
		for _, p := range posOf[lo:hi] {
			if p == 0 {
				continue
			}
			k := value(rows[p-1])
			if math.IsNaN(k) {
				sh.missing = append(sh.missing, p-1)
				continue
			}
			out = append(out, uint64(orderedBits(float32(k)))<<32|uint64(p-1))
		}
		sh.n = len(out)
	})
	n, missing := 0, 0
	for w := range shares {
		sh := &shares[w]
		lo := min(w*stretch, len(posOf))
		copy(scratch.a[n:], scratch.a[lo:lo+sh.n])
		n += sh.n
		missing += len(sh.missing)
	}
	v := radixSortHigh(scratch.a[:n], scratch.b[:n], workers)

	out := sorted{asc: make([]int32, n, n+missing), runStart: make([]uint64, (n+63)/64), keyed: n}
	// Stretches of whole words of runStart, so no two workers write one.
	words := (len(out.runStart) + workers - 1) / workers
	parallel(workers, func(w int) {
		lo, hi := min(w*words*64, n), min((w+1)*words*64, n)
		for i := lo; i < hi; i++ {
			p := v[i]
			out.asc[i] = int32(uint32(p))
			if i == 0 || v[i-1]>>32 != p>>32 {
				out.runStart[i/64] |= 1 << (i % 64)
			}
		}
	})
	for w := range shares {
		out.asc = append(out.asc, shares[w].missing...)
	}
	return out
}

// The size from which a sort takes more than one core, and how many at most.
const (
	parallelSortRows = 1 << 16
	maxSortWorkers   = 4
)

// sortValue reads a row's value of key, NaN when it has none.
func sortValue(key sortKey) func(r *row) float64 {
	switch {
	case key.delta != nil:
		return func(r *row) float64 {
			if v, ok := key.delta(r); ok {
				return v
			}
			return math.NaN()
		}
	case key.slot == slotDiag:
		// By a row's diagnosis code: its place in report.Diagnoses.
		ranks := mapped(*diagCodes.names.Load(), func(d report.Diagnosis) float64 {
			return float64(max(slices.Index(report.Diagnoses, d), 0))
		})
		return func(r *row) float64 {
			if !r.done {
				return math.NaN()
			}
			return ranks[r.diag]
		}
	}
	return func(r *row) float64 { return r.score(key.slot) }
}

// parallel runs fn(0) to fn(n-1) at once and returns when all have.
func parallel(n int, fn func(w int)) {
	var wg sync.WaitGroup
	for w := 1; w < n; w++ {
		wg.Go(func() { fn(w) })
	}
	fn(0)
	wg.Wait()
}

// radixSortHigh sorts v stably by the high 32 bits of each value and
// returns the sorted slice (v or buf). Workers share each pass, which is
// skipped when every value has the same digit.
func radixSortHigh(v, buf []uint64, workers int) []uint64 {
	if len(v) < 2 {
		return v
	}
	buf = buf[:len(v)]
	offsets := make([][radixBuckets]int, workers)
	stretch := (len(v) + workers - 1) / workers
	part := func(w int) []uint64 { return v[min(w*stretch, len(v)):min((w+1)*stretch, len(v))] }
	for d := range radixDigits {
		shift := 32 + d*radixBits
		parallel(workers, func(w int) {
			c := &offsets[w]
			*c = [radixBuckets]int{}
			for _, x := range part(w) {
				c[x>>shift&(radixBuckets-1)]++
			}
		})
		same, first := 0, v[0]>>shift&(radixBuckets-1)
		for w := range workers {
			same += offsets[w][first]
		}
		if same == len(v) {
			continue // the pass would move nothing
		}
		sum := 0
		for b := range radixBuckets {
			for w := range workers {
				n := offsets[w][b]
				offsets[w][b] = sum
				sum += n
			}
		}
		parallel(workers, func(w int) {
			off := &offsets[w]
			for _, x := range part(w) {
				b := x >> shift & (radixBuckets - 1)
				buf[off[b]] = x
				off[b]++
			}
		})
		v, buf = buf, v
	}
	return v
}

// sortScratch is the sorts' working space, kept between them to spare
// the collector two arrays a key press.
type sortScratch struct{ a, b []uint64 }

// 11 bits make three passes over a 32-bit key with counts in the cache.
const (
	radixBits    = 11
	radixDigits  = (32 + radixBits - 1) / radixBits
	radixBuckets = 1 << radixBits
)

// sortRows is the table's rows sorted by key.
func (m *Model) sortRows(key sortKey) sorted {
	if posOf, ok := m.byIndex.inOrder(); ok && len(m.rows) > 0 {
		return sortIn(m.rows, posOf, key, &m.sortScratch)
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
	if f.empty() && !desc {
		return s.asc // shared: neither is changed in place
	}
	n := len(s.asc)
	if !f.empty() {
		n /= 4
	}
	out := make([]int32, 0, n)
	s.each(desc, func(p int32) bool {
		if f.match(rows[p], env) {
			out = append(out, p)
		}
		return true
	})
	return out
}

// A stored table's columns are sorted in a command once all its rows are
// in, so the first s finds its order made. Whatever would change the rows
// first waits for it, or calls it off if it has not started (takePresort).
type presorting struct {
	gen   int          // Model.sortGen when it was asked for
	state atomic.Int32 // presortQueued, then presortRunning or presortOff
	done  chan struct{}
	out   map[int]sorted // by sortIdx; written before done closes
}

const (
	presortQueued int32 = iota
	presortRunning
	presortOff
)

// presortedMsg says a presort ended.
type presortedMsg struct{}

// presortRows is the size from which a stored table is presorted.
const presortRows = parallelSortRows

// presortCmd starts the presort of a stored table that has just been
// read, nil for a small, live or sparse one, or one presorted already.
func (m *Model) presortCmd() tea.Cmd {
	posOf, dense := m.byIndex.inOrder()
	if m.presorts || m.live || !dense || len(m.rows) < presortRows {
		return nil
	}
	m.presorts = true
	p := &presorting{gen: m.sortGen, done: make(chan struct{}), out: map[int]sorted{}}
	m.presort = p
	rows, keys, scratch := m.rows, m.sortKeys, new(sortScratch)
	var todo []int
	for i, k := range keys {
		if _, ok := m.sorted[i]; !ok && k.slot != slotIndex && k.delta == nil {
			todo = append(todo, i)
		}
	}
	return func() tea.Msg {
		defer close(p.done)
		if !p.state.CompareAndSwap(presortQueued, presortRunning) {
			return presortedMsg{} // called off
		}
		for _, i := range todo {
			p.out[i] = sortIn(rows, posOf, keys[i], scratch)
		}
		return presortedMsg{}
	}
}

// takePresort calls off a presort not started yet, or waits for one
// running (unless !wait), and keeps its orders if they still apply.
func (m *Model) takePresort(wait bool) {
	p := m.presort
	if p == nil {
		return
	}
	switch {
	case !wait:
		select {
		case <-p.done:
		default:
			return // left to end
		}
	case p.state.CompareAndSwap(presortQueued, presortOff):
		m.presort = nil // it will not touch the rows
		return
	}
	<-p.done
	m.presort = nil
	if p.gen != m.sortGen {
		return
	}
	for i, s := range p.out {
		if _, ok := m.sorted[i]; !ok {
			setIn(&m.sorted, i, s)
		}
	}
}

// dropSorted drops the table's orders (the rows or the columns changed);
// a presort in flight is not taken.
func (m *Model) dropSorted() {
	m.sorted = nil
	m.sortGen++
}

// While a run is live, results arriving must not move the rows the user
// is looking at: in any order but sample order (or watch mode's newest
// first), the rows listed keep their places and new ones come after them,
// until the user asks for an order or the run ends.

// heldOrder is what the order shown was built for; the order is held
// between two derives with the same one.
type heldOrder struct {
	valid   bool
	sortIdx int
	keys    int // len(sortKeys): entering compare mode adds the Δ columns
	desc    bool
	filter  *filter
}

// holdOrder returns the order to show: full, or while the run is live and
// the user asked for nothing new, with the rows shown kept in place.
func (m *Model) holdOrder(full []int32) []int32 {
	now := heldOrder{valid: true, sortIdx: m.sortIdx, keys: len(m.sortKeys), desc: m.desc, filter: m.filter}
	prev := m.held
	m.held = now
	if !m.live || prev != now || (m.sortKeys[m.sortIdx].slot == slotIndex && !m.desc) || m.watchOrder() {
		return full
	}
	return keepPlaces(m.shown, full, len(m.rows))
}

// keepPlaces lists the rows of prev that full still holds, then the rows
// of full that prev did not list; rows are positions below n.
func keepPlaces(prev, full []int32, n int) []int32 {
	const inFull, listed = 1, 2
	mark := make([]uint8, n)
	for _, i := range full {
		mark[i] |= inFull
	}
	out := make([]int32, 0, len(full))
	for _, i := range prev {
		if int(i) < n && mark[i]&inFull != 0 {
			out = append(out, i)
			mark[i] |= listed
		}
	}
	for _, i := range full {
		if mark[i]&listed == 0 {
			out = append(out, i)
		}
	}
	return out
}
