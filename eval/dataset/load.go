// Package dataset loads the samples to evaluate from JSON Lines, JSON, CSV,
// YAML and Parquet files and Excel workbooks in the shapes RAGAS (0.1 and >= 0.2), Hugging Face
// datasets and promptfoo use (promptfoo test files and configs, with their
// file:// references), and from exported traces through the reader
// eval/traces registers (see traces.go), with errors that name the file,
// the record and the field.
//
// Load holds every sample in memory. For a dataset too large for that, Scan
// validates the file as Load does keeping only counts, and Stream reads it
// again yielding the same samples (see stream.go); all three are one reader
// per format. JSON Lines, JSON arrays (also {"samples": [...]} and
// promptfoo's {"tests": [...]}), CSV, Parquet (through the file's ReadAt,
// a page at a time) and Excel worksheets are read record by record, so a pass holds one record
// and the read buffer whatever the number of samples. A column-oriented JSON
// object and YAML files (so promptfoo YAML configs and YAML tests files) are
// held whole during each pass, as their first sample needs the whole file;
// they give the same samples either way.
package dataset

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"path/filepath"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// sniffWindow is how much of the file is looked at to tell the formats
// apart; also the read buffer size.
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

// The trace formats (FormatOTLP, FormatPhoenix, FormatLangfuse) are in
// traces.go.

// Options says how to read a dataset.
type Options struct {
	// Map is our field -> the user's column (--map); fields: id, question,
	// answer, contexts, reference. In JSON a column may be a dotted path
	// into nested objects (vars.query). In a trace file the fields name
	// span attributes, and the keys llm and retriever name the spans that
	// generate and retrieve (by span name or kind).
	Map map[string]string
	// SkipInvalid leaves invalid records out, listing them in
	// Loaded.Skipped (the first MaxSkipped) and counting them in
	// Loaded.SkippedCount, instead of failing on the first.
	SkipInvalid bool
	// Format is "", "jsonl", "json", "csv", "yaml", "parquet", "xlsx",
	// "otlp", "phoenix" or "langfuse" ("ndjson", "tsv" and "yml" are
	// accepted too). "" picks by extension and content,
	// see Read. Files a promptfoo config references are always picked by
	// their extension.
	Format string
	// MaxRecordBytes is the largest record read (--max-record-bytes): a
	// JSON Lines line, a JSON array element, a CSV or Parquet row or a
	// YAML record, in bytes as in the file. A larger one is an error naming it, its size and its
	// largest field, or is skipped under SkipInvalid; it is measured as it
	// streams by, never held whole. 0 means DefaultMaxRecordBytes.
	MaxRecordBytes int64
	// Sheet is the worksheet of an Excel workbook to read (--sheet): its
	// name, or its number counting from 1. "" reads the first sheet whose
	// header has the columns needed.
	Sheet string
}

// Loaded is a dataset read: by Load, with its samples in memory, or by
// Scan, with only what describes them.
type Loaded struct {
	Path string
	// SHA256 is the hex sha256 of the file's bytes, as recorded by the run
	// store. For a file that references others (promptfoo's file://) it is
	// the sha256 of the sha256s of the file and of each file it references,
	// in the order read: a changed tests file is a changed dataset.
	SHA256 string
	// Format is the format the file was read as: jsonl, json, csv, yaml,
	// parquet, xlsx, or a trace export: otlp, phoenix or langfuse (a
	// column-oriented JSON object is json).
	Format string
	// Samples are the valid samples, in order; nil after Scan.
	Samples []eval.Sample
	// Count is the number of valid samples (len(Samples) after Load).
	Count int
	// Skipped lists the first MaxSkipped records left out under
	// Options.SkipInvalid, in file order; SkippedCount counts them all.
	Skipped      []Skip
	SkippedCount int
	// Turns counts the valid samples that are turns of a conversation.
	Turns int

	// dups are the records the scan left out as repeating an earlier id,
	// by their ordinal among the records with an id, for Stream to skip
	// them without keeping ids. opts is Options.key of the scan's options.
	dups []int64
	opts string
}

// Load reads the dataset at path, every sample into memory.
func Load(path string, opt Options) (*Loaded, error) {
	return scan(fileSource(path), opt, true)
}

