package read

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/ragscope/ragscope/eval"
)

// Trace formats: files of exported spans, a sample per traced request.
// They are dataset formats (--format, sniffing, Loaded.Format), read by
// internal/traces.
const (
	FormatOTLP     = "otlp"
	FormatPhoenix  = "phoenix"
	FormatLangfuse = "langfuse"
)

// IsTraceFormat says whether format reads spans.
func IsTraceFormat(format string) bool {
	return format == FormatOTLP || format == FormatPhoenix || format == FormatLangfuse
}

// Span selectors: --map keys that name spans, not attributes, and apply to
// trace files only.
const (
	MapLLM       = "llm"
	MapRetriever = "retriever"
)

var TraceSelectors = []string{MapLLM, MapRetriever}

func isTraceSelector(k string) bool { return slices.Contains(TraceSelectors, k) }

// Records is a read in progress as the trace reader sees it: the file,
// --map and the record limit, and where samples and bad records go.
type Records struct{ c *Collector }

// Records is c as the trace reader sees it.
func (c *Collector) Records() Records { return Records{c} }

// File is the name of the file being read.
func (r Records) File() string { return r.c.Name }

// Map is --map.
func (r Records) Map() map[string]string { return r.c.TraceMap }

// MaxRecordBytes is --max-record-bytes.
func (r Records) MaxRecordBytes() int64 { return r.c.Limit }

// SkippedCount is how many records were skipped so far.
func (r Records) SkippedCount() int { return r.c.SkippedCount }

// Bad records an invalid record, as Error or Skip (under --skip-invalid,
// when it returns nil).
func (r Records) Bad(line int, field, msg string) error { return r.c.Bad(line, field, msg) }

// Add takes a valid sample.
func (r Records) Add(s eval.Sample) error { return r.c.Add(s, "") }

// Lines gives each non-blank line of JSON Lines, trimmed, with its number,
// refusing (or skipping) a line over the record limit without holding it.
func (r Records) Lines(br *bufio.Reader, each func(line int, b []byte) error) error {
	return r.c.EachLine(br, each)
}

// ParquetRows gives each row of f, numbered from 1, as an object.
func (r Records) ParquetRows(f *parquet.File, each func(row int, m map[string]any) error) error {
	schema := f.Schema()
	return r.c.EachParquetRow(f, func(row int, pr parquet.Row) error {
		m := map[string]any{}
		if err := schema.Reconstruct(&m, pr); err != nil {
			return r.c.ParquetDamaged(fmt.Errorf("row %d: %w", row, err))
		}
		return each(row, m)
	})
}

func (c *Collector) ParquetDamaged(err error) *Error {
	return &Error{File: c.Name, Msg: fmt.Sprintf("cannot read it as Parquet (%v) — the file is damaged, truncated or not Parquet; re-export it (e.g. df.to_parquet or dataset.to_parquet)", err)}
}

// EachParquetRow gives each row of f, numbered from 1, to each, row group
// by row group; a row group that cannot be read is the file's damage.
func (c *Collector) EachParquetRow(f *parquet.File, each func(row int, r parquet.Row) error) error {
	row := 0
	buf := make([]parquet.Row, 64)
	for _, rg := range f.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				row++
				if err := each(row, r); err != nil {
					rows.Close()
					return err
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				rows.Close()
				return c.ParquetDamaged(fmt.Errorf("reading row %d: %w", row+1, err))
			}
		}
		if err := rows.Close(); err != nil {
			return c.ParquetDamaged(err)
		}
	}
	return nil
}

// RandomAccess gives random access to the file: r itself when it can
// read at an offset and knows its size (the bytes still pass through br
// to be hashed), else the whole file read from br.
func RandomAccess(r io.Reader, br *bufio.Reader) (io.ReaderAt, int64, error) {
	var size int64 = -1
	switch v := r.(type) {
	case *os.File:
		if st, err := v.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
	case interface{ Size() int64 }:
		size = v.Size()
	}
	if ra, ok := r.(io.ReaderAt); ok && size >= 0 {
		_, err := io.Copy(io.Discard, br)
		return ra, size, err
	}
	data, err := io.ReadAll(br)
	return bytes.NewReader(data), int64(len(data)), err
}
