// Package read holds what the dataset readers share: the Collector that
// checks a file's records and turns them into samples, the record limit,
// the errors that name file, record and field, and our fields' names.
package read

import (
	"encoding/json"
	"fmt"
	"hash"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// Collector gathers the samples and skips of one read.
type Collector struct {
	// Name is the file being read (the dataset or a file it references)
	// and Unit what its records are counted in.
	Name  string
	Unit  string
	Root  string // the dataset's name
	Cols  *Columns
	Skip  bool
	Limit int64 // bytes per record
	// Count is the number of valid samples so far; Sink, if set, takes
	// each and may end the read with an error.
	Count int
	Sink  func(eval.Sample) error
	// Skipped lists the first MaxSkipped records skipped.
	Skipped      []Skip
	SkippedCount int
	// IDs holds where each id was first used, to refuse a repeat; nil lets
	// ids repeat but for those in Replay. idSeq numbers the records with an
	// id and DupSeqs lists those skipped as repeats, for a Stream to skip
	// again (Replay).
	IDs     map[string]IDSite
	idSeq   int64
	DupSeqs []int64
	Replay  []int64
	// Hash takes the bytes of the file being read and RefSums are the
	// sha256s of the files referenced; Reading holds the absolute paths
	// being read, to refuse a reference cycle.
	Hash    hash.Hash
	RefSums [][]byte
	Reading []string
	// TestCases: the records are promptfoo test cases (a description is
	// the id of one without); Defaults are defaultTest's vars.
	TestCases bool
	Defaults  map[string]json.RawMessage
	// Parsed counts the records that parsed as objects, seen[f] whether
	// field f's key (its --map column, when mapped) was in any, FirstKeys
	// the first record's keys (FirstFile its file): a --map column found
	// nowhere is a typo.
	Parsed    int
	seen      [NFields]bool
	FirstKeys []string
	FirstFile string
	// known: some record had a key of one of our fields.
	known bool
	// WithContexts counts the valid samples that have retrieved contexts.
	WithContexts int
	// Sheet is the worksheet being read and Head its header, for errors
	// to name the cell; WantSheet is --sheet.
	Sheet     string
	Head      *Header
	WantSheet string
	// convs are the conversations of the flat form read so far, by id.
	convs map[string]*conversation
	Turns int // valid samples that are conversation turns
	seq   uint64
	// FollowLog: the records are a log followed from anywhere in it,
	// whose conversations may miss turns.
	FollowLog bool
	TraceMap  map[string]string // --map, for a trace file's span selectors
	// ReadAs is the format a reader found when the container says less
	// (Phoenix spans in a Parquet file).
	ReadAs string
}

// IDSite is where an id was first used.
type IDSite struct {
	file string
	line int
}

// MaxSkipped is how many skipped records are listed; the rest are only
// counted, so that a file of bad records costs no more than a good one.
const MaxSkipped = 1000

// Bad records an invalid record: skipped under --skip-invalid, else the error.
func (c *Collector) Bad(line int, field, msg string) error {
	if c.Skip {
		c.SkippedCount++
		cell := c.cellOf(line, field)
		if len(c.Skipped) < MaxSkipped {
			sk := Skip{Sheet: c.Sheet, Cell: cell, Line: line, Field: field, Reason: msg, Unit: c.Unit}
			if c.Name != c.Root {
				sk.File = c.Name
			}
			c.Skipped = append(c.Skipped, sk)
		}
		return nil
	}
	return &Error{File: c.Name, Sheet: c.Sheet, Cell: c.cellOf(line, field), Line: line, Unit: c.Unit, Field: field, Msg: msg, Skippable: true}
}

// Add takes a valid sample; idKey names the key its id was read from
// when that is not the id's own (promptfoo's description), for the message
// about a duplicate.
func (c *Collector) Add(s eval.Sample, idKey string) error {
	if strings.TrimSpace(s.Question) == "" {
		return c.Bad(s.Line, "question", "is empty — every sample needs a question")
	}
	if s.ID != "" {
		c.idSeq++
		if dup, err := c.dupID(&s, idKey); dup {
			return err
		}
	}
	s.Index = c.Count
	c.Count++
	if len(s.Contexts) > 0 {
		c.WithContexts++
	}
	if s.Turn > 0 {
		c.Turns++
	}
	if c.Sink != nil {
		return c.Sink(s)
	}
	return nil
}

// dupID reports whether s repeats an earlier id, and Bad's error if so.
func (c *Collector) dupID(s *eval.Sample, idKey string) (bool, error) {
	if c.IDs == nil {
		if len(c.Replay) == 0 || c.Replay[0] != c.idSeq {
			return false, nil
		}
		c.Replay = c.Replay[1:]
		return true, c.Bad(s.Line, "id", "repeats an earlier id")
	}
	first, dup := c.IDs[s.ID]
	if !dup {
		c.IDs[s.ID] = IDSite{c.Name, s.Line}
		return false, nil
	}
	if c.Skip {
		c.DupSeqs = append(c.DupSeqs, c.idSeq)
	}
	return true, c.Bad(s.Line, "id", dupMsg(c.Name, c.Unit, first, s.ID, idKey))
}

// dupMsg is why a record is refused for repeating the id first used at
// first.
func dupMsg(file, unit string, first IDSite, id, idKey string) string {
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

// NoContexts is a warning when no valid sample has contexts: most often a
// column or key named otherwise than we read (retrieved_context), which
// would leave every metric that reads them missing_input; "" otherwise.
func (c *Collector) NoContexts() string {
	if c.Count == 0 || c.WithContexts > 0 {
		return ""
	}
	msg := fmt.Sprintf("none of the %d samples has retrieved contexts, so the metrics that read them end missing_input", c.Count)
	if c.Cols.mapped[FContexts] {
		return msg + fmt.Sprintf(" — the %q named by --map contexts= is empty in every record", c.Cols.Names[FContexts][0])
	}
	return msg + fmt.Sprintf(" — no column or key named %s (the first record's: %s); pass --map contexts=<column> if one holds them",
		OrList(c.Cols.Names[FContexts]), List(c.FirstKeys))
}

func (c *Collector) Finish() error {
	for f := range NFields {
		if c.Parsed > 0 && c.Cols.mapped[f] && !c.seen[f] {
			col := c.Cols.Names[f][0]
			return &Error{File: c.FirstFile, Field: FieldNames[f], Msg: fmt.Sprintf(
				"no record has the key %q named by --map %s=%s (keys of the first record: %s) — fix --map",
				col, FieldNames[f], col, List(c.FirstKeys))}
		}
	}
	if c.Count > 0 {
		return nil
	}
	if c.Parsed > 0 && !c.known {
		e := c.layoutError(c.FirstKeys, "keys")
		e.File = c.FirstFile
		return e
	}
	if c.SkippedCount > 0 {
		s := c.Skipped[0]
		first := fmt.Sprintf("%s %d: ", s.Unit, s.Line)
		if s.Field != "" {
			first += fmt.Sprintf("field %q: ", s.Field)
		}
		if s.File != "" {
			first = s.File + ": " + first
		}
		return &Error{File: c.Name, Msg: fmt.Sprintf("no valid samples — all %d records are invalid; the first, %s%s", c.SkippedCount, first, s.Reason)}
	}
	return NoSamplesError(c.Name)
}

// NoSelectors refuses --map's span selectors for a file that has no spans.
func (c *Collector) NoSelectors(format string) error {
	for _, k := range TraceSelectors {
		if _, ok := c.TraceMap[k]; ok {
			return &Error{File: c.Name, Msg: fmt.Sprintf("--map %s= selects spans of a trace file (OTLP, Phoenix, Langfuse), and this file is read as %s — drop it from --map", k, format)}
		}
	}
	return nil
}
