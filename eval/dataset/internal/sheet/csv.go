// Package sheet reads the datasets laid out as a table with a header row,
// CSV files and Excel worksheets, into a read.Collector.
package sheet

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

// ReadCSV reads a CSV file whose first row, row 1, names the columns. Each
// row is cut from the file at a line end after an even number of quotes,
// holding at most the record limit, and parsed alone by encoding/csv.
func ReadCSV(c *read.Collector, br *bufio.Reader, comma rune) error {
	var comma8 byte
	if comma < 0x80 {
		comma8 = byte(comma)
	}
	rows := &read.LineReader{BR: br, Limit: c.Limit, Quoted: true,
		Sizer: func() read.Sizer { return &csvSizer{comma: comma8} },
		Cut:   func(held, piece []byte) []byte { return badQuote(comma8, held, piece) }}
	var src bytes.Reader
	rb := bufio.NewReader(&src) // csv.NewReader takes it as is
	cr := csv.NewReader(rb)     // reads each row alone, rb being reset to it
	cr.Comma = comma
	cr.FieldsPerRecord = -1 // checked here, to make a short row skippable
	var h *read.Header
	row := 0
	for {
		b, start, o, err := rows.Next()
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
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
				return &read.Error{File: c.Name, Line: 1, Unit: read.UnitRow, Msg: fmt.Sprintf(
					"the header row is %d bytes (%s), over the limit of %s per record — is this a CSV file? Raise the limit with --max-record-bytes",
					o.Size, read.FmtSize(o.Size), read.FmtSize(c.Limit))}
			}
			if h, err = csvHeader(c, rec); err != nil {
				return err
			}
			continue
		}
		if err := csvRow(c, row, rec, o, h, comma); err != nil {
			return err
		}
	}
}

// csvHeader reads the header row: the column names and each field's column.
func csvHeader(c *read.Collector, rec []string) (*read.Header, error) {
	names := make([]string, len(rec))
	for i, h := range rec {
		if !utf8.ValidString(h) {
			return nil, &read.Error{File: c.Name, Line: 1, Unit: read.UnitRow, Msg: "the header " + read.UTF8Error([]byte(h)).Error()}
		}
		names[i] = strings.TrimSpace(h)
	}
	return c.Cols.ResolveHeader(c, names, true)
}

// csvRow reads one row after the header: rec, or o for a row too big.
func csvRow(c *read.Collector, row int, rec []string, o *read.Oversized, h *read.Header, comma rune) error {
	names := h.Names
	switch {
	case o != nil:
		field := ""
		if o.Column < len(names) {
			o.Part = names[o.Column]
			field = h.FieldOf(o.Column)
		}
		return c.Bad(row, field, c.TooBig(*o, "column"))
	case blankRow(rec): // spreadsheets leave rows of empty cells at the end
		return nil
	case len(rec) != len(names):
		return c.Bad(row, "", fmt.Sprintf("has %d cells but the header has %d — quote cells that contain %q, quotes or line breaks",
			len(rec), len(names), string(comma)))
	}
	return c.FromCells(row, rec, h)
}

// badQuote returns the first read.CheckPrefix bytes of a row going over the
// limit (held, then piece) if they hold a quote encoding/csv refuses: if
// they fail to parse with or without a closing quote added.
func badQuote(comma byte, held, piece []byte) []byte {
	prefix := read.Prefix(held, piece)
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

func (z *csvSizer) Write(p []byte) {
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

func (z *csvSizer) Finish(o *read.Oversized) {
	z.endCell(o.Size)
	o.Column, o.PartSize = z.best, z.bestSize
}

func blankRow(rec []string) bool {
	return !slices.ContainsFunc(rec, func(cell string) bool { return strings.TrimSpace(cell) != "" })
}

// csvError reports a CSV syntax error in the row that starts on line start.
func csvError(c *read.Collector, row int, err error, start int) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &read.Error{File: c.Name, Line: row, Unit: read.UnitRow, Msg: fmt.Sprintf(
			"cannot parse CSV at line %d, column %d: %v — quote cells containing quotes and double the inner quotes (\"\")",
			start+pe.Line-pe.StartLine, pe.Column, pe.Err)}
	}
	return fmt.Errorf("%s: %w", c.Name, err)
}
