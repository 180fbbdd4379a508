package dataset

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset/internal/read"
	"github.com/ragscope/ragscope/eval/dataset/internal/traces"
)

// LineDecoder decodes JSON Lines records one at a time, as a log that is
// still being written delivers them (ragscope watch): the same field names,
// aliases, --map and messages as a JSON Lines dataset, without the
// whole-file checks (a log repeats ids, and has no end to check at).
type LineDecoder struct {
	c   *read.Collector
	m   map[string]string // --map, for trace lines
	got eval.Sample
	ok  bool
}

// ErrBlankLine is what Decode returns for a line holding only whitespace:
// not a record, and not an error to report.
var ErrBlankLine = errors.New("blank line")

// NewLineDecoder makes a decoder with opt's --map and --max-record-bytes
// (SkipInvalid and Format do not apply: every line is a JSON record, and a
// bad one is the caller's to report and go past).
func NewLineDecoder(opt Options) (*LineDecoder, error) {
	for _, k := range read.TraceSelectors {
		if _, ok := opt.Map[k]; ok {
			return nil, fmt.Errorf("--map %s= selects spans of a trace file, and a watched log is read as JSON Lines records — drop it from --map", k)
		}
	}
	cols, err := read.NewColumns(opt.Map)
	if err != nil {
		return nil, err
	}
	d := &LineDecoder{m: opt.Map}
	// No id map: a service logs the same conversation id on every turn,
	// and the watcher tells repeats by content, not id.
	d.c = &read.Collector{Cols: cols, Limit: maxRecordBytes(opt), Unit: read.UnitLine, FollowLog: true}
	d.c.Sink = func(s eval.Sample) error {
		d.got, d.ok = s, true
		return nil
	}
	return d, nil
}

// Decode reads the record on line of file name. The error is a *Error
// naming the file, line and field, as loading the dataset would.
func (d *LineDecoder) Decode(name string, line int, b []byte) (eval.Sample, error) {
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return eval.Sample{}, ErrBlankLine
	}
	if int64(len(t)) > d.c.Limit {
		return eval.Sample{}, &Error{File: name, Line: line, Unit: read.UnitLine,
			Msg: fmt.Sprintf("the record is %d bytes, over the limit of %d (--max-record-bytes)", len(t), d.c.Limit)}
	}
	d.c.Name, d.c.Root = name, name
	d.ok = false
	// Each line stands alone: the first-record layout check applies to
	// every line, so an unrelated log line gets the message that names the
	// accepted keys.
	d.c.Parsed, d.c.Count = 0, 0
	err := d.c.FromJSON(line, t)
	var de *Error
	if errors.As(err, &de) {
		// --skip-invalid means nothing here: the watcher always goes on.
		de.Skippable = false
		if de.Line == 0 {
			de.Line, de.Unit = line, read.UnitLine
		}
	}
	if err != nil {
		return eval.Sample{}, err
	}
	if !d.ok {
		return eval.Sample{}, &Error{File: name, Line: line, Unit: read.UnitLine, Msg: "holds no sample"}
	}
	return d.got, nil
}

// DecodeLine reads the record on line of file name: the sample of a JSON
// Lines record, or the requests of an OTLP/JSON line (one
// ExportTraceServiceRequest, as a collector's file exporter writes them),
// built as a trace file's are. A log is read a line at a time and each line
// taken once, so a trace must be whole in its line, as the collector's
// groupbytrace processor writes them: a trace with a span whose parent is
// not in the line is an error naming it and left out. The error may come
// with the samples of the line's other traces; it lists every problem.
func (d *LineDecoder) DecodeLine(name string, line int, b []byte) ([]eval.Sample, error) {
	t := bytes.TrimSpace(b)
	if !bytes.HasPrefix(t, []byte("{")) || !bytes.Contains(t, []byte(`"resourceSpans"`)) || int64(len(t)) > d.c.Limit {
		s, err := d.Decode(name, line, b)
		if err != nil {
			return nil, err
		}
		return []eval.Sample{s}, nil
	}
	obj, err := read.DecodeObject(t)
	if err != nil {
		return nil, &Error{File: name, Line: line, Unit: read.UnitLine, Msg: err.Error()}
	}
	if _, ok := obj["resourceSpans"]; !ok {
		s, err := d.Decode(name, line, b)
		if err != nil {
			return nil, err
		}
		return []eval.Sample{s}, nil
	}
	var out []eval.Sample
	c := &read.Collector{Name: name, Root: name, Cols: d.c.Cols, Limit: d.c.Limit, Unit: read.UnitLine, Skip: true, TraceMap: d.m}
	c.Sink = func(s eval.Sample) error {
		out = append(out, s)
		return nil
	}
	errs, err := traces.ReadLine(c, line, obj)
	if err != nil {
		return nil, err
	}
	for _, sk := range c.Skipped {
		errs = append(errs, &Error{File: name, Line: sk.Line, Unit: read.UnitLine, Field: sk.Field, Msg: sk.Reason})
	}
	return out, errors.Join(errs...)
}