// Read reads a dataset from r; name is the file name used in errors, to
// pick the format by extension and, for a promptfoo file, to resolve its
// file:// references (relative to name's directory). A Parquet file is read
// through r's ReadAt when r has one (an *os.File does), else held in memory.
//
// Format detection: an explicit Options.Format is obeyed. A .csv (.tsv) file
// is CSV, a .yaml (.yml) file YAML, a .parquet file Parquet, a .xlsx file
// an Excel workbook. A .jsonl,
// .ndjson or .json file is JSON Lines or JSON as its content says, because
// pandas' to_json(lines=True) and Hugging Face's to_json write JSON Lines
// into files named .json. Any other name is sniffed: the Parquet magic PAR1
// means Parquet, a zip archive an Excel workbook; '[' or a '{' starting a multi-line object means JSON, a '{'
// line holding a whole object means JSON Lines; a first line that starts a
// YAML document, list item or "key:" means YAML; anything else CSV.
func Read(name string, r io.Reader, opt Options) (*Loaded, error) {
	return scan(readerSource(name, r), opt, true)
}

// readPass reads the dataset once, through a collector that setup fits
// to the pass (where samples go).
func readPass(src *source, opt Options, setup func(c *collector)) (*Loaded, error) {
	r, done, err := src.open()
	if err != nil {
		return nil, err
	}
	defer done()
	cols, err := newColumns(opt.Map)
	if err != nil {
		return nil, &Error{File: src.name, Msg: err.Error()}
	}
	h := sha256.New()
	c := &collector{
		root: src.name, cols: cols, skip: opt.SkipInvalid, limit: maxRecordBytes(opt),
		hash: h, reading: []string{absPath(src.name)}, ids: map[string]idSite{}, wantSheet: opt.Sheet,
		traceMap: opt.Map,
	}
	setup(c)
	format, err := c.readFile(src.name, r, opt.Format)
	if err != nil {
		return nil, err
	}
	if err := c.finish(); err != nil {
		return nil, err
	}
	sum := h.Sum(nil)
	if len(c.refSums) > 0 {
		all := sha256.New()
		all.Write(sum)
		for _, s := range c.refSums {
			all.Write(s)
		}
		sum = all.Sum(nil)
	}
	return &Loaded{
		Path:         src.name,
		SHA256:       hex.EncodeToString(sum),
		Format:       format,
		Count:        c.count,
		Skipped:      c.skipped,
		SkippedCount: c.skippedCount,
		Turns:        c.turns,
		dups:         c.dupSeqs,
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
	c.name = name
	br := bufio.NewReaderSize(io.TeeReader(r, c.hash), sniffWindow)
	if err := skipBOM(name, br); err != nil {
		return "", err
	}
	head, err := br.Peek(sniffWindow)
	atEOF := err == io.EOF
	if err != nil && !atEOF && err != bufio.ErrBufferFull {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return "", noSamplesError(name)
	}
	if t := bytes.TrimLeft(head, " \t\r\n"); traceReader != nil && sniff != sniffNone && len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		if f := traceReader.Sniff(t); f != "" {
			format, sniff = f, sniffNone
		}
	}
	switch sniff {
	case sniffJSONFamily:
		// Content that is neither is left to the reader the extension
		// names, which says what is wrong with it.
		if f := sniffJSON(head, atEOF, format == FormatJSONL, c.cols); f != "" {
			format = f
		}
	case sniffAll:
		format = sniffContent(head, atEOF, c.cols)
	}
	if format == FormatCSV && comma == 0 {
		comma = sniffComma(head)
	}

	if c.wantSheet != "" && name == c.root && format != FormatXLSX {
		return "", &Error{File: name, Msg: fmt.Sprintf("--sheet applies to Excel workbooks (.xlsx), and this file is read as %s — drop --sheet", format)}
	}
	if !isTraceFormat(format) && format != FormatParquet {
		if err := c.noSelectors(format); err != nil {
			return "", err
		}
	}
	switch format {
	case FormatJSONL:
		c.unit = unitLine
		err = readJSONL(c, br)
	case FormatJSON:
		c.unit = unitElement
		err = readJSON(c, br)
	case FormatYAML:
		c.unit = unitLine
		err = readYAML(c, br)
	case FormatParquet:
		c.unit = unitRow
		err = readParquet(c, r, br)
	case FormatXLSX:
		c.unit = unitRow
		err = readXLSX(c, r, br, c.wantSheet)
	case FormatOTLP, FormatPhoenix, FormatLangfuse:
		c.unit = unitLine
		if traceReader == nil {
			return "", errNoTraces(name, format)
		}
		err = traceReader.Read(Records{c}, br, format)
	default:
		c.unit = unitRow
		err = readCSV(c, br, comma)
	}
	if err != nil {
		return "", err
	}
	// The readers stop at the end of the data; hash whatever follows too.
	if _, err := io.Copy(io.Discard, br); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if c.readAs != "" {
		format, c.readAs = c.readAs, ""
	}
	return format, nil
}

