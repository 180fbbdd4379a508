package dataset

import (
	"bufio"
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/ragscope/ragscope/eval"
)

// Trace formats: files of exported spans, a sample per traced request.
// They are dataset formats (--format, sniffing, Loaded.Format), and their
// reader is eval/traces, which registers itself here when imported, so
// that the readers of records need not know spans.
const (
	FormatOTLP     = "otlp"
	FormatPhoenix  = "phoenix"
	FormatLangfuse = "langfuse"
)

// isTraceFormat says whether format reads spans.
func isTraceFormat(format string) bool {
	return format == FormatOTLP || format == FormatPhoenix || format == FormatLangfuse
}

// Span selectors: --map keys that name spans, not attributes, and apply to
// trace files only.
const (
	MapLLM       = "llm"
	MapRetriever = "retriever"
)

var traceSelectors = []string{MapLLM, MapRetriever}

func isTraceSelector(k string) bool { return slices.Contains(traceSelectors, k) }

// TraceReader reads exported spans into samples; eval/traces is one.
type TraceReader interface {
	// Sniff tells a trace export by the start of a file that opens with
	// '{' or '['; "" when it is not one.
	Sniff(head []byte) string
	// Read reads a file of a trace format, positioned past any BOM.
	Read(r Records, br *bufio.Reader, format string) error
	// ReadParquet reads a Parquet file whose columns are a span's.
	ReadParquet(r Records, f *parquet.File) error
	// ReadLine reads the OTLP/JSON object on one line of a watched log:
	// errs are the traces it left out, err a failure of the whole line.
	ReadLine(r Records, line int, obj map[string]any) (errs []error, err error)
}

var traceReader TraceReader

// RegisterTraces makes the trace formats readable.
func RegisterTraces(t TraceReader) { traceReader = t }

// Records is a read in progress as a reader outside this package sees it:
// the file, --map and the record limit, and where samples and bad records
// go.
type Records struct{ c *collector }

// File is the name of the file being read.
func (r Records) File() string { return r.c.name }

// Map is --map.
func (r Records) Map() map[string]string { return r.c.traceMap }

// MaxRecordBytes is --max-record-bytes.
func (r Records) MaxRecordBytes() int64 { return r.c.limit }

// SkippedCount is how many records were skipped so far.
func (r Records) SkippedCount() int { return r.c.skippedCount }

// Bad records an invalid record, as Error or Skip (under --skip-invalid,
// when it returns nil).
func (r Records) Bad(line int, field, msg string) error { return r.c.bad(line, field, msg) }

// Add takes a valid sample.
func (r Records) Add(s eval.Sample) error { return r.c.add(s, "") }

// Lines gives each non-blank line of JSON Lines, trimmed, with its number,
// refusing (or skipping) a line over the record limit without holding it.
func (r Records) Lines(br *bufio.Reader, each func(line int, b []byte) error) error {
	return r.c.eachLine(br, each)
}

// ParquetRows gives each row of f, numbered from 1, as an object.
func (r Records) ParquetRows(f *parquet.File, each func(row int, m map[string]any) error) error {
	schema := f.Schema()
	return r.c.eachParquetRow(f, func(row int, pr parquet.Row) error {
		m := map[string]any{}
		if err := schema.Reconstruct(&m, pr); err != nil {
			return r.c.parquetDamaged(fmt.Errorf("row %d: %w", row, err))
		}
		return each(row, m)
	})
}

// errNoTraces is what a trace file gets when eval/traces is not linked in.
func errNoTraces(name, format string) error {
	return &Error{File: name, Msg: fmt.Sprintf("is read as %s, and this program reads no traces", format)}
}
