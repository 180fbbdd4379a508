package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// Reading a JSON report back (a --baseline file) as a stream, a sample at
// a time, so that a report of any size is read in the memory of its
// largest sample (at most maxReportSampleBytes).

// maxReportSampleBytes bounds one sample of a report read back: a sample
// carries its texts, every judgement and its calls, well under this.
const maxReportSampleBytes = 64 << 20

// maxSampleBytes is MaxReportSampleBytes; tests lower it.
var maxSampleBytes int64 = maxReportSampleBytes

// ReadReport reads a JSON report from r: its run record, and each sample
// in turn with its position in "samples": in full where full says so, else
// only what a comparison keeps (the decoder skips the rest). Every sample
// is checked (an index, known statuses, a score exactly with ok, in its
// range), and an error says where and what is wrong.
func ReadReport(r io.Reader, full func(pos int) bool, each func(pos int, res *eval.Result) error) (RunInfo, error) {
	lim := &limitedReader{r: bufio.NewReaderSize(r, 64<<10)}
	dec := json.NewDecoder(lim)
	dec.UseNumber()
	var info RunInfo
	at := func(err error) error {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, errSampleTooLarge) {
			return notReport(err, dec, lim)
		}
		return fmt.Errorf("at byte %d: %v", dec.InputOffset(), err)
	}
	tok, err := dec.Token()
	if err != nil {
		return info, notReport(err, dec, lim)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return info, fmt.Errorf("not a JSON report: it does not start with an object; write one with ragscope run --headless --out FILE, or ragscope report RUN --format json")
	}
	var version, haveRun, haveSamples bool
	for dec.More() {
		lim.mark(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return info, notReport(err, dec, lim)
		}
		key, _ := tok.(string)
		lim.mark(dec.InputOffset())
		switch key {
		case "version":
			var v json.Number
			if err := dec.Decode(&v); err != nil {
				return info, at(fmt.Errorf("\"version\" is not a number: %w", err))
			}
			if n, err := v.Int64(); err != nil || n != reportVersion {
				return info, at(fmt.Errorf("report version %s; this ragscope reads version %d (write the baseline again with this version)", v, reportVersion))
			}
			version = true
		case "run":
			if err := dec.Decode(&info); err != nil {
				return info, at(fmt.Errorf("\"run\" is not a run record: %w", err))
			}
			for _, m := range info.Metrics {
				if !slices.Contains(eval.AllMetrics, m) {
					return info, at(fmt.Errorf("\"run\" lists metric %q, not one ragscope knows", m))
				}
			}
			haveRun = true
		case "samples":
			if err := readSamples(dec, lim, full, each, eval.Scored(nil, info.Criteria.Names())); err != nil {
				return info, err
			}
			haveSamples = true
		case "index", "scores", "question":
			return info, fmt.Errorf("not a JSON report: it is one sample (a --format jsonl line?); write the baseline with --format json")
		default:
			// summary, diagnoses and what later versions add: the samples
			// are the baseline, their aggregates are recomputed.
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return info, notReport(err, dec, lim)
			}
		}
	}
	lim.mark(dec.InputOffset())
	if _, err := dec.Token(); err != nil {
		return info, notReport(err, dec, lim)
	}
	if _, err := dec.Token(); err != io.EOF {
		return info, at(errors.New("more data after the report's object"))
	}
	switch {
	case !version:
		return info, errors.New(`no "version": not a ragscope JSON report`)
	case !haveRun:
		return info, errors.New(`no "run" record: not a ragscope JSON report`)
	case !haveSamples:
		return info, errors.New(`no "samples": not a ragscope JSON report`)
	}
	return info, nil
}

// reportSampleHead is what a comparison reads of a sample: the judgements
// and calls are skipped by the decoder.
type reportSampleHead struct {
	Index     *int                        `json:"index"`
	ID        string                      `json:"id"`
	Question  string                      `json:"question"`
	Answer    string                      `json:"answer"`
	Contexts  []string                    `json:"contexts"`
	Reference string                      `json:"reference"`
	Scores    map[eval.Metric]*float64    `json:"scores"`
	Status    map[eval.Metric]eval.Status `json:"status"`
}

type reportSampleFull struct {
	*eval.Result
	Index *int `json:"index"`
}

