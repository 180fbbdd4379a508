package read

import (
	"fmt"
	"strings"
)

// Units a location in a dataset is counted in. JSON Lines errors use the
// compiler-style "file:7:" so editors and terminals can jump to the line; CSV
// rows and JSON array elements are not lines, so they are spelled out.
const (
	UnitLine    = "line"
	UnitRow     = "row"
	UnitElement = "element"
	// UnitSample counts the samples of a column-oriented JSON object,
	// 1-based; the message also gives the 0-based list index.
	UnitSample = "sample"
)

// Error is a problem with the dataset's content. It names the file, where
// in it (line, row or element) and which of our fields, and says what to do.
type Error struct {
	File string
	// Sheet is the worksheet of an Excel workbook the problem is in, and
	// Cell the cell (B12) when one is to blame; "" otherwise.
	Sheet, Cell string
	// Line is the 1-based JSONL or YAML line, CSV row (header = row 1),
	// Parquet row (the first record = row 1) or JSON array element, or
	// 1-based sample of a column-oriented object; 0 when the problem
	// concerns the whole file.
	Line int
	// Unit is "line", "row", "element" or "sample"; "" reads as "line".
	Unit string
	// Field is one of id, question, answer, contexts, reference; "" when the
	// record as a whole is bad.
	Field string
	Msg   string
	// Skippable is true for a bad record that --skip-invalid would skip.
	Skippable bool
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Sheet != "" {
		fmt.Fprintf(&b, ": sheet %q", e.Sheet)
	}
	if e.Line > 0 {
		switch e.Unit {
		case "", UnitLine:
			fmt.Fprintf(&b, ":%d", e.Line)
		case UnitSample:
			fmt.Fprintf(&b, ": sample %d (index %d)", e.Line, e.Line-1)
		default:
			if e.Sheet != "" {
				b.WriteString(" ")
			} else {
				b.WriteString(": ")
			}
			fmt.Fprintf(&b, "%s %d", e.Unit, e.Line)
		}
		if e.Cell != "" {
			fmt.Fprintf(&b, " (%s)", e.Cell)
		}
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": field %q", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Skippable {
		b.WriteString(" (or pass --skip-invalid to evaluate the other records)")
	}
	return b.String()
}

// Skip is a record left out under Options.SkipInvalid.
type Skip struct {
	// File is the file the record is in when that is not the dataset
	// itself but a tests file a promptfoo config references; "" otherwise.
	File string `json:"file,omitempty"`
	// Sheet and Cell place a record of an Excel workbook, as in Error.
	Sheet  string `json:"sheet,omitempty"`
	Cell   string `json:"cell,omitempty"`
	Line   int    `json:"line"`
	Field  string `json:"field,omitempty"`
	Reason string `json:"reason"`
	// Unit is "line", "row", "element" or "sample", as in Error.
	Unit string `json:"unit"`
}

func NoSamplesError(name string) *Error {
	return &Error{File: name, Msg: "no samples — the file holds no records; expected JSON Lines " +
		`(one {"user_input": ..., "response": ..., "retrieved_contexts": [...], "reference": ...} object per line), ` +
		`a JSON array of such objects, {"samples": [...]}, a CSV file with a header row, a YAML list of records or promptfoo tests, a Parquet file, an Excel workbook (.xlsx) or exported traces (OTLP/JSON, Phoenix spans, Langfuse traces)`}
}
