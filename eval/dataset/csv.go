package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval"
)

// readCSV reads a CSV file whose first row names the columns. Rows are
// counted as records with the header as row 1 (a quoted cell may span
// lines). Each row is cut from the file by lines (a row ends at a line end
// after an even number of quotes, as in any CSV encoding/csv accepts),
// holding at most the record limit, and parsed alone by encoding/csv.
func readCSV(c *collector, br *bufio.Reader, comma rune) error {
	var comma8 byte
	if comma < 0x80 {
		comma8 = byte(comma)
	}
	rows := &lines{br: br, limit: c.limit, quoted: true,
		sizer: func() sizer { return &csvSizer{comma: comma8} },
		cut:   func(held, piece []byte) []byte { return badQuote(comma8, held, piece) }}
	var src bytes.Reader
	rb := bufio.NewReader(&src) // csv.NewReader takes it as is
	cr := csv.NewReader(rb)     // reads each row alone, rb being reset to it
	cr.Comma = comma
	cr.FieldsPerRecord = -1 // checked here, to make a short row skippable
	var h *header
	row := 0
	for {
		b, start, o, err := rows.next()
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if b == nil && o == nil {
			return nil
		}
		var rec []string
		if o == nil {
			src.Reset(b)
			rb.Reset(&src)
			if rec, err = cr.Read(); err == io.EOF {
				continue // an empty line
			}
		}
		row++
		if err != nil {
			return csvError(c, row, err, start)
		}
		if h == nil {
			if o != nil {
				return &Error{File: c.name, Line: 1, Unit: unitRow, Msg: fmt.Sprintf(
					"the header row is %d bytes (%s), over the limit of %s per record — is this a CSV file? Raise the limit with --max-record-bytes",
					o.size, fmtSize(o.size), fmtSize(c.limit))}
			}
			if h, err = c.csvHeader(rec); err != nil {
				return err
			}
			continue
		}
		if err := c.csvRow(row, rec, o, h, comma); err != nil {
			return err
		}
	}
}

// csvHeader reads the header row: the column names and each field's column.
func (c *collector) csvHeader(rec []string) (*header, error) {
	names := make([]string, len(rec))
	for i, h := range rec {
		if !utf8.ValidString(h) {
			return nil, &Error{File: c.name, Line: 1, Unit: unitRow, Msg: "the header " + utf8Error([]byte(h)).Error()}
		}
		names[i] = strings.TrimSpace(h)
	}
	return c.cols.resolveHeader(c, names, true)
}

// csvRow reads one row after the header: rec, or o for a row too big.
func (c *collector) csvRow(row int, rec []string, o *oversized, h *header, comma rune) error {
	names := h.names
	switch {
	case o != nil:
		field := ""
		if o.column < len(names) {
			o.part = names[o.column]
			field = h.fieldOf(o.column)
		}
		return c.bad(row, field, c.tooBig(*o, "column"))
	case blankRow(rec):
		// Spreadsheets leave rows of empty cells at the end; they hold
		// nothing to evaluate or lose.
		return nil
	case len(rec) != len(names):
		return c.bad(row, "", fmt.Sprintf("has %d cells but the header has %d — quote cells that contain %q, quotes or line breaks",
			len(rec), len(names), string(comma)))
	}
	return c.fromCells(row, rec, h)
}

// badQuote returns the first checkPrefix bytes of a row going over the
// limit (held, then piece) if they hold a quote encoding/csv refuses (in an
// unquoted cell, or a lone one in a quoted cell): if they fail to parse
// whether or not a closing quote is added. The error ends the read.
func badQuote(comma byte, held, piece []byte) []byte {
	prefix := append(held[:len(held):len(held)], piece[:min(len(piece), max(checkPrefix-len(held), 0))]...)
	prefix = prefix[:min(len(prefix), checkPrefix)]
	fails := func(b []byte) bool {
		cr := csv.NewReader(bytes.NewReader(b))
		cr.Comma = rune(comma)
		_, err := cr.Read()
		return err != nil && err != io.EOF
	}
	if fails(prefix) && fails(append(prefix[:len(prefix):len(prefix)], '"')) {
		return prefix
	}
	return nil
}

// csvSizer measures the cells of a row over the limit as it streams by,
// to tell which column holds most of it.
type csvSizer struct {
	comma          byte
	inQuote        bool
	pos, cellStart int64
	cell, best     int
	bestSize       int64
}

func (z *csvSizer) write(p []byte) {
	for i, b := range p {
		switch {
		case b == '"':
			z.inQuote = !z.inQuote
		case b == z.comma && !z.inQuote:
			z.endCell(z.pos + int64(i))
		}
	}
	z.pos += int64(len(p))
}

// endCell ends the cell before the comma at offset at.
func (z *csvSizer) endCell(at int64) {
	if size := at - z.cellStart; size > z.bestSize {
		z.best, z.bestSize = z.cell, size
	}
	z.cell++
	z.cellStart = at + 1
}

func (z *csvSizer) finish(o *oversized) {
	z.endCell(o.size)
	o.column, o.partSize = z.best, z.bestSize
}

