package sheet

import (
	"reflect"
	"testing"
)

// TestMergeFill: each merged range gives its top-left value to every cell
// it covers, in any order of the ranges, and to nothing past it.
func TestMergeFill(t *testing.T) {
	merges := []mergedRange{{col1: 2, row1: 3, col2: 3, row2: 3}, {col1: 1, row1: 2, col2: 1, row2: 4}, {col1: 1, row1: 1, col2: 3, row2: 1}}
	rows := [][]string{2: {"a", "b", "c"}, 3: {"", "x"}, 4: {}, 5: {"", "", "z"}}
	want := [][]string{2: {"a", "b", "c"}, 3: {"a", "x", "x"}, 4: {"a", "", ""}, 5: {"", "", "z"}}
	fill := newMergeFill(merges)
	for row := 2; row <= 5; row++ {
		rec := make([]string, 3)
		copy(rec, rows[row])
		fill.row(rec, rows[row], row)
		if !reflect.DeepEqual(rec, want[row]) {
			t.Errorf("row %d: %q, want %q", row, rec, want[row])
		}
	}
}