// sniffContent picks the format of a file whose name says nothing.
func sniffContent(head []byte, atEOF bool, cols *columns) string {
	if bytes.HasPrefix(head, parquetMagic) {
		return FormatParquet
	}
	if bytes.HasPrefix(head, zipMagic) {
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
// how far the content may overrule it: a .json or .jsonl file may hold the
// other (see Read), and a file named otherwise is sniffed.
func formatOf(name, format string) (f string, comma rune, sniff int, err error) {
	given := strings.ToLower(format)
	if format == "" {
		given = strings.TrimPrefix(strings.ToLower(filepath.Ext(name)), ".")
	}
	f, ok := formatNames[given]
	switch {
	case !ok && format != "":
		return "", 0, 0, fmt.Errorf("--format: unknown format %q — use jsonl, json, csv, yaml, parquet, xlsx, otlp, phoenix or langfuse", format)
	case !ok:
		return "", 0, sniffAll, nil
	case format == "" && (f == FormatJSON || f == FormatJSONL):
		sniff = sniffJSONFamily
	case isTraceFormat(f) && format == "":
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
	if first := bytes.TrimLeft(t[1:], " \t\r\n"); bytes.HasPrefix(first, samplesPrefix) || bytes.HasPrefix(first, testsPrefix) {
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
	if raw, ok := obj["tests"]; ok && (kindOf(raw) == "list" || kindOf(raw) == "string") {
		return FormatJSON // promptfoo's {"tests": [...]} or {"tests": "file://..."}
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
	// name is the file being read and unit what its records are counted
	// in: the dataset's, or those of a file it references while that is read.
	name  string
	unit  string
	root  string // the dataset's name
	cols  *columns
	skip  bool
	limit int64 // bytes per record
	// count is the number of valid samples so far, the next one's Index;
	// sink takes each (nil: they are only counted) and may end the read
	// with an error.
	count int
	sink  func(eval.Sample) error
	// skipped holds the first MaxSkipped records skipped, skippedCount
	// counts them all.
	skipped      []Skip
	skippedCount int
	// ids holds where each id was first used, to refuse a repeat (runs
	// are compared by id); nil lets ids repeat. idSeq numbers the records
	// with an id, dupSeqs are those skipped as repeats; a Stream skips
	// the scan's (replay) instead of keeping ids.
	ids       map[string]idSite
	idSeq     int64
	dupSeqs   []int64
	replay    []int64
	replaying bool
	// hash takes the bytes of the file being read; refSums are the
	// sha256s of the files the dataset references, in the order read;
	// reading holds the absolute paths of the files being read, the
	// dataset first, to refuse a reference cycle.
	hash    hash.Hash
	refSums [][]byte
	reading []string
	// testCases: the records read now are promptfoo test cases (their
	// description is the id when they have none); defaults are the vars of
	// the promptfoo config's defaultTest, under the test's own.
	testCases bool
	defaults  map[string]json.RawMessage
	// records counts the records that parsed as objects, seen[f] whether a
	// --map column of field f was found in any of them, firstKeys the
	// first record's keys (firstFile its file): a --map column found
	// nowhere is a typo.
	records   int
	seen      [nFields]bool
	firstKeys []string
	firstFile string
	// known: some record had a key of one of our fields.
	known bool
	// sheet is the worksheet being read and head its header, for errors
	// to name the cell; "" and nil outside a workbook.
	sheet string
	head  *header
	// wantSheet is --sheet.
	wantSheet string
	// convs are the conversations of the flat form read so far, by id
	// (see conversation.go).
	convs map[string]*conversation
	turns int // valid samples that are conversation turns
	seq   uint64
	// followLog: the records are a log followed from anywhere in it
	// (LineDecoder), whose conversations may miss turns.
	followLog bool
	// traceMap is --map, whose span selectors a trace file reads.
	traceMap map[string]string
	// readAs is the format a reader found the file to be in when its
	// container says less (Phoenix spans in a Parquet file).
	readAs string
}

// idSite is where an id was first used.
type idSite struct {
	file string
	line int
}

// MaxSkipped is how many skipped records Loaded.Skipped lists; the rest
// are only counted, so that a file of a million bad records costs no more
// to scan than a good one.
const MaxSkipped = 1000

// bad records an invalid record: skipped under --skip-invalid, else the error.
func (c *collector) bad(line int, field, msg string) error {
	if c.skip {
		c.skippedCount++
		cell := c.cellOf(line, field)
		if len(c.skipped) < MaxSkipped {
			sk := Skip{Sheet: c.sheet, Cell: cell, Line: line, Field: field, Reason: msg, Unit: c.unit}
			if c.name != c.root {
				sk.File = c.name
			}
			c.skipped = append(c.skipped, sk)
		}
		return nil
	}
	return &Error{File: c.name, Sheet: c.sheet, Cell: c.cellOf(line, field), Line: line, Unit: c.unit, Field: field, Msg: msg, Skippable: true}
}

// add takes a valid sample; idKey names the key its id was read from
// when that is not the id's own (promptfoo's description), for the message
// about a duplicate.
func (c *collector) add(s eval.Sample, idKey string) error {
	if strings.TrimSpace(s.Question) == "" {
		return c.bad(s.Line, "question", "is empty — every sample needs a question")
	}
	if s.ID != "" {
		c.idSeq++
		if dup, err := c.dupID(&s, idKey); dup {
			return err
		}
	}
	s.Index = c.count
	c.count++
	if s.Turn > 0 {
		c.turns++
	}
	if c.sink != nil {
		return c.sink(s)
	}
	return nil
}

// dupID reports whether s repeats an earlier id, with what recording it
// as invalid returned.
func (c *collector) dupID(s *eval.Sample, idKey string) (bool, error) {
	if c.replaying {
		if len(c.replay) == 0 || c.replay[0] != c.idSeq {
			return false, nil
		}
		c.replay = c.replay[1:]
		return true, c.bad(s.Line, "id", "repeats an earlier id")
	}
	if c.ids == nil {
		return false, nil
	}
	first, dup := c.ids[s.ID]
	if !dup {
		c.ids[s.ID] = idSite{c.name, s.Line}
		return false, nil
	}
	if c.skip {
		c.dupSeqs = append(c.dupSeqs, c.idSeq)
	}
	return true, c.bad(s.Line, "id", dupMsg(c.name, c.unit, first, s.ID, idKey))
}

// dupMsg is the reason a record in file, counted in unit, is refused for
// repeating the id first used at first.
func dupMsg(file, unit string, first idSite, id, idKey string) string {
	where := fmt.Sprintf("%s %d", unit, first.line)
	if first.file != file {
		where += " of " + first.file
	}
	fix := "rename one or drop the id column"
	if idKey != "" {
		fix = fmt.Sprintf("the id is the test's %q; make the descriptions unique or give each test an id", idKey)
	}
	return fmt.Sprintf("duplicate id %q, first used at %s — ids must be unique (runs are compared by id); %s", id, where, fix)
}

func (c *collector) finish() error {
	if c.records > 0 {
		for f := range nFields {
			if c.mapped(f) && !c.seen[f] {
				col := c.cols.names[f][0]
				return &Error{File: c.firstFile, Field: fieldNames[f], Msg: fmt.Sprintf(
					"no record has the key %q named by --map %s=%s (keys of the first record: %s) — fix --map",
					col, fieldNames[f], col, list(c.firstKeys))}
			}
		}
	}
	if c.count > 0 {
		return nil
	}
	if c.records > 0 && !c.known {
		e := c.layoutError(c.firstKeys, "keys")
		e.File = c.firstFile
		return e
	}
	if c.skippedCount > 0 {
		s := c.skipped[0]
		first := fmt.Sprintf("%s %d: ", s.Unit, s.Line)
		if s.Field != "" {
			first += fmt.Sprintf("field %q: ", s.Field)
		}
		if s.File != "" {
			first = s.File + ": " + first
		}
		return &Error{File: c.name, Msg: fmt.Sprintf("no valid samples — all %d records are invalid; the first, %s%s", c.skippedCount, first, s.Reason)}
	}
	return noSamplesError(c.name)
}

func (c *collector) mapped(f int) bool { return c.cols.mapped[f] }

// noSelectors refuses --map's span selectors for a file that has no spans.
func (c *collector) noSelectors(format string) error {
	for _, k := range traceSelectors {
		if _, ok := c.traceMap[k]; ok {
			return &Error{File: c.name, Msg: fmt.Sprintf("--map %s= selects spans of a trace file (OTLP, Phoenix, Langfuse), and this file is read as %s — drop it from --map", k, format)}
		}
	}
	return nil
}
