package dataset

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset/internal/read"
	"github.com/ragscope/ragscope/eval/dataset/internal/traces"
)

// LineDecoder decodes JSON Lines records one at a time, as a log being
// written delivers them (ragscope watch), as a dataset's are but without
// the whole-file checks: a log repeats ids, and has no end.
type LineDecoder struct {
	c   *read.Collector
	got eval.Sample
}

// ErrBlankLine is what Decode returns for a line holding only whitespace:
// not a record, and not an error to report.
var ErrBlankLine = errors.New("blank line")

// NewLineDecoder makes a decoder with opt's Map and MaxRecordBytes; a bad
// line is the caller's to report and go past.
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
	d := &LineDecoder{}
	// No id map: a service logs the same conversation id on every turn,
	// and the watcher tells repeats by content, not id.
	d.c = &read.Collector{Cols: cols, Limit: maxRecordBytes(opt), Unit: read.UnitLine, FollowLog: true, TraceMap: opt.Map}
	d.c.Sink = func(s eval.Sample) error {
		d.got = s
		return nil
	}
	return d, nil
}

// Decode reads the record on line of file name. The error is a *Error
// naming the file, line and field, as loading the dataset would.
func (d *LineDecoder) Decode(name string, line int, b []byte) (eval.Sample, error) {
	t := read.TrimLine(b)
	if len(t) == 0 {
		return eval.Sample{}, ErrBlankLine
	}
	if int64(len(t)) > d.c.Limit {
		return eval.Sample{}, &Error{File: name, Line: line, Unit: read.UnitLine,
			Msg: fmt.Sprintf("the record is %d bytes, over the limit of %d (--max-record-bytes)", len(t), d.c.Limit)}
	}
	d.c.Name, d.c.Root = name, name
	// Each line stands alone: an unrelated log line gets the first-record
	// message naming the accepted keys.
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
	if d.c.Count == 0 {
		return eval.Sample{}, &Error{File: name, Line: line, Unit: read.UnitLine, Msg: "holds no sample"}
	}
	return d.got, nil
}

// DecodeLine reads the record on line of file name: the sample of a JSON
// Lines record, or the requests of an OTLP/JSON line (one
// ExportTraceServiceRequest), built as a trace file's are. Each line is
// taken once, so a trace must be whole in its line (the collector's
// groupbytrace processor): one with a span whose parent is not in the line
// is left out with an error naming it, which may come with the samples of
// the line's other traces.
func (d *LineDecoder) DecodeLine(name string, line int, b []byte) ([]eval.Sample, error) {
	t := bytes.TrimSpace(b)
	var obj map[string]any
	if bytes.HasPrefix(t, []byte("{")) && bytes.Contains(t, []byte(`"resourceSpans"`)) && int64(len(t)) <= d.c.Limit {
		var err error
		if obj, err = read.DecodeObject(t); err != nil {
			return nil, &Error{File: name, Line: line, Unit: read.UnitLine, Msg: err.Error()}
		}
	}
	if _, ok := obj["resourceSpans"]; !ok {
		s, err := d.Decode(name, line, b)
		if err != nil {
			return nil, err
		}
		return []eval.Sample{s}, nil
	}
	var out []eval.Sample
	c := &read.Collector{Name: name, Root: name, Cols: d.c.Cols, Limit: d.c.Limit, Unit: read.UnitLine, Skip: true, TraceMap: d.c.TraceMap}
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
