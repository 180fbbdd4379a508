// Package dataset loads the samples to evaluate from JSON Lines, JSON, CSV,
// YAML, Parquet and Excel files in the shapes RAGAS, Hugging Face and
// promptfoo (with its file:// references) use, and from exported traces,
// with errors that name the file, the record and the field. It picks the
// format and reads JSON, JSON Lines, YAML and promptfoo; internal/sheet,
// internal/pq and internal/traces read the others, and internal/read holds
// the record and its checks.
//
// Load holds every sample in memory; Scan validates a file keeping counts
// only, and Stream reads it again yielding the same samples. All but YAML
// and column-oriented JSON (whose first sample needs the whole file) are
// read a record at a time.
package dataset

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset/internal/pq"
	"github.com/ragscope/ragscope/eval/dataset/internal/read"
	"github.com/ragscope/ragscope/eval/dataset/internal/sheet"
	"github.com/ragscope/ragscope/eval/dataset/internal/traces"
)

// sniffWindow is how much of the file is looked at to tell the formats
// apart, and the read buffer's size.
const sniffWindow = 1 << 20

// Formats.
const (
	FormatJSONL   = "jsonl"
	FormatJSON    = "json"
	FormatCSV     = "csv"
	FormatYAML    = "yaml"
	FormatParquet = "parquet"
	FormatXLSX    = "xlsx"
)

// Trace formats: files of exported spans, a sample per traced request,
// read by internal/traces.
const (
	FormatOTLP     = read.FormatOTLP
	FormatPhoenix  = read.FormatPhoenix
	FormatLangfuse = read.FormatLangfuse
)

// MaxSkipped is how many skipped records Loaded.Skipped lists; the rest
// are only counted.
const MaxSkipped = read.MaxSkipped

type (
	// Error is a problem with the dataset's content. It names the file,
	// where in it (line, row or element) and which of our fields, and
	// says what to do.
	Error = read.Error
	// Skip is a record left out under Options.SkipInvalid.
	Skip = read.Skip
)

// collector is a read in progress, with the methods of the readers that
// read referenced files (promptfoo's file://) through readFile.
type collector struct{ *read.Collector }

// Options says how to read a dataset.
type Options struct {
	// Map is our field -> the user's column (--map), a dotted path into
	// nested JSON objects (vars.query) or, in a trace file, a span
	// attribute; there the keys llm and retriever select spans by name or
	// kind.
	Map map[string]string
	// SkipInvalid leaves invalid records out (Loaded.Skipped) instead of
	// failing on the first.
	SkipInvalid bool
	// Format is one of the Format constants ("ndjson", "tsv" and "yml"
	// too), or "" to pick by extension and content (see formatOf).
	Format string
	// MaxRecordBytes is the largest record read (--max-record-bytes), in
	// bytes as in the file (a YAML record's as the JSON it stands for); 0
	// means DefaultMaxRecordBytes. A larger record
	// is an error naming its largest field, measured as it streams by,
	// never held whole.
	MaxRecordBytes int64
	// Sheet is the worksheet to read (--sheet), by name or number from 1;
	// "" reads the first whose header has the columns needed.
	Sheet string
}

// Loaded is a dataset read: by Load, with its samples in memory, or by
// Scan, with only what describes them.
type Loaded struct {
	Path string
	// SHA256 is the hex sha256 of the file's bytes or, for a file that
	// references others (promptfoo's file://), of the sha256s of it and of
	// each file it references: a changed tests file is a changed dataset.
	SHA256 string
	// Format is the format the file was read as.
	Format string
	// Samples are the valid samples, in order; nil after Scan.
	Samples []eval.Sample
	// Count is the number of valid samples (len(Samples) after Load).
	Count int
	// Skipped lists the first MaxSkipped records left out under
	// SkipInvalid; SkippedCount counts them all.
	Skipped      []Skip
	SkippedCount int
	// Turns counts the valid samples that are turns of a conversation.
	Turns int
	// NoContexts warns that no valid sample has retrieved contexts, and
	// why that may be; "" when some have.
	NoContexts string

	// dups are the ordinals, among the records with an id, of those the
	// scan left out as repeats, for Stream to skip them without keeping
	// ids; opts is the scan's Options.key.
	dups []int64
	opts string
}

// Load reads the dataset at path, every sample into memory.
func Load(path string, opt Options) (*Loaded, error) {
	return scan(fileSource(path), opt, true)
}

