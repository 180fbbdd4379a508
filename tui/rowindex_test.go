package tui

import "testing"

func TestRowIndex(t *testing.T) {
	var x rowIndex
	for _, tc := range []struct{ index, pos int }{{0, 0}, {5, 1}, {3, 2}, {1 << 40, 3}, {-7, 4}, {denseSlack * 3, 5}} {
		x.set(tc.index, tc.pos)
	}
	for _, tc := range []struct {
		index, pos int
		ok         bool
	}{{0, 0, true}, {5, 1, true}, {3, 2, true}, {1 << 40, 3, true}, {-7, 4, true}, {denseSlack * 3, 5, true}, {1, 0, false}, {4, 0, false}, {99, 0, false}} {
		if p, ok := x.get(tc.index); ok != tc.ok || (ok && p != tc.pos) {
			t.Errorf("get(%d) = %d, %v; want %d, %v", tc.index, p, ok, tc.pos, tc.ok)
		}
	}
	if len(x.pos) > 6 {
		t.Errorf("far indexes grew the slice to %d", len(x.pos))
	}
	x.reset(10)
	if _, ok := x.get(5); ok {
		t.Error("reset kept a row")
	}
	if _, ok := x.get(1 << 40); ok {
		t.Error("reset kept a sparse row")
	}
}

// A slab's last block, when mostly empty, is moved to one of its size and
// the rows pointed at the moved ones; a block more than half used stays.
func TestRowSlabTrim(t *testing.T) {
	for _, n := range []int{1, slabRows / 2, slabRows/2 + 1, slabRows + 3} {
		var s rowSlab
		var rows []*row
		for i := range n {
			r := s.alloc()
			r.index = i
			rows = append(rows, r)
		}
		before := cap(s.block)
		s.trim(rows)
		last := n % slabRows
		if last == 0 {
			last = slabRows
		}
		if wantTrim := last <= slabRows/2; wantTrim != (cap(s.block) < before) {
			t.Errorf("%d rows: block of %d after trim, %d before", n, cap(s.block), before)
		}
		for i, r := range rows {
			if r.index != i {
				t.Fatalf("%d rows: row %d is sample %d after trim", n, i, r.index)
			}
		}
		if n%slabRows != 0 && rows[n-1] != &s.block[len(s.block)-1] {
			t.Errorf("%d rows: the last row is not in the slab's block", n)
		}
	}
}
