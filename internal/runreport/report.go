// Package runreport is a pass over a stored run (tally, worst samples,
// gate) and the reports streamed from the store after it.
package runreport

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/html"
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
	FormatHTML     = "html"
)

// Pass is a pass over a stored run: its record, the tally of its
// results, its worst samples, and which samples it saw (a run being
// evaluated gains results between two passes; the second pass writes only
// what the first counted, so the summary and the samples agree).
type Pass struct {
	Info    report.RunInfo
	Tally   *report.Tally
	Worst   *report.Worst
	Gate    *report.GateTally
	Outcome report.GateOutcome // decided once the pass is done (report.GateTally.Outcome)
	seen    indexSet
	// BaseDiff is the comparison with --baseline, its worst changed
	// samples read in full (BaseDiffErr: they could not be).
	BaseDiff     *report.RunDiff
	BaseDiffErr  error
	HTMLBaseline *html.Baseline // the run the HTML report compares with, if any
	live         *Live          // when set, made this pass: the JSON report's samples come from its spool
}

// gateWorst is how many of the samples below the per-sample thresholds a
// gate's summary names.
const gateWorst = 5

// Read reads stored run ref once, keeping only the tally and the
// worst samples.
func Read(st cache.Store, ref string, worst int) (*Pass, error) {
	return ReadGated(st, ref, worst, report.Gate{}, nil, report.Levels{})
}

// ReadGated is Read counting the samples against gate g and comparing them
// with against (when set) in the same pass. The diagnoses follow pass when
// it is not the defaults, and the record read then says so.
func ReadGated(st cache.Store, ref string, worst int, g report.Gate, against *report.Comparison, pass report.Levels) (*Pass, error) {
	info, _, _, err := st.RunPage(ref, 0, 0)
	if err != nil {
		return nil, err
	}
	if !pass.IsDefault() {
		info = pass.Record(info)
	}
	sr := &Pass{Info: info, Tally: report.NewTallyAt(info.Scored(), report.RunLevels(info)), Worst: report.NewWorst(worst), Gate: report.NewGateTally(g, gateWorst)}
	if against != nil {
		sr.Gate.Compare(against)
	}
	err = store.Each(st, info.ID, nil)(sr.add)
	sr.Outcome = sr.Gate.Outcome(sr.Tally)
	return sr, err
}

// add counts one result of the run; it never fails.
func (sr *Pass) add(r *eval.Result) error {
	sr.Tally.Add(r)
	sr.Worst.Add(r)
	sr.Gate.Add(r)
	sr.seen.add(r.Index)
	return nil
}

// Gated says the run had a gate to pass.
func (sr *Pass) Gated() bool { return sr.Gate.Gate().Active() }

// Code is the exit code of a run that ended without a fatal error:
// interrupted over a failed gate, a failed gate over failed samples.
func (sr *Pass) Code(cancelled bool) int {
	switch {
	case cancelled:
		return exit.Interrupted
	case sr.Gated() && !sr.Outcome.Passed():
		return exit.Gate
	case sr.Tally.Failed() > 0:
		return exit.Failures
	}
	return exit.OK
}

// Write streams stored run ref's report in format to w and returns the
// pass it made; its diagnoses follow pass as ReadGated's do.
func Write(st cache.Store, ref, format string, worst int, pass report.Levels, w io.Writer) (*Pass, error) {
	if format == FormatCSV {
		// One pass: a CSV has no header that needs the whole run.
		info, _, _, err := st.RunPage(ref, 0, 0)
		if err != nil {
			return nil, err
		}
		if !pass.IsDefault() {
			info = pass.Record(info)
		}
		return &Pass{Info: info}, report.WriteReportCSV(w, info.Judge.Name, info.Scored(), report.RunLevels(info), info.ConversationTurns > 0, store.Each(st, info.ID, nil))
	}
	sr, err := ReadGated(st, ref, worst, report.Gate{}, nil, pass)
	if err != nil {
		return nil, err
	}
	return sr, sr.Write(st, format, w)
}

// Write writes the report of a tallied run.
func (sr *Pass) Write(st cache.Store, format string, w io.Writer) error {
	switch format {
	case FormatJSON:
		if sr.live != nil {
			return report.WriteReportJSONEncoded(w, sr.Info, sr.Tally.Summary(), sr.Tally.Diagnoses(), sr.Tally.Conversations(), sr.live.samples)
		}
		return report.WriteReportJSON(w, sr.Info, sr.Tally.Summary(), sr.Tally.Diagnoses(), sr.Tally.Conversations(), store.Each(st, sr.Info.ID, sr.seen.has))
	case FormatCSV:
		return report.WriteReportCSV(w, sr.Info.Judge.Name, sr.Info.Scored(), report.RunLevels(sr.Info), sr.Info.ConversationTurns > 0, store.Each(st, sr.Info.ID, sr.seen.has))
	case FormatMarkdown:
		if err := report.WriteReportMarkdown(w, sr.Info, sr.Tally.Summary(), sr.Tally.Diagnoses(), sr.Worst.Samples()); err != nil {
			return err
		}
		return report.WriteConversationsMarkdown(w, sr.Info, sr.Tally.Conversations())
	case FormatJSONL:
		return report.WriteReportJSONL(w, report.RunLevels(sr.Info), store.Each(st, sr.Info.ID, sr.seen.has))
	case FormatGitHub:
		return report.WriteReportGitHub(w, sr.Info, sr.Tally.Summary(), sr.Outcome, store.Each(st, sr.Info.ID, sr.seen.has))
	case FormatHTML:
		return html.Write(w, sr.Info, sr.Tally.Summary(), sr.Tally.Diagnoses(), store.Each(st, sr.Info.ID, sr.seen.has), sr.HTMLBaseline)
	}
	return exit.Usagef("--format %q is not one of json, csv, md, github, jsonl, html", format)
}

// WriteJUnit writes the JUnit XML of a tallied run.
func (sr *Pass) WriteJUnit(st cache.Store, w io.Writer) error {
	return report.WriteReportJUnit(w, sr.Info, sr.Tally.Summary(), sr.Gate, sr.Outcome, store.Each(st, sr.Info.ID, sr.seen.has))
}

// AppendStepSummary appends the Markdown summary of the run and its gate
// to path (GitHub's $GITHUB_STEP_SUMMARY); an error names the variable.
func (sr *Pass) AppendStepSummary(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err == nil {
		var b bytes.Buffer
		if err = report.WriteReportMarkdown(&b, sr.Info, sr.Tally.Summary(), sr.Tally.Diagnoses(), nil); err == nil {
			if sr.Gated() {
				report.WriteGateMarkdown(&b, sr.Outcome)
			}
			_, err = f.Write(b.Bytes())
		}
		err = cmp.Or(err, f.Close())
	}
	if err != nil {
		return fmt.Errorf("appending the summary to $GITHUB_STEP_SUMMARY (%s): %v", path, err)
	}
	return nil
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
