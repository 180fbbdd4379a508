package read

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/ragscope/ragscope/eval"
)

// Header is the columns of a header row that our fields read.
type Header struct {
	Names []string
	Idx   [NFields]int
	// chunks are the numbered contexts columns (检索片段1, 检索片段2, …) in
	// number order when the contexts come from those, one chunk a cell;
	// Idx[FContexts] is then the first of them.
	chunks []int
}

// FieldOf names the field column i feeds, "" if none.
func (h *Header) FieldOf(i int) string {
	for f := range NFields {
		if h.Idx[f] == i || (f == FContexts && slices.Contains(h.chunks, i)) {
			return FieldNames[f]
		}
	}
	return ""
}

// ResolveHeader picks each field's column once for the whole file. With
// numbered, contexts that no column holds whole are looked for in numbered
// columns: the contexts name followed by a number.
func (cols *Columns) ResolveHeader(c *Collector, names []string, numbered bool) (*Header, error) {
	h := &Header{Names: names}
	idx := &h.Idx
	for f := range NFields {
		idx[f] = -1
		for _, n := range cols.Names[f] {
			if i := Index(names, n); i >= 0 {
				idx[f] = i
				break
			}
		}
	}
	if numbered && idx[FContexts] < 0 {
		for _, n := range cols.Names[FContexts] {
			chunks, err := numberedColumns(names, n)
			if err != nil {
				return nil, &Error{File: c.Name, Line: 1, Unit: UnitRow, Field: "contexts", Msg: err.Error()}
			}
			if len(chunks) > 0 {
				h.chunks, idx[FContexts] = chunks, chunks[0]
				break
			}
		}
	}
	if !slices.ContainsFunc(idx[:], func(i int) bool { return i >= 0 }) {
		e := c.layoutError(names, "columns")
		e.Line, e.Unit = 1, UnitRow
		return nil, e
	}
	for f := range NFields {
		if idx[f] < 0 {
			if raw, _ := c.defaultField(f); raw != nil && !cols.mapped[f] {
				continue // promptfoo's defaultTest gives it
			}
			if cols.mapped[f] || required(f) {
				return nil, &Error{File: c.Name, Line: 1, Unit: UnitRow, Field: FieldNames[f], Msg: cols.missingMsg(f, names, "column")}
			}
			continue
		}
		if f == FContexts && h.chunks != nil {
			continue // numberedColumns checked them
		}
		// A second column of the same name would be silently ignored.
		for j, n := range names {
			if j != idx[f] && strings.EqualFold(n, names[idx[f]]) {
				return nil, &Error{File: c.Name, Line: 1, Unit: UnitRow, Field: FieldNames[f], Msg: fmt.Sprintf(
					"the header has two columns named %q (columns %d and %d) — rename one", names[idx[f]], idx[f]+1, j+1)}
			}
		}
	}
	return h, nil
}

// numberedColumns finds the columns named base followed by a number
// (检索片段1, 检索片段2, …; case ignored) and returns them in number order;
// the numbers need not be consecutive, but one number twice is an error.
func numberedColumns(names []string, base string) ([]int, error) {
	byNumber := map[int]int{} // chunk number -> column
	for i, name := range names {
		if len(name) <= len(base) || !strings.EqualFold(name[:len(base)], base) {
			continue
		}
		digits := name[len(base):]
		if strings.Trim(digits, "0123456789") != "" {
			continue
		}
		n, err := strconv.Atoi(digits)
		if err != nil {
			continue // too long to be a chunk number
		}
		if j, dup := byNumber[n]; dup {
			return nil, fmt.Errorf("the header has two columns numbered %d for the contexts, %q (column %d) and %q (column %d) — rename one",
				n, names[j], j+1, name, i+1)
		}
		byNumber[n] = i
	}
	var cols []int
	for _, n := range slices.Sorted(maps.Keys(byNumber)) {
		cols = append(cols, byNumber[n])
	}
	return cols, nil
}

// Index finds name among names, exactly, else ignoring case; -1 if
// it is not there.
func Index(names []string, name string) int {
	if i := slices.Index(names, name); i >= 0 {
		return i
	}
	return slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, name) })
}

func (c *Collector) FromCells(row int, rec []string, h *Header) error {
	if c.FirstKeys == nil {
		c.FirstKeys, c.FirstFile = h.Names, c.Name
	}
	s := eval.Sample{Line: row}
	for f := range NFields {
		i := h.Idx[f]
		if i < 0 {
			if raw, key := c.defaultField(f); raw != nil {
				if err := setField(&s, f, key, raw); err != nil {
					return c.Bad(row, FieldNames[f], fmt.Sprintf("key %q %v", key, err))
				}
			}
			continue
		}
		if f == FContexts && h.chunks != nil {
			for _, j := range h.chunks {
				if !utf8.ValidString(rec[j]) {
					return c.Bad(row, FieldNames[f], fmt.Sprintf("column %q %v", h.Names[j], UTF8Error([]byte(rec[j]))))
				}
				if strings.TrimSpace(rec[j]) != "" {
					s.Contexts = append(s.Contexts, rec[j])
				}
			}
			continue
		}
		cell := rec[i]
		var err error
		if !utf8.ValidString(cell) {
			err = UTF8Error([]byte(cell))
		} else {
			switch f {
			case FQuestion:
				s.Question = cell
			case FAnswer:
				s.Answer = cell
			case FContexts:
				s.Contexts, err = cellContexts(cell)
			case FReference:
				s.Reference, err = cellReference(cell)
			case FID:
				s.ID = strings.TrimSpace(cell)
			}
		}
		if err != nil {
			return c.Bad(row, FieldNames[f], fmt.Sprintf("column %q %v", h.Names[i], err))
		}
	}
	idKey := ""
	if c.TestCases && h.Idx[FID] < 0 {
		// promptfoo's CSV tests keep a test's description in __description.
		for _, name := range []string{"__description", "description"} {
			if j := Index(h.Names, name); j >= 0 && utf8.ValidString(rec[j]) {
				s.ID, idKey = strings.TrimSpace(rec[j]), h.Names[j]
				break
			}
		}
	}
	return c.addFlat(row, cellsTurn(rec, h), s, idKey)
}

// cellOf names the cell of field in row line of the worksheet being read
// (B12); "" outside a workbook or for no field.
func (c *Collector) cellOf(line int, field string) string {
	if c.Sheet == "" || c.Head == nil || field == "" {
		return ""
	}
	f := fieldIndex(field)
	if f < 0 || c.Head.Idx[f] < 0 {
		return ""
	}
	name, _ := excelize.CoordinatesToCellName(c.Head.Idx[f]+1, line)
	return name
}
