// Package dataset loads the samples to evaluate from JSON Lines, JSON and CSV
// files in the shapes RAGAS (0.1 and >= 0.2) and promptfoo use, streaming,
// with errors that name the file, the record and the field.
package dataset

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// sniffWindow is how much of the file is looked at to tell the formats
// apart; also the read buffer size.
const sniffWindow = 1 << 20

// Formats.
const (
	FormatJSONL = "jsonl"
	FormatJSON  = "json"
	FormatCSV   = "csv"
)

// Options says how to read a dataset.
type Options struct {
	// Map is our field -> the user's column (--map); fields: id, question,
	// answer, contexts, reference. In JSON a column may be a dotted path
	// into nested objects (vars.query).
	Map map[string]string
	// SkipInvalid collects invalid records in Loaded.Skipped and loads the
	// rest, instead of failing on the first.
	SkipInvalid bool
	// Format is "", "jsonl", "json" or "csv" ("ndjson" and "tsv" are
	// accepted too). "" picks by extension and content, see Read.
	Format string
	// MaxRecordBytes is the largest record read (--max-record-bytes): a
	// JSON Lines line, a JSON array element or a CSV row, in bytes as in
	// the file. A larger one is an error naming it, its size and its
	// largest field, or is skipped under SkipInvalid; it is measured as it
	// streams by, never held whole. 0 means DefaultMaxRecordBytes.
	MaxRecordBytes int64
}

// Loaded is a dataset read into memory.
type Loaded struct {
	Path string
	// SHA256 is the hex sha256 of the file's bytes, as recorded by the run store.
	SHA256 string
	// Format is the format the file was read as: jsonl, json or csv (a
	// column-oriented JSON object is json).
	Format  string
	Samples []eval.Sample
	Skipped []Skip
}

// Load reads the dataset at path.
func Load(path string, opt Options) (*Loaded, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &Error{File: path, Msg: "is a directory — pass a .jsonl, .json or .csv file"}
	}
	return Read(path, f, opt)
}

// Read reads a dataset from r; name is the file name used in errors and to
// pick the format by extension.
//
// Format detection: an explicit Options.Format is obeyed. A .csv (.tsv) file
// is CSV. A .jsonl, .ndjson or .json file is JSON Lines or JSON as its content
// says, because pandas' to_json(lines=True) and Hugging Face's to_json write
// JSON Lines into files named .json. Any other name is sniffed: '[' or a
// '{' starting a multi-line object means JSON, a '{' line holding a whole
// object means JSON Lines, anything else CSV.
func Read(name string, r io.Reader, opt Options) (*Loaded, error) {
	cols, err := newColumns(opt.Map)
	if err != nil {
		return nil, &Error{File: name, Msg: err.Error()}
	}
	format, comma, sniff, err := formatOf(name, opt.Format)
	if err != nil {
		return nil, &Error{File: name, Msg: err.Error()}
	}
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(r, h), sniffWindow)
	if err := skipBOM(name, br); err != nil {
		return nil, err
	}
	head, err := br.Peek(sniffWindow)
	atEOF := err == io.EOF
	if err != nil && !atEOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return nil, noSamplesError(name)
	}
	switch sniff {
	case sniffJSONFamily:
		// Content that is neither is left to the reader the extension
		// names, which says what is wrong with it.
		if f := sniffJSON(head, atEOF, format == FormatJSONL, cols); f != "" {
			format = f
		}
	case sniffAll:
		if format = sniffJSON(head, atEOF, false, cols); format == "" {
			format = FormatCSV
		}
	}
	if format == FormatCSV && comma == 0 {
		comma = sniffComma(head)
	}

	c := &collector{name: name, cols: cols, skip: opt.SkipInvalid, ids: map[string]int{}, limit: maxRecordBytes(opt)}
	switch format {
	case FormatJSONL:
		c.unit = unitLine
		err = readJSONL(c, br)
	case FormatJSON:
		c.unit = unitElement
		err = readJSON(c, br)
	default:
		c.unit = unitRow
		err = readCSV(c, br, comma)
	}
	if err != nil {
		return nil, err
	}
	if err := c.finish(); err != nil {
		return nil, err
	}
	// The readers stop at the end of the data; hash whatever follows too.
	if _, err := io.Copy(io.Discard, br); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Loaded{
		Path:    name,
		SHA256:  hex.EncodeToString(h.Sum(nil)),
		Format:  format,
		Samples: c.samples,
		Skipped: c.skipped,
	}, nil
}

const (
	sniffNone = iota
	sniffJSONFamily
	sniffAll
)

func formatOf(name, format string) (f string, comma rune, sniff int, err error) {
	switch strings.ToLower(format) {
	case "jsonl", "ndjson":
		return FormatJSONL, 0, sniffNone, nil
	case "json":
		return FormatJSON, 0, sniffNone, nil
	case "csv":
		return FormatCSV, 0, sniffNone, nil
	case "tsv":
		return FormatCSV, '\t', sniffNone, nil
	case "":
	default:
		return "", 0, 0, fmt.Errorf("--format: unknown format %q — use jsonl, json or csv", format)
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".jsonl", ".ndjson":
		return FormatJSONL, 0, sniffJSONFamily, nil
	case ".json":
		return FormatJSON, 0, sniffJSONFamily, nil
	case ".csv":
		return FormatCSV, 0, sniffNone, nil
	case ".tsv":
		return FormatCSV, '\t', sniffNone, nil
	}
	return "", 0, sniffAll, nil
}

