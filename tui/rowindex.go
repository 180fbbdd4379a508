package tui

// rowIndex finds a sample's row by its index: a slice for dense indexes,
// a map for one far beyond the rows seen (a hostile stream).
type rowIndex struct {
	pos    []int32 // row position + 1; 0: no row
	sparse map[int]int
}

// denseSlack is how far past the rows already indexed the slice may grow
// at once.
const denseSlack = 1 << 20

func (x *rowIndex) get(index int) (int, bool) {
	if index >= 0 && index < len(x.pos) {
		p := x.pos[index]
		return int(p) - 1, p != 0
	}
	p, ok := x.sparse[index]
	return p, ok
}

func (x *rowIndex) set(index, pos int) {
	if index >= 0 && index < len(x.pos)+denseSlack && pos < 1<<31-1 {
		if index >= len(x.pos) {
			x.pos = append(x.pos, make([]int32, index+1-len(x.pos))...)
		}
		x.pos[index] = int32(pos + 1)
		return
	}
	if x.sparse == nil {
		x.sparse = map[int]int{}
	}
	x.sparse[index] = pos
}

// reset empties the index, keeping room for n rows.
func (x *rowIndex) reset(n int) {
	x.pos, x.sparse = make([]int32, 0, n), nil
}

// inOrder is the row positions + 1 by sample index (0: no row), false
// when some are in the sparse map.
func (x *rowIndex) inOrder() ([]int32, bool) { return x.pos, len(x.sparse) == 0 }