func blankRow(rec []string) bool {
	for _, cell := range rec {
		if strings.TrimSpace(cell) != "" {
			return false
		}
	}
	return true
}

// csvError reports a CSV syntax error in the row that starts on line start.
func csvError(c *collector, row int, err error, start int) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{File: c.name, Line: row, Unit: unitRow, Msg: fmt.Sprintf(
			"cannot parse CSV at line %d, column %d: %v — quote cells containing quotes and double the inner quotes (\"\")",
			start+pe.Line-pe.StartLine, pe.Column, pe.Err)}
	}
	return fmt.Errorf("%s: %w", c.name, err)
}

// header is the columns of a header row that our fields read.
type header struct {
	names []string
	idx   [nFields]int
	// chunks are the numbered contexts columns (检索片段1, 检索片段2, …) in
	// number order when the contexts come from those, one chunk a cell;
	// idx[fContexts] is then the first of them.
	chunks []int
}

// fieldOf names the field column i feeds, "" if none.
func (h *header) fieldOf(i int) string {
	for f := range nFields {
		if h.idx[f] == i || (f == fContexts && slices.Contains(h.chunks, i)) {
			return fieldNames[f]
		}
	}
	return ""
}

// resolveHeader picks each field's column once for the whole file. With
// numbered, contexts that no column holds whole are looked for in numbered
// columns: the contexts name followed by a number.
func (cols *columns) resolveHeader(c *collector, names []string, numbered bool) (*header, error) {
	h := &header{names: names}
	idx := &h.idx
	known := false
	for f := range nFields {
		idx[f] = -1
		for _, n := range cols.names[f] {
			if i := columnIndex(names, n); i >= 0 {
				idx[f], known = i, true
				break
			}
		}
	}
	if numbered && idx[fContexts] < 0 {
		for _, n := range cols.names[fContexts] {
			chunks, err := numberedColumns(names, n)
			if err != nil {
				return nil, &Error{File: c.name, Line: 1, Unit: unitRow, Field: "contexts", Msg: err.Error()}
			}
			if len(chunks) > 0 {
				h.chunks, idx[fContexts], known = chunks, chunks[0], true
				break
			}
		}
	}
	if !known {
		e := c.layoutError(names, "columns")
		e.Line, e.Unit = 1, unitRow
		return nil, e
	}
	for f := range nFields {
		if idx[f] < 0 {
			if raw, _ := c.defaultField(f); raw != nil && !cols.mapped[f] {
				continue // promptfoo's defaultTest gives it
			}
			if cols.mapped[f] || required(f) {
				return nil, &Error{File: c.name, Line: 1, Unit: unitRow, Field: fieldNames[f], Msg: cols.missingMsg(f, names, "column")}
			}
			continue
		}
		if f == fContexts && h.chunks != nil {
			continue // numberedColumns checked them
		}
		// A second column of the same name would be silently ignored.
		for j, n := range names {
			if j != idx[f] && strings.EqualFold(n, names[idx[f]]) {
				return nil, &Error{File: c.name, Line: 1, Unit: unitRow, Field: fieldNames[f], Msg: fmt.Sprintf(
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
	type numbered struct{ n, col int }
	var found []numbered
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
		for _, f := range found {
			if f.n == n {
				return nil, fmt.Errorf("the header has two columns numbered %d for the contexts, %q (column %d) and %q (column %d) — rename one",
					n, names[f.col], f.col+1, name, i+1)
			}
		}
		found = append(found, numbered{n, i})
	}
	slices.SortFunc(found, func(a, b numbered) int { return a.n - b.n })
	cols := make([]int, len(found))
	for i, f := range found {
		cols[i] = f.col
	}
	return cols, nil
}

func columnIndex(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	for i, n := range names {
		if strings.EqualFold(n, name) {
			return i
		}
	}
	return -1
}

func (c *collector) fromCells(row int, rec []string, h *header) error {
	s := eval.Sample{Line: row}
	for f := range nFields {
		i := h.idx[f]
		if i < 0 {
			if raw, key := c.defaultField(f); raw != nil {
				if err := setField(&s, f, key, raw); err != nil {
					return c.bad(row, fieldNames[f], fmt.Sprintf("key %q %v", key, err))
				}
			}
			continue
		}
		if f == fContexts && h.chunks != nil {
			for _, j := range h.chunks {
				if !utf8.ValidString(rec[j]) {
					return c.bad(row, fieldNames[f], fmt.Sprintf("column %q %v", h.names[j], utf8Error([]byte(rec[j]))))
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
			err = utf8Error([]byte(cell))
		} else {
			switch f {
			case fQuestion:
				s.Question = cell
			case fAnswer:
				s.Answer = cell
			case fContexts:
				s.Contexts, err = cellContexts(cell)
			case fReference:
				s.Reference, err = cellReference(cell)
			case fID:
				s.ID = strings.TrimSpace(cell)
			}
		}
		if err != nil {
			return c.bad(row, fieldNames[f], fmt.Sprintf("column %q %v", h.names[i], err))
		}
	}
	turn, refused, err := c.flatTurn(row, cellsTurn(rec, h), &s)
	switch {
	case refused:
		return err
	case turn:
		return c.addTurn(s, "")
	}
	return c.add(s, "")
}