func readSamples(dec *json.Decoder, lim *limitedReader, full func(int) bool, each func(int, *eval.Result) error, criteria []eval.Metric) error {
	tok, err := dec.Token()
	if err != nil {
		return notReport(err, dec, lim)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("at byte %d: \"samples\" is not an array", dec.InputOffset())
	}
	for pos := 0; dec.More(); pos++ {
		start := dec.InputOffset()
		lim.mark(start)
		var r *eval.Result
		var index *int
		if full != nil && full(pos) {
			f := reportSampleFull{Result: &eval.Result{}}
			err = dec.Decode(&f)
			r, index = f.Result, f.Index
		} else {
			var h reportSampleHead
			err = dec.Decode(&h)
			r = &eval.Result{ID: h.ID, Question: h.Question, Answer: h.Answer, Contexts: h.Contexts, Reference: h.Reference, Scores: h.Scores, Status: h.Status}
			index = h.Index
		}
		where := fmt.Sprintf("sample %d of \"samples\" (byte %d)", pos+1, start)
		if err != nil {
			if errors.Is(err, errSampleTooLarge) {
				return fmt.Errorf("%s: larger than %d MiB", where, maxSampleBytes>>20)
			}
			return fmt.Errorf("%s: %v", where, notReport(err, dec, lim))
		}
		if index == nil {
			return fmt.Errorf("%s: no \"index\"", where)
		}
		if *index < 0 || *index > math.MaxInt32 {
			return fmt.Errorf("%s: \"index\" %d is not a sample index", where, *index)
		}
		r.Index = *index
		if err := checkReportSample(r, criteria); err != nil {
			return fmt.Errorf("%s, index %d: %v", where, r.Index, err)
		}
		if err := each(pos, r); err != nil {
			return err
		}
	}
	lim.mark(dec.InputOffset())
	_, err = dec.Token() // ]
	if err != nil {
		return notReport(err, dec, lim)
	}
	return nil
}

// statusNames are the statuses a report may hold.
func statusNames() []string {
	var out []string
	for _, st := range statusCodes[1:] {
		out = append(out, string(st))
	}
	return out
}

// checkReportSample refuses what a report of ours never holds: a metric
// or status we do not know (neither a metric nor one of the run's
// criteria), a score without the ok status or the ok status without a
// score, a score out of its metric's range.
func checkReportSample(r *eval.Result, criteria []eval.Metric) error {
	known := func(m eval.Metric) bool { return slices.Contains(eval.AllMetrics, m) || slices.Contains(criteria, m) }
	for m, st := range r.Status {
		if !known(m) {
			return fmt.Errorf("\"status\" has metric %q, not one ragscope knows", m)
		}
		if !slices.Contains(statusCodes[1:], st) {
			return fmt.Errorf("status %q of %s is not a status (%s)", st, m, strings.Join(statusNames(), ", "))
		}
	}
	for m, v := range r.Scores {
		if !known(m) {
			return fmt.Errorf("\"scores\" has metric %q, not one ragscope knows", m)
		}
		st := r.Status[m]
		switch {
		case v == nil: // with status ok: below
		case st != eval.StatusOK:
			return fmt.Errorf("%s has a score (%g) but status %q; only ok carries a score", m, *v, st)
		case math.IsNaN(*v) || *v > 1 || *v < 0 && (m != eval.AnswerRelevancy || *v < -1):
			return fmt.Errorf("%s score %g is out of its range", m, *v)
		}
	}
	for m, st := range r.Status {
		if st == eval.StatusOK && r.Scores[m] == nil {
			return fmt.Errorf("%s has status ok and no score", m)
		}
	}
	return nil
}

// notReport words a decoding error of a report.
func notReport(err error, dec *json.Decoder, lim *limitedReader) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, errSampleTooLarge):
		return fmt.Errorf("at byte %d: a value larger than %d MiB", dec.InputOffset(), maxSampleBytes>>20)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		// At its end the reader has read it all: its size.
		return fmt.Errorf("the file ends at byte %d in the middle of the report (truncated?)", lim.read)
	case errors.As(err, &syn):
		return fmt.Errorf("not valid JSON at byte %d: %v", syn.Offset, err)
	case errors.As(err, &typ):
		return fmt.Errorf("at byte %d: %q has the wrong type: %v", typ.Offset, typ.Field, err)
	}
	return err
}

var errSampleTooLarge = errors.New("a report value is larger than the limit")

// limitedReader fails a read that would take one value (from the last
// mark) past MaxReportSampleBytes, so that a file of one huge value is
// refused rather than read into memory.
type limitedReader struct {
	r    io.Reader
	read int64
	from int64
}

func (l *limitedReader) mark(offset int64) { l.from = offset }

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.read-l.from > maxSampleBytes {
		return 0, errSampleTooLarge
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	return n, err
}
