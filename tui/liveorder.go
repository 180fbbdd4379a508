package tui

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
