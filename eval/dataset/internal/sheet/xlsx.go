package sheet

import (
	"archive/zip"
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

// A worksheet is read as a CSV file is, from its first row with the
// columns needed (a title may stand above it), rows numbered as in Excel
// and cells read as Excel shows them; a merged range reads as its top-left
// cell in every cell it covers. Rows stream from the worksheet's XML.

// ZipMagic starts a zip archive, as an Excel workbook is.
var ZipMagic = []byte("PK\x03\x04")

// xlsxInMemory is the largest worksheet or shared-string part excelize
// holds in memory; larger ones go to temporary files.
const xlsxInMemory = 4 << 20

// ReadXLSX reads the worksheet --sheet names, else the first one whose
// header has the columns our fields need.
func ReadXLSX(c *read.Collector, r io.Reader, br *bufio.Reader, want string) (err error) {
	defer func() { c.Sheet, c.Head = "", nil }()
	src, size, err := read.RandomAccess(r, br)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	// A damaged workbook must be an error naming the file, never a crash.
	defer func() {
		if p := recover(); p != nil {
			err = xlsxDamaged(c, fmt.Errorf("%v", p))
		}
	}()
	zr, err := zip.NewReader(src, size)
	if err != nil {
		return xlsxDamaged(c, err)
	}
	if wb := workbookPath(zr); zipFile(zr, wb) == nil {
		return xlsxDamaged(c, fmt.Errorf("a zip archive without %s, so not a workbook", wb))
	}
	// The system's short date (number format 14, Excel's default for a
	// date) depends on the reader's locale; ISO's reads the same in all.
	opts := excelize.Options{UnzipXMLSizeLimit: xlsxInMemory, ShortDatePattern: "yyyy-mm-dd"}
	var f *excelize.File
	if file, ok := r.(*os.File); ok {
		// By name, so that excelize reads the archive from the disk, not
		// all of it into memory as OpenReader does.
		f, err = excelize.OpenFile(file.Name(), opts)
	} else {
		f, err = excelize.OpenReader(io.NewSectionReader(src, 0, size), opts)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("a part of the workbook ends early (%w)", err)
	}
	if err != nil {
		return xlsxDamaged(c, err)
	}
	defer f.Close()
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		return xlsxDamaged(c, errors.New("it has no worksheets"))
	}
	candidates := sheets
	if want != "" {
		name, err := pickSheet(sheets, want)
		if err != nil {
			return &read.Error{File: c.Name, Msg: err.Error()}
		}
		candidates = []string{name}
	}
	var misses []string
	for _, sheet := range candidates {
		rows, row, top, err := xlsxHeader(c, f, sheet)
		if err != nil {
			if len(candidates) == 1 || !errors.As(err, new(*read.Error)) {
				return err
			}
			misses = append(misses, fmt.Sprintf("%q %s", sheet, top))
			continue
		}
		defer rows.Close()
		merges, err := mergedRanges(zr, f, sheet)
		if err != nil {
			return xlsxDamaged(c, fmt.Errorf("sheet %q: %w", sheet, err))
		}
		before := c.Count + c.SkippedCount
		if err := xlsxRows(c, rows, row, merges); err != nil {
			return err
		}
		if c.Count+c.SkippedCount == before {
			return &read.Error{File: c.Name, Sheet: sheet, Msg: fmt.Sprintf(
				"no samples — the header (row %d) has no rows under it; put one sample a row below it, or pick another sheet with --sheet", row)}
		}
		return nil
	}
	return &read.Error{File: c.Name, Msg: fmt.Sprintf("no sheet has a header row with the columns needed (question: %s; answer: %s) — the sheets hold %s; "+
		"pick the sheet with --sheet NAME or --sheet N and name its columns with --map question=<column>,answer=<column>",
		read.OrList(c.Cols.Names[read.FQuestion]), read.OrList(c.Cols.Names[read.FAnswer]), strings.Join(misses, "; "))}
}

// pickSheet finds --sheet's sheet: by name (exactly, then ignoring
// case), else by its number counting from 1.
func pickSheet(sheets []string, want string) (string, error) {
	if i := read.Index(sheets, want); i >= 0 {
		return sheets[i], nil
	}
	if n, err := strconv.Atoi(want); err == nil && n >= 1 && n <= len(sheets) {
		return sheets[n-1], nil
	}
	var have []string
	for i, s := range sheets {
		have = append(have, fmt.Sprintf("%d %q", i+1, s))
	}
	return "", fmt.Errorf("--sheet %q: the workbook has no such sheet — its sheets are %s; pass a name or a number", want, strings.Join(have, ", "))
}

