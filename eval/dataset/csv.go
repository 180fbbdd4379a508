package dataset

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval"
)

// readCSV reads a CSV file whose first row names the columns. Rows are
// counted as records with the header as row 1 (a quoted cell may span lines).
func readCSV(c *collector, r io.Reader, comma rune) error {
	g := newCSVGate(c, r, comma)
	cr := csv.NewReader(g)
	cr.Comma = comma
	cr.FieldsPerRecord = -1 // checked here, to make a short row skippable
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return csvError(c, 1, err, g.shift(cr.InputOffset()))
	}
	if o, ok := g.oversize(cr.InputOffset()); ok {
		return &Error{File: c.name, Line: 1, Unit: unitRow, Msg: fmt.Sprintf(
			"the header row is %d bytes (%s), over the limit of %s per record — is this a CSV file? Raise the limit with --max-record-bytes",
			o.size, fmtSize(o.size), fmtSize(c.limit))}
	}
	names := make([]string, len(header))
	for i, h := range header {
		if !utf8.ValidString(h) {
			return &Error{File: c.name, Line: 1, Unit: unitRow, Msg: "the header " + utf8Error([]byte(h)).Error()}
		}
		names[i] = strings.TrimSpace(h)
	}
	idx, err := c.cols.resolveHeader(c, names)
	if err != nil {
		return err
	}
	row := 1
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		row++
		if err != nil {
			return csvError(c, row, err, g.shift(cr.InputOffset()))
		}
		if o, ok := g.oversize(cr.InputOffset()); ok && len(rec) == 1 && rec[0] == "-" {
			field := ""
			if o.column < len(names) {
				o.part = names[o.column]
				for f := range nFields {
					if idx[f] == o.column {
						field = fieldNames[f]
					}
				}
			}
			if err := c.bad(row, field, c.tooBig(o, "column")); err != nil {
				return err
			}
			continue
		}
		if blankRow(rec) {
			// Spreadsheets leave rows of empty cells at the end; they hold
			// nothing to evaluate or lose.
			continue
		}
		if len(rec) != len(names) {
			if err := c.bad(row, "", fmt.Sprintf("has %d cells but the header has %d — quote cells that contain %q, quotes or line breaks",
				len(rec), len(names), string(comma))); err != nil {
				return err
			}
			continue
		}
		if err := c.fromCells(row, rec, names, idx); err != nil {
			return err
		}
	}
}

func blankRow(rec []string) bool {
	for _, cell := range rec {
		if strings.TrimSpace(cell) != "" {
			return false
		}
	}
	return true
}

// csvError reports a CSV syntax error; shift is the number of lines of rows
// too big that the CSV reader did not see.
func csvError(c *collector, row int, err error, shift int) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{File: c.name, Line: row, Unit: unitRow, Msg: fmt.Sprintf(
			"cannot parse CSV at line %d, column %d: %v — quote cells containing quotes and double the inner quotes (\"\")",
			pe.Line+shift, pe.Column, pe.Err)}
	}
	return fmt.Errorf("%s: %w", c.name, err)
}

// resolveHeader picks each field's column once for the whole file.
func (cols *columns) resolveHeader(c *collector, names []string) ([nFields]int, error) {
	var idx [nFields]int
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
	if !known {
		e := c.layoutError(names, "columns")
		e.Line, e.Unit = 1, unitRow
		return idx, e
	}
	for f := range nFields {
		if idx[f] < 0 {
			if raw, _ := c.defaultField(f); raw != nil && !cols.mapped[f] {
				continue // promptfoo's defaultTest gives it
			}
			if cols.mapped[f] || required(f) {
				return idx, &Error{File: c.name, Line: 1, Unit: unitRow, Field: fieldNames[f], Msg: cols.missingMsg(f, names, "column")}
			}
			continue
		}
		// A second column of the same name would be silently ignored.
		for j, n := range names {
			if j != idx[f] && strings.EqualFold(n, names[idx[f]]) {
				return idx, &Error{File: c.name, Line: 1, Unit: unitRow, Field: fieldNames[f], Msg: fmt.Sprintf(
					"the header has two columns named %q (columns %d and %d) — rename one", names[idx[f]], idx[f]+1, j+1)}
			}
		}
	}
	return idx, nil
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

func (c *collector) fromCells(row int, rec, names []string, idx [nFields]int) error {
	s := eval.Sample{Line: row}
	for f := range nFields {
		i := idx[f]
		if i < 0 {
			if raw, key := c.defaultField(f); raw != nil {
				if err := setField(&s, f, key, raw); err != nil {
					return c.bad(row, fieldNames[f], fmt.Sprintf("key %q %v", key, err))
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
			return c.bad(row, fieldNames[f], fmt.Sprintf("column %q %v", names[i], err))
		}
	}
	return c.add(s, "")
}
