package tui

// While a run is live, results arriving must not move the rows the user is
// looking at: a table that reshuffles four times a second cannot be read,
// and over SSH every moved row is redrawn in full. The rule:
//
//   - In sample order (the default, ascending), a new sample takes its
//     place by index, which is at the end: the runner starts samples in
//     order. Results fill their rows in place. Nothing needs holding.
//   - In any other order (a score, the diagnosis, descending), the rows
//     already listed keep their places while results stream in; rows that
//     come into the list (a new sample, a result that now matches the
//     filter) are added after them, in the order among themselves. A row
//     that stops matching the filter leaves, as a filter says it must.
//   - The full order comes back when the user asks for an order (s, S, a
//     filter applied or cleared, compare mode) and when the run ends.
//   - Watch mode (a watcher's live log, watch.go) is the exception: in
//     its own order, newest first, new rows go to the top and the rows
//     below move down; in any order the user picks, the rule above holds.
//
// The cursor stays on its sample and the window where it was (derive and
// clampTable), so a user who has not moved sees the same rows in the same
// lines, and the cell-diffing renderer sends only the cells that changed.

// heldOrder is what the order shown was built for. Two derives with the
// same heldOrder differ only by the rows that changed, which is when the
// order is held.
type heldOrder struct {
	valid   bool
	sortIdx int
	keys    int // len(sortKeys): entering compare mode adds the Δ columns
	desc    bool
	filter  *filter
}

// holdOrder returns the order to show: full, the sorted and filtered
// order, or while the run is live and the user asked for nothing new,
// full with the rows already shown kept in their places.
func (m *Model) holdOrder(full []int32) []int32 {
	now := heldOrder{valid: true, sortIdx: m.sortIdx, keys: len(m.sortKeys), desc: m.desc, filter: m.filter}
	prev := m.held
	m.held = now
	// Watch mode's newest-first order is the other order nothing needs
	// holding in: new rows belong at the top (watch.go).
	if !m.live || prev != now || (m.sortKeys[m.sortIdx].slot == slotIndex && !m.desc) || m.watchOrder() {
		return full
	}
	return keepPlaces(m.shown, full, len(m.rows))
}

// keepPlaces lists the rows of prev that full still holds, in prev's
// order, then the rows of full that prev did not list, in full's order.
// Rows are positions in m.rows, below n.
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