func skipBOM(name string, br *bufio.Reader) error {
	b, _ := br.Peek(3)
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		_, err := br.Discard(3)
		return err
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}), bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return &Error{File: name, Msg: "the file is UTF-16 encoded — save it as UTF-8 (e.g. iconv -f UTF-16 -t UTF-8 in > out)"}
	}
	return nil
}

var samplesPrefix = []byte(`"samples"`)

// sniffJSON tells JSON from JSON Lines by the first record; "" when the
// content does not start like either. preferLines resolves a broken first
// line in favour of JSON Lines, so a .jsonl file reports it as a bad line.
func sniffJSON(head []byte, atEOF, preferLines bool, cols *columns) string {
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) == 0 {
		return ""
	}
	switch t[0] {
	case '[':
		return FormatJSON
	case '{':
	default:
		return ""
	}
	if bytes.HasPrefix(bytes.TrimLeft(t[1:], " \t\r\n"), samplesPrefix) {
		return FormatJSON
	}
	line, rest, found := bytes.Cut(t, []byte("\n"))
	if !found && !atEOF {
		// A first line longer than the window: pretty-printed JSON breaks
		// lines early, so this is one big JSON Lines record, unless it
		// starts like a column-oriented object written on one line
		// (json.dump(ds.to_dict())).
		if startsColumnar(t) {
			return FormatJSON
		}
		return FormatJSONL
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(line), &obj); err != nil {
		if preferLines && string(bytes.TrimSpace(line)) != "{" {
			return FormatJSONL
		}
		return FormatJSON
	}
	if raw, ok := obj["samples"]; ok && kindOf(raw) == "list" {
		return FormatJSON
	}
	if (allLists(obj) || cols.listQuestion(obj)) && (!preferLines || len(bytes.TrimSpace(rest)) == 0) {
		// A column-oriented object on one line; no JSON Lines record is
		// all lists or has a list for its question or answer.
		return FormatJSON
	}
	return FormatJSONL
}

// sniffComma picks the delimiter that occurs most in the header line
// outside quotes: Excel in many European locales writes ';', and tab-separated
// exports are common.
func sniffComma(head []byte) rune {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	counts := map[byte]int{}
	inQuote := false
	for _, b := range line {
		switch {
		case b == '"':
			inQuote = !inQuote
		case !inQuote && (b == ',' || b == ';' || b == '\t'):
			counts[b]++
		}
	}
	best := byte(',')
	for _, d := range []byte{';', '\t'} {
		if counts[d] > counts[best] {
			best = d
		}
	}
	return rune(best)
}

// collector gathers the samples and skips of one read.
type collector struct {
	name    string
	unit    string
	cols    *columns
	skip    bool
	limit   int64 // bytes per record
	samples []eval.Sample
	skipped []Skip
	ids     map[string]int // id -> line it first appeared on
	// records counts the records that parsed as objects, seen[f] whether a
	// --map column of field f was found in any of them, firstKeys the
	// first record's keys: a --map column found nowhere is a typo.
	records   int
	seen      [nFields]bool
	firstKeys []string
	// known: some record had a key of one of our fields.
	known bool
}

// bad records an invalid record: skipped under --skip-invalid, else the error.
func (c *collector) bad(line int, field, msg string) error {
	if c.skip {
		c.skipped = append(c.skipped, Skip{Line: line, Field: field, Reason: msg, Unit: c.unit})
		return nil
	}
	return &Error{File: c.name, Line: line, Unit: c.unit, Field: field, Msg: msg, Skippable: true}
}

func (c *collector) add(s eval.Sample) error {
	if strings.TrimSpace(s.Question) == "" {
		return c.bad(s.Line, "question", "is empty — every sample needs a question")
	}
	if s.ID != "" {
		if first, dup := c.ids[s.ID]; dup {
			return c.bad(s.Line, "id", fmt.Sprintf("duplicate id %q, first used at %s %d — ids must be unique (runs are compared by id); rename one or drop the id column", s.ID, c.unit, first))
		}
		c.ids[s.ID] = s.Line
	}
	s.Index = len(c.samples)
	c.samples = append(c.samples, s)
	return nil
}

func (c *collector) finish() error {
	if c.records > 0 {
		for f := range nFields {
			if c.mapped(f) && !c.seen[f] {
				col := c.cols.names[f][0]
				return &Error{File: c.name, Field: fieldNames[f], Msg: fmt.Sprintf(
					"no record has the key %q named by --map %s=%s (keys of the first record: %s) — fix --map",
					col, fieldNames[f], col, list(c.firstKeys))}
			}
		}
	}
	if len(c.samples) > 0 {
		return nil
	}
	if c.records > 0 && !c.known {
		return c.layoutError(c.firstKeys, "keys")
	}
	if len(c.skipped) > 0 {
		s := c.skipped[0]
		first := fmt.Sprintf("%s %d: ", s.Unit, s.Line)
		if s.Field != "" {
			first += fmt.Sprintf("field %q: ", s.Field)
		}
		return &Error{File: c.name, Msg: fmt.Sprintf("no valid samples — all %d records are invalid; the first, %s%s", len(c.skipped), first, s.Reason)}
	}
	return noSamplesError(c.name)
}

func (c *collector) mapped(f int) bool { return c.cols.mapped[f] }
