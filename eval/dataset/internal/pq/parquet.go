// Package pq reads a Parquet dataset, a row a record, into a read.Collector.
package pq

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/ragscope/ragscope/eval/dataset/internal/read"
	"github.com/ragscope/ragscope/eval/dataset/internal/traces"
)

// A Parquet dataset has a column per field (contexts a list<string> or a
// string), as to_parquet writes. Each row becomes the JSON object it stands
// for, read as a JSON record is; rows count from 1.

// Magic starts and ends a Parquet file.
var Magic = []byte("PAR1")

// Kinds of Parquet column, as far as our fields care.
const (
	pqUnsupported = iota
	pqText
	pqNumber
	pqTextList
)

// pqColumn is a top-level column of a Parquet file.
type pqColumn struct {
	name string
	kind int
	typ  string // its type as messages show it
	leaf int    // index of its leaf column in a row
}

// Read reads a Parquet file. It needs random access: through r's
// ReadAt when r has one, else from the whole file read into memory.
func Read(c *read.Collector, r io.Reader, br *bufio.Reader) (err error) {
	src, size, err := read.RandomAccess(r, br)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	// parquet-go panics on some damaged files (a schema it cannot
	// represent, a page claiming an impossible size); a bad file must be
	// an error naming it, never a crash.
	defer func() {
		if p := recover(); p != nil {
			err = c.ParquetDamaged(fmt.Errorf("%v", p))
		}
	}()
	if err := checkFooter(src, size); err != nil {
		return c.ParquetDamaged(err)
	}
	f, err := parquet.OpenFile(src, size)
	if err != nil {
		return c.ParquetDamaged(err)
	}
	var cols []pqColumn
	var names []string
	for _, col := range f.Root().Columns() {
		cols = append(cols, classify(col))
		names = append(names, col.Name())
	}
	if slices.Contains(names, "context.trace_id") || slices.Contains(names, "context.span_id") {
		c.ReadAs = read.FormatPhoenix
		return traces.ReadParquet(c, f)
	}
	if err := c.NoSelectors("parquet"); err != nil {
		return err
	}
	c.FirstKeys, c.FirstFile = names, c.Name
	h, err := c.Cols.ResolveHeader(c, names, false)
	if err != nil {
		var e *read.Error
		if errors.As(err, &e) {
			e.Line, e.Unit = 0, "" // there is no header row to point at
		}
		return err
	}
	var used [read.NFields]*pqColumn
	for fld := range read.NFields {
		if h.Idx[fld] < 0 {
			continue
		}
		col := &cols[h.Idx[fld]]
		if err := checkParquetType(c, fld, col); err != nil {
			return err
		}
		used[fld] = col
	}
	return c.EachParquetRow(f, func(row int, r parquet.Row) error { return fromParquetRow(c, row, r, used) })
}

// checkFooter refuses a file whose footer claims more bytes than the file
// has, before the decoder allocates up to 4 GiB for it.
func checkFooter(src io.ReaderAt, size int64) error {
	if size < 12 {
		return fmt.Errorf("%d bytes is too short for a Parquet file", size)
	}
	var tail [8]byte
	if _, err := src.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if !bytes.Equal(tail[4:], Magic) {
		return fmt.Errorf("invalid magic footer %q", tail[4:])
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return fmt.Errorf("the footer claims %d bytes, the file has %d", n, size)
	}
	return nil
}

// classify tells what a top-level column holds: text, a number, a list of
// texts (LIST in the three- or two-level form, or a repeated text column),
// or something our fields cannot take.
func classify(col *parquet.Column) pqColumn {
	pc := pqColumn{name: col.Name(), kind: pqUnsupported, leaf: -1}
	if col.Leaf() {
		pc.leaf = col.Index()
		pc.kind, pc.typ = leafKind(col)
		if col.Repeated() {
			pc.typ = "repeated " + pc.typ
			if pc.kind == pqText {
				pc.kind = pqTextList
			} else {
				pc.kind = pqUnsupported
			}
		}
		return pc
	}
	if !isListColumn(col) {
		pc.typ = groupName(col)
		return pc
	}
	rep := col.Columns()[0]
	elem := rep
	if !rep.Leaf() {
		if len(rep.Columns()) != 1 || !rep.Columns()[0].Leaf() {
			pc.typ = "list<" + groupName(rep) + ">"
			return pc
		}
		elem = rep.Columns()[0]
	}
	kind, typ := leafKind(elem)
	pc.typ = "list<" + typ + ">"
	if kind != pqText || elem.MaxRepetitionLevel() != 1 {
		return pc
	}
	pc.kind, pc.leaf = pqTextList, elem.Index()
	return pc
}

// isListColumn reports whether a group column is a LIST of one repeated child.
func isListColumn(col *parquet.Column) bool {
	lt := col.Type().LogicalType()
	if lt == nil || lt.Value == nil {
		return false
	}
	if _, ok := lt.Value.(*format.ListType); !ok {
		return false
	}
	return len(col.Columns()) == 1 && col.Columns()[0].Repeated()
}