// headerSearch is how many rows that are not blank are tried as the header.
const headerSearch = 10

// xlsxHeader opens a worksheet and finds its header, returning the rows
// after it and its row number; without one, top says what the first row
// holds, for a message about all sheets.
func xlsxHeader(c *read.Collector, f *excelize.File, sheet string) (rows *excelize.Rows, row int, top string, err error) {
	c.Sheet, c.Head = sheet, nil
	rows, err = f.Rows(sheet)
	if err != nil {
		return nil, 0, "", xlsxDamaged(c, fmt.Errorf("sheet %q: %w", sheet, err))
	}
	var first error // the first row's, when no row is the header
	tried := 0
	for row = 1; tried < headerSearch && rows.Next(); row++ {
		cells, err := rows.Columns()
		if err != nil {
			rows.Close()
			return nil, 0, "", xlsxDamaged(c, fmt.Errorf("sheet %q row %d: %w", sheet, row, err))
		}
		if blankRow(cells) {
			continue
		}
		tried++
		h, err := csvHeader(c, cells)
		if err == nil {
			c.Head = h
			return rows, row, "", nil
		}
		var e *read.Error
		if errors.As(err, &e) {
			e.Sheet, e.Line = sheet, row
		}
		if first == nil {
			first = err
			top = fmt.Sprintf("row %d: %s", row, read.KeyList(cells))
		}
	}
	rows.Close()
	if first != nil {
		return nil, 0, top, first
	}
	return nil, 0, "empty", &read.Error{File: c.Name, Sheet: sheet, Msg: "the sheet is empty — a header row naming the columns is needed (question, answer, …); pick another sheet with --sheet"}
}

// xlsxRows reads the rows after the header, row being the header's.
func xlsxRows(c *read.Collector, rows *excelize.Rows, row int, merges []mergedRange) error {
	h := c.Head
	width := len(h.Names)
	fill := newMergeFill(merges)
	for rows.Next() {
		row++
		cells, err := rows.Columns()
		if err != nil {
			return xlsxDamaged(c, fmt.Errorf("sheet %q row %d: %w", c.Sheet, row, err))
		}
		rec := make([]string, width)
		copy(rec, cells) // cells right of the header have no column to feed
		fill.row(rec, cells, row)
		if blankRow(rec) {
			continue
		}
		var o read.Oversized
		for i, cell := range rec {
			o.Tally(i, h.Names[i], int64(len(cell)))
		}
		if o.Size > c.Limit {
			return c.Bad(row, h.FieldOf(o.Column), c.TooBig(o, "column"))
		}
		if err := c.FromCells(row, rec, h); err != nil {
			return err
		}
	}
	if err := rows.Error(); err != nil {
		return xlsxDamaged(c, fmt.Errorf("sheet %q after row %d: %w", c.Sheet, row, err))
	}
	return nil
}

// mergedRange is a merged range of cells, 1-based and inclusive.
type mergedRange struct{ col1, row1, col2, row2 int }

// mergeFill gives every cell of a merged range its top-left cell's value,
// the only one a workbook keeps, holding only the ranges over the current
// row (active) and the others sorted by top row.
type mergeFill struct {
	pending []mergedRange
	active  []activeRange
}

type activeRange struct {
	mergedRange
	value string
}

func newMergeFill(merges []mergedRange) *mergeFill {
	slices.SortFunc(merges, func(a, b mergedRange) int { return a.row1 - b.row1 })
	return &mergeFill{pending: merges}
}

// row fills rec, the row numbered row as read into cells.
func (m *mergeFill) row(rec, cells []string, row int) {
	for len(m.pending) > 0 && m.pending[0].row1 <= row {
		r := activeRange{mergedRange: m.pending[0]}
		if r.row1 == row && r.col1 <= len(cells) {
			r.value = cells[r.col1-1]
		}
		m.active = append(m.active, r)
		m.pending = m.pending[1:]
	}
	m.active = slices.DeleteFunc(m.active, func(r activeRange) bool { return r.row2 < row })
	for _, r := range m.active {
		for col := r.col1; col <= r.col2 && col <= len(rec); col++ {
			rec[col-1] = r.value
		}
	}
}

