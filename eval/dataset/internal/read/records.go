package read

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/parquet-go/parquet-go"
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

func (c *Collector) ParquetDamaged(err error) *Error {
	return &Error{File: c.Name, Msg: fmt.Sprintf("cannot read it as Parquet (%v) — the file is damaged, truncated or not Parquet; re-export it (e.g. df.to_parquet or dataset.to_parquet)", err)}
}

// EachParquetRow gives each row of f, numbered from 1, to each, row group
// by row group; a row group that cannot be read is the file's damage.
func (c *Collector) EachParquetRow(f *parquet.File, each func(row int, r parquet.Row) error) error {
	rows := parquet.MultiRowGroup(f.RowGroups()...).Rows()
	buf := make([]parquet.Row, 64)
	for row := 0; ; {
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