// groupName names a group column's type for messages.
func groupName(col *parquet.Column) string {
	if lt := col.Type().LogicalType(); lt != nil && lt.Value != nil {
		return strings.ToLower(lt.String())
	}
	return "struct"
}

// plainKinds are the kinds of a leaf column without a logical type.
var plainKinds = map[parquet.Kind]int{parquet.ByteArray: pqText, parquet.Int32: pqNumber, parquet.Int64: pqNumber, parquet.Float: pqNumber, parquet.Double: pqNumber}

// leafKind classifies a leaf column by its physical and logical type.
func leafKind(col *parquet.Column) (int, string) {
	t := col.Type()
	lt := t.LogicalType()
	if lt == nil || lt.Value == nil {
		return plainKinds[t.Kind()], strings.ToUpper(t.Kind().String())
	}
	switch v := lt.Value.(type) {
	case *format.StringType, *format.EnumType, *format.JsonType:
		if t.Kind() == parquet.ByteArray {
			return pqText, lt.String()
		}
	case *format.IntType:
		if t.Kind() == parquet.Int32 || t.Kind() == parquet.Int64 {
			name := fmt.Sprintf("INT%d", v.BitWidth)
			if !v.IsSigned {
				name = "U" + name
			}
			return pqNumber, name
		}
	}
	if t.Kind() == parquet.Float || t.Kind() == parquet.Double {
		return pqNumber, lt.String()
	}
	return pqUnsupported, lt.String()
}

// checkParquetType refuses a column that cannot feed field f.
func checkParquetType(c *read.Collector, f int, col *pqColumn) error {
	ok := false
	need := ""
	switch f {
	case read.FQuestion, read.FAnswer:
		ok, need = col.kind == pqText, "a string column"
	case read.FContexts, read.FReference:
		ok, need = col.kind == pqText || col.kind == pqTextList, "a list<string> column or a string column"
	case read.FID:
		ok, need = col.kind == pqText || col.kind == pqNumber, "a string or integer column"
	}
	if ok {
		return nil
	}
	return &read.Error{File: c.Name, Field: read.FieldNames[f], Msg: fmt.Sprintf(
		"column %q is of type %s — the %s must be %s; convert the column before writing the file (e.g. df[%q] = df[%q].astype(str)), or --map %s to another column",
		col.name, col.typ, read.FieldNames[f], need, col.name, col.name, read.FieldNames[f])}
}

// fromParquetRow turns one row into a sample.
func fromParquetRow(c *read.Collector, row int, r parquet.Row, used [read.NFields]*pqColumn) error {
	byLeaf := map[int][]parquet.Value{}
	r.Range(func(i int, values []parquet.Value) bool {
		byLeaf[i] = values
		return true
	})
	rec := &read.JSONRecord{Obj: make(map[string]json.RawMessage, read.NFields)}
	var o read.Oversized
	for fld, col := range used {
		if col == nil {
			continue
		}
		raw, n, err := parquetJSON(col, byLeaf[col.leaf])
		if err != nil {
			return c.Bad(row, read.FieldNames[fld], fmt.Sprintf("column %q %v", col.name, err))
		}
		rec.Obj[col.name] = raw
		o.Tally(fld, col.name, n)
	}
	if o.Size > c.Limit {
		return c.Bad(row, read.FieldNames[o.Column], c.TooBig(o, "column"))
	}
	return c.FromRecord(row, rec)
}

// parquetJSON turns a column's values in one row into JSON, with the
// bytes of text they hold. A list's null items become empty texts, which
// the fields drop, as they read a null list as an empty one.
func parquetJSON(col *pqColumn, values []parquet.Value) (json.RawMessage, int64, error) {
	if col.kind == pqTextList {
		items := make([]string, len(values))
		var size int64
		for i, x := range values {
			if !utf8.Valid(x.ByteArray()) {
				return nil, 0, fmt.Errorf("item %d %w", i+1, read.UTF8Error(x.ByteArray()))
			}
			items[i] = string(x.ByteArray())
			size += int64(len(items[i]))
		}
		b, _ := json.Marshal(items)
		return b, size, nil
	}
	if len(values) == 0 || values[0].IsNull() {
		return json.RawMessage("null"), 0, nil
	}
	var v any
	switch x := values[0]; x.Kind() {
	case parquet.ByteArray:
		if !utf8.Valid(x.ByteArray()) {
			return nil, 0, read.UTF8Error(x.ByteArray())
		}
		b, _ := json.Marshal(string(x.ByteArray()))
		return b, int64(len(x.ByteArray())), nil
	case parquet.Int32:
		v = x.Int32()
	case parquet.Int64:
		v = x.Int64()
	case parquet.Float:
		v = float64(x.Float())
	case parquet.Double:
		v = x.Double()
	default:
		return nil, 0, fmt.Errorf("holds a %s value", x.Kind())
	}
	b, err := json.Marshal(v)
	if err != nil { // NaN or an infinity: no value
		return json.RawMessage("null"), 0, nil
	}
	return b, 0, nil
}