// mergedRanges reads the merged ranges of a worksheet, which follow the
// cells in its XML: the part is read once more, its rows skipped by a byte
// search (excelize's GetMergeCells would load the whole sheet).
func mergedRanges(zr *zip.Reader, f *excelize.File, sheet string) ([]mergedRange, error) {
	part, err := sheetPart(zr, f, sheet)
	if err != nil {
		return nil, err
	}
	rc, err := openPart(zr, part)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 64<<10)
	for {
		if _, err := br.ReadSlice('<'); err == io.EOF {
			return nil, nil
		} else if err != nil && err != bufio.ErrBufferFull {
			return nil, err
		}
		tag, _ := br.Peek(64)
		if i := strings.IndexAny(string(tag), " \t\r\n/>"); i >= 0 {
			tag = tag[:i]
		}
		if _, local, _ := strings.Cut(string(tag), ":"); local == "mergeCells" || string(tag) == "mergeCells" {
			break
		}
	}
	var merges struct {
		Cells []struct {
			Ref string `xml:"ref,attr"`
		} `xml:"mergeCell"`
	}
	if err := xml.NewDecoder(io.MultiReader(strings.NewReader("<"), br)).Decode(&merges); err != nil {
		return nil, err
	}
	var out []mergedRange
	for _, cell := range merges.Cells {
		from, to, ok := strings.Cut(cell.Ref, ":")
		if !ok {
			continue // one cell: nothing to fill
		}
		var m mergedRange
		var err1, err2 error
		m.col1, m.row1, err1 = excelize.CellNameToCoordinates(from)
		m.col2, m.row2, err2 = excelize.CellNameToCoordinates(to)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("merged range %q: %w", cell.Ref, err)
		}
		m.col1, m.col2 = min(m.col1, m.col2), max(m.col1, m.col2)
		m.row1, m.row2 = min(m.row1, m.row2), max(m.row1, m.row2)
		out = append(out, m)
	}
	return out, nil
}

// zipRels are the relationships of a part of the archive.
type zipRels struct {
	Rel []struct {
		ID     string `xml:"Id,attr"`
		Type   string `xml:"Type,attr"`
		Target string `xml:"Target,attr"`
	} `xml:"Relationship"`
}

// workbookPath is where the archive's relationships say the workbook is,
// by default where Excel puts it.
func workbookPath(zr *zip.Reader) string {
	var rels zipRels
	if err := readZipXML(zr, "_rels/.rels", &rels); err == nil {
		for _, r := range rels.Rel {
			if strings.HasSuffix(r.Type, "/officeDocument") {
				return strings.TrimPrefix(r.Target, "/")
			}
		}
	}
	return "xl/workbook.xml"
}

// sheetPart finds the path of a worksheet's XML in the archive, through
// the workbook's list of sheets, as excelize read it, and its relationships.
func sheetPart(zr *zip.Reader, f *excelize.File, sheet string) (string, error) {
	wb := workbookPath(zr)
	var rels zipRels
	dir, base := path.Split(wb)
	if err := readZipXML(zr, dir+"_rels/"+base+".rels", &rels); err != nil {
		return "", err
	}
	for _, s := range f.WorkBook.Sheets.Sheet {
		if s.Name != sheet {
			continue
		}
		for _, r := range rels.Rel {
			if r.ID != s.ID {
				continue
			}
			if strings.HasPrefix(r.Target, "/") {
				return strings.TrimPrefix(r.Target, "/"), nil
			}
			return path.Join(dir, r.Target), nil
		}
	}
	return "", fmt.Errorf("the workbook does not say where sheet %q is", sheet)
}

// zipFile finds a part by name, ignoring case as Excel does; nil if none.
func zipFile(zr *zip.Reader, name string) *zip.File {
	i := slices.IndexFunc(zr.File, func(f *zip.File) bool { return strings.EqualFold(f.Name, name) })
	if i < 0 {
		return nil
	}
	return zr.File[i]
}

// openPart opens the archive's part name.
func openPart(zr *zip.Reader, name string) (io.ReadCloser, error) {
	zf := zipFile(zr, name)
	if zf == nil {
		return nil, fmt.Errorf("the part %s is missing", name)
	}
	return zf.Open()
}

// readZipXML decodes a small XML part of the archive into v.
func readZipXML(zr *zip.Reader, name string, v any) error {
	rc, err := openPart(zr, name)
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := xml.NewDecoder(rc).Decode(v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func xlsxDamaged(c *read.Collector, err error) *read.Error {
	return &read.Error{File: c.Name, Msg: fmt.Sprintf("cannot read it as an Excel workbook (%v) — the file is damaged, truncated, password-protected or not .xlsx; "+
		"save it from Excel as .xlsx (an old .xls too), or give a CSV file the .csv extension", err)}
}
