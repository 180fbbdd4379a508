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
