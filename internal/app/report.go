package app

import (
	"bytes"
	"io"
	"os"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/store"
)

// Report formats.
const (
	FormatJSON     = "json"
	FormatCSV      = "csv"
	FormatMarkdown = "md"
	FormatGitHub   = "github"
	FormatJSONL    = "jsonl"
)

// storedRun is a pass over a stored run: its record, the tally of its
// results, its worst samples, and which samples it saw (a run being
// evaluated gains results between two passes; the second pass writes only
// what the first counted, so the summary and the samples agree).
type storedRun struct {
	info  eval.RunInfo
	tally *eval.Tally
	worst *eval.Worst
	gate  *eval.GateTally
	// outcome is the gate's outcome over the pass, decided once it is
	// done, in the one place that decides it (eval.GateTally.Outcome).
	outcome eval.GateOutcome
	seen    indexSet
	// baseDiff is the comparison with --baseline, its worst changed
	// samples read in full (baseDiffErr: they could not be).
	baseDiff    *eval.RunDiff
	baseDiffErr error
}

// gateWorst is how many of the samples below the per-sample thresholds a
// gate's summary names.
const gateWorst = 5

// tallyStored reads stored run ref once, keeping only the tally and the
// worst samples.
func tallyStored(st cache.Store, ref string, worst int) (*storedRun, error) {
	return tallyGated(st, ref, worst, eval.Gate{}, nil, eval.Levels{})
}

// tallyGated is tallyStored counting the samples against gate g as well,
// and comparing them with a baseline (when against is set), in the same
// pass. The diagnoses follow the pass levels the run was recorded with,
// or pass when it is not the defaults (--pass): the record read then says
// pass, as the report written from it must.
func tallyGated(st cache.Store, ref string, worst int, g eval.Gate, against *eval.Comparison, pass eval.Levels) (*storedRun, error) {
	info, _, _, err := st.RunPage(ref, 0, 0)
	if err != nil {
		return nil, err
	}
	if !pass.IsDefault() {
		info = pass.Record(info)
	}
	sr := &storedRun{info: info, tally: eval.NewTallyAt(info.Metrics, eval.RunLevels(info)), worst: eval.NewWorst(worst), gate: eval.NewGateTally(g, gateWorst)}
	if against != nil {
		sr.gate.Compare(against)
	}
	err = store.Each(st, info.ID, nil)(func(r *eval.Result) error {
		sr.tally.Add(r)
		sr.worst.Add(r)
		sr.gate.Add(r)
		sr.seen.add(r.Index)
		return nil
	})
	sr.outcome = sr.gate.Outcome(sr.tally)
	return sr, err
}

// gated says the run had a gate to pass.
func (sr *storedRun) gated() bool { return sr.gate.Gate().Active() }

// code is the exit code of a run that ended without a fatal error:
// interrupted over a failed gate, a failed gate over failed samples.
func (sr *storedRun) code(cancelled bool) int {
	switch {
	case cancelled:
		return exit.Interrupted
	case sr.gated() && !sr.outcome.Passed():
		return exit.Gate
	case sr.tally.Failed() > 0:
		return exit.Failures
	}
	return exit.OK
}

// WriteReport writes stored run ref's report in format to w, streaming it
// from the store, and returns the pass it made (for the summary). Its
// diagnoses follow pass (--pass) when it is not the defaults, else the
// levels the run was recorded with.
func WriteReport(st cache.Store, ref, format string, worst int, pass eval.Levels, w io.Writer) (*storedRun, error) {
	if format == FormatCSV {
		// One pass: a CSV has no header that needs the whole run.
		info, _, _, err := st.RunPage(ref, 0, 0)
		if err != nil {
			return nil, err
		}
		if !pass.IsDefault() {
			info = pass.Record(info)
		}
		return &storedRun{info: info}, eval.WriteReportCSV(w, info.Judge.Name, info.Metrics, eval.RunLevels(info), store.Each(st, info.ID, nil))
	}
	sr, err := tallyGated(st, ref, worst, eval.Gate{}, nil, pass)
	if err != nil {
		return nil, err
	}
	return sr, sr.write(st, format, w)
}

// write writes the report of a tallied run.
func (sr *storedRun) write(st cache.Store, format string, w io.Writer) error {
	switch format {
	case FormatJSON:
		return eval.WriteReportJSON(w, sr.info, sr.tally.Summary(), sr.tally.Diagnoses(), store.Each(st, sr.info.ID, sr.seen.has))
	case FormatCSV:
		return eval.WriteReportCSV(w, sr.info.Judge.Name, sr.info.Metrics, eval.RunLevels(sr.info), store.Each(st, sr.info.ID, sr.seen.has))
	case FormatMarkdown:
		return eval.WriteReportMarkdown(w, sr.info, sr.tally.Summary(), sr.tally.Diagnoses(), sr.worst.Samples())
	case FormatJSONL:
		return eval.WriteReportJSONL(w, eval.RunLevels(sr.info), store.Each(st, sr.info.ID, sr.seen.has))
	case FormatGitHub:
		return eval.WriteReportGitHub(w, sr.info, sr.tally.Summary(), sr.outcome, store.Each(st, sr.info.ID, sr.seen.has))
	}
	return exit.Usagef("--format %q is not one of json, csv, md, github, jsonl", format)
}

// writeJUnit writes the JUnit XML of a tallied run.
func (sr *storedRun) writeJUnit(st cache.Store, w io.Writer) error {
	return eval.WriteReportJUnit(w, sr.info, sr.tally.Summary(), sr.gate, sr.outcome, store.Each(st, sr.info.ID, sr.seen.has))
}

// AppendStepSummary appends the Markdown summary of the run and its gate
// to path (GitHub's $GITHUB_STEP_SUMMARY).
func (sr *storedRun) AppendStepSummary(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := eval.WriteReportMarkdown(&b, sr.info, sr.tally.Summary(), sr.tally.Diagnoses(), nil); err != nil {
		f.Close()
		return err
	}
	if sr.gated() {
		eval.WriteGateMarkdown(&b, sr.outcome)
	}
	_, err = f.Write(b.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// indexSet is a set of sample indexes: one bit per sample.
type indexSet struct{ bits []uint64 }

func (s *indexSet) add(i int) {
	if i < 0 {
		return
	}
	for i/64 >= len(s.bits) {
		s.bits = append(s.bits, make([]uint64, len(s.bits)+1)...)
	}
	s.bits[i/64] |= 1 << (i % 64)
}

func (s *indexSet) has(i int) bool {
	return i >= 0 && i/64 < len(s.bits) && s.bits[i/64]&(1<<(i%64)) != 0
}