// readPass reads the dataset once, through a collector that setup fits
// to the pass (where samples go).
func readPass(src *source, opt Options, setup func(c *collector)) (*Loaded, error) {
	r, done, err := src.open()
	if err != nil {
		return nil, err
	}
	defer done()
	cols, err := read.NewColumns(opt.Map)
	if err != nil {
		return nil, &Error{File: src.name, Msg: err.Error()}
	}
	h := sha256.New()
	c := &collector{&read.Collector{
		Root: src.name, Cols: cols, Skip: opt.SkipInvalid, Limit: maxRecordBytes(opt),
		Hash: h, Reading: []string{absPath(src.name)}, IDs: map[string]read.IDSite{}, WantSheet: opt.Sheet,
		TraceMap: opt.Map,
	}}
	setup(c)
	format, err := c.readFile(src.name, r, opt.Format)
	if err != nil {
		return nil, err
	}
	if err := c.Finish(); err != nil {
		return nil, err
	}
	sum := h.Sum(nil)
	if len(c.RefSums) > 0 {
		all := sha256.New()
		all.Write(sum)
		for _, s := range c.RefSums {
			all.Write(s)
		}
		sum = all.Sum(nil)
	}
	return &Loaded{
		Path:         src.name,
		SHA256:       hex.EncodeToString(sum),
		Format:       format,
		Count:        c.Count,
		Skipped:      c.Skipped,
		SkippedCount: c.SkippedCount,
		Turns:        c.Turns,
		NoContexts:   c.NoContexts(),
		dups:         c.DupSeqs,
		opts:         opt.key(),
	}, nil
}

// readFile reads one file into c, the dataset or a file it references,
// and returns the format it was read as; format is Options.Format for the
// dataset and "" (by extension and content) for a referenced file.
func (c *collector) readFile(name string, r io.Reader, format string) (string, error) {
	format, comma, sniff, err := formatOf(name, format)
	if err != nil {
		return "", &Error{File: name, Msg: err.Error()}
	}
	c.Name = name
	br := bufio.NewReaderSize(io.TeeReader(r, c.Hash), sniffWindow)
	if err := skipBOM(name, br); err != nil {
		return "", err
	}
	head, err := br.Peek(sniffWindow)
	atEOF := err == io.EOF
	if err != nil && !atEOF && err != bufio.ErrBufferFull {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return "", read.NoSamplesError(name)
	}
	if sniff != sniffNone {
		if f := traces.Sniff(head); f != "" {
			format, sniff = f, sniffNone
		}
	}
	switch sniff {
	case sniffJSONFamily:
		// Content that is neither is left to the reader the extension
		// names, which says what is wrong with it.
		format = cmp.Or(sniffJSON(head, atEOF, format == FormatJSONL, c.Cols), format)
	case sniffAll:
		format = sniffContent(head, atEOF, c.Cols)
	}
	if format == FormatCSV && comma == 0 {
		comma = sniffComma(head)
	}

	if c.WantSheet != "" && name == c.Root && format != FormatXLSX {
		return "", &Error{File: name, Msg: fmt.Sprintf("--sheet applies to Excel workbooks (.xlsx), and this file is read as %s — drop --sheet", format)}
	}
	if !read.IsTraceFormat(format) && format != FormatParquet {
		if err := c.NoSelectors(format); err != nil {
			return "", err
		}
	}
	c.Unit = cmp.Or(formatUnits[format], read.UnitRow)
	switch format {
	case FormatJSONL:
		err = c.EachLine(br, c.FromJSON)
	case FormatJSON:
		err = readJSON(c, br)
	case FormatYAML:
		err = readYAML(c, br)
	case FormatParquet:
		err = pq.Read(c.Collector, r, br)
	case FormatXLSX:
		err = sheet.ReadXLSX(c.Collector, r, br, c.WantSheet)
	case FormatOTLP, FormatPhoenix, FormatLangfuse:
		err = traces.Read(c.Collector, br, format)
	default:
		err = sheet.ReadCSV(c.Collector, br, comma)
	}
	if err != nil {
		return "", err
	}
	// The readers stop at the end of the data; hash whatever follows too.
	if _, err := io.Copy(io.Discard, br); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if c.ReadAs != "" {
		format, c.ReadAs = c.ReadAs, ""
	}
	return format, nil
}

// formatUnits are what the records of a format are counted in, when not
// in rows.
var formatUnits = map[string]string{
	FormatJSONL: read.UnitLine, FormatJSON: read.UnitElement, FormatYAML: read.UnitLine,
	FormatOTLP: read.UnitLine, FormatPhoenix: read.UnitLine, FormatLangfuse: read.UnitLine,
}

// sniffContent picks the format of a file whose name says nothing.
func sniffContent(head []byte, atEOF bool, cols *read.Columns) string {
	if bytes.HasPrefix(head, pq.Magic) {
		return FormatParquet
	}
	if bytes.HasPrefix(head, sheet.ZipMagic) {
		return FormatXLSX
	}
	if f := sniffJSON(head, atEOF, false, cols); f != "" {
		return f
	}
	if looksYAML(head) {
		return FormatYAML
	}
	return FormatCSV
}

const (
	sniffNone = iota
	sniffJSONFamily
	sniffAll
)

// formatNames are the names a format goes by, in --format and as a file
// extension; a TSV file is CSV with tabs.
var formatNames = map[string]string{
	"jsonl": FormatJSONL, "ndjson": FormatJSONL, "json": FormatJSON, "csv": FormatCSV, "tsv": FormatCSV,
	"yaml": FormatYAML, "yml": FormatYAML, "parquet": FormatParquet, "xlsx": FormatXLSX,
	"otlp": FormatOTLP, "phoenix": FormatPhoenix, "langfuse": FormatLangfuse,
}

// formatOf picks the format by --format, else by the extension, and says
// how far the content may overrule it: a .json, .jsonl or .ndjson file is
// JSON or JSON Lines as its content says (pandas and Hugging Face write
// JSON Lines into .json files), and any other name is sniffed: Parquet, a
// zip (Excel), JSON, JSON Lines, YAML, else CSV.
func formatOf(name, format string) (f string, comma rune, sniff int, err error) {
	given := strings.ToLower(cmp.Or(format, strings.TrimPrefix(filepath.Ext(name), ".")))
	f, ok := formatNames[given]
	switch {
	case !ok && format != "":
		return "", 0, 0, fmt.Errorf("--format: unknown format %q — use jsonl, json, csv, yaml, parquet, xlsx, otlp, phoenix or langfuse", format)
	case !ok:
		return "", 0, sniffAll, nil
	case format == "" && (f == FormatJSON || f == FormatJSONL):
		sniff = sniffJSONFamily
	case read.IsTraceFormat(f) && format == "":
		// Not an extension anyone uses for these; sniff as any name.
		return "", 0, sniffAll, nil
	}
	if given == "tsv" {
		comma = '\t'
	}
	return f, comma, sniff, nil
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

var (
	samplesPrefix = []byte(`"samples"`)
	testsPrefix   = []byte(`"tests"`)
)

// sniffJSON tells JSON from JSON Lines by the first record; "" when the
// content does not start like either. preferLines resolves a broken first
// line in favour of JSON Lines, so a .jsonl file reports it as a bad line.
func sniffJSON(head []byte, atEOF, preferLines bool, cols *read.Columns) string {
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
	if first := bytes.TrimLeft(t[1:], " \t\r\n"); bytes.HasPrefix(first, samplesPrefix) || bytes.HasPrefix(first, testsPrefix) {
		return FormatJSON
	}
	line, rest, found := bytes.Cut(t, []byte("\n"))
	if !found && !atEOF {
		// A first line longer than the window: pretty-printed JSON breaks
		// lines early, so this is one big JSON Lines record, unless it
		// starts like a column-oriented object written on one line
		// (json.dump(ds.to_dict())).
		if read.StartsColumnar(t) {
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
	if raw, ok := obj["samples"]; ok && read.KindOf(raw) == "list" {
		return FormatJSON
	}
	if raw, ok := obj["tests"]; ok && (read.KindOf(raw) == "list" || read.KindOf(raw) == "string") {
		return FormatJSON // promptfoo's {"tests": [...]} or {"tests": "file://..."}
	}
	if (read.AllLists(obj) || cols.ListQuestion(obj)) && (!preferLines || len(bytes.TrimSpace(rest)) == 0) {
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

// DefaultMaxRecordBytes is the record limit when Options.MaxRecordBytes is
// 0: some 4 million tokens, far past any judge's context window.
const DefaultMaxRecordBytes = 16 << 20

// maxRecordBytes is the limit opt asks for.
func maxRecordBytes(opt Options) int64 {
	if opt.MaxRecordBytes > 0 {
		return opt.MaxRecordBytes
	}
	return DefaultMaxRecordBytes
}

// SkipError turns a skipped record back into the error it would have been,
// for listing skipped records with the same wording as a failed load.
func (l *Loaded) SkipError(s Skip) *Error {
	return &Error{File: cmp.Or(s.File, l.Path), Sheet: s.Sheet, Cell: s.Cell, Line: s.Line, Unit: s.Unit, Field: s.Field, Msg: s.Reason}
}

// ParseMap parses a --map value such as "question=q_col,answer=resp" into
// our field -> the user's column. Column names cannot contain commas.
func ParseMap(s string) (map[string]string, error) { return read.ParseMap(s) }
