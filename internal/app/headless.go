package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/baseline"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/outfile"
	"github.com/ragscope/ragscope/internal/runreport"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// progressEvery throttles headless progress lines: enough to see a run is
// alive in a CI log without flooding it.
var progressEvery = 2 * time.Second

// Outputs are the files a run writes when it ends, checked before it
// starts (a typo in a path must not cost a whole run) and created when it
// ends (a process killed meanwhile leaves nothing beside them), each
// complete or absent.
type Outputs struct {
	out              io.Writer            // the report in --format: stdout headless; nil: none, or --out
	fh               *outfile.File        // --out, once created
	junit            *outfile.File        // --junit, once created
	outRes, junitRes *outfile.Reservation // --out and --junit until they are created
	baseline         *baseline.Baseline   // compared with when the run ends
	live             *runreport.Live      // a headless run's pass as it went, which Finish takes when set
}

// OpenOutputs reserves --out and --junit; stdout is where the report goes
// without --out (nil: nowhere).
func (s *Session) OpenOutputs(stdout io.Writer) (*Outputs, error) {
	o := &Outputs{out: stdout, baseline: s.baseline}
	var err error
	if s.Cfg.Out != "" {
		if o.outRes, err = outfile.Reserve(s.Cfg.Out); err != nil {
			return nil, exit.Usagef("--out: %v", err)
		}
		o.out = nil
	}
	if s.Cfg.JUnit != "" {
		if o.junitRes, err = outfile.Reserve(s.Cfg.JUnit); err != nil {
			o.Abort()
			return nil, exit.Usagef("--junit: %v", err)
		}
	}
	return o, nil
}

// create creates the reserved files, when the run has ended.
func (o *Outputs) create() (err error) {
	if o.outRes != nil {
		if o.fh, err = o.outRes.Create(); err != nil {
			return fmt.Errorf("--out: %v", err)
		}
		o.out, o.outRes = o.fh, nil
	}
	if o.junitRes != nil {
		if o.junit, err = o.junitRes.Create(); err != nil {
			return fmt.Errorf("--junit: %v", err)
		}
		o.junitRes = nil
	}
	return nil
}

// Abort discards what was not committed.
func (o *Outputs) Abort() {
	o.outRes.Release()
	o.junitRes.Release()
	o.fh.Abort()
	o.junit.Abort()
	o.live.Close() // nil: none
}

// Finish is the one end of every run's outputs: one pass over the stored
// run, then the report, the JUnit file and the step summary. info, when
// set, is the stamped record. The first error is reading the run back, the
// second writing an output.
func (o *Outputs) Finish(st cache.Store, id string, info *report.RunInfo, cfg *Config) (*runreport.Pass, error, error) {
	g := cfg.Parsed.Gate
	var sr *runreport.Pass
	var against *report.Comparison
	if o.live != nil && info != nil {
		sr = o.live.Pass(*info)
	}
	if sr != nil {
		if liveUsed != nil {
			liveUsed()
		}
		against = sr.Gate.Comparison()
	} else {
		if o.baseline != nil {
			against = o.baseline.Comparison(st, g.Baseline)
		}
		var err error
		if sr, err = runreport.ReadGated(st, id, 0, g, against, report.Levels{}); err != nil {
			return nil, err, nil
		}
		if info != nil {
			sr.Info = *info
		}
	}
	if against != nil && against.Err() == nil {
		sr.BaseDiff, sr.BaseDiffErr = o.baseline.Diff(st, id, against)
	}
	format := cmp.Or(cfg.Format, runreport.FormatJSON)
	if err := o.create(); err != nil {
		return sr, nil, fmt.Errorf("writing the report: %v; the run is stored: write it again with ragscope report %s --out FILE", err, id)
	}
	if format == runreport.FormatHTML && against != nil && against.Err() == nil {
		var err error
		if sr.HTMLBaseline, err = o.baseline.HTML(st); err != nil {
			return sr, nil, fmt.Errorf("writing the report: comparing with the baseline: %v; the run is stored: write it again with ragscope diff BASELINE %s --format html", err, id)
		}
	}
	var werr error
	if o.out != nil {
		werr = sr.Write(st, format, o.out)
		if werr == nil && o.fh != nil {
			werr = o.fh.Commit()
		}
		if werr != nil {
			werr = fmt.Errorf("writing the report: %v; the run is stored: write it again with ragscope report %s --out FILE", werr, id)
		}
	}
	if o.junit != nil && werr == nil {
		werr = sr.WriteJUnit(st, o.junit)
		if werr == nil {
			werr = o.junit.Commit()
		}
		if werr != nil {
			werr = fmt.Errorf("writing --junit %s: %v", o.junit.Path(), werr)
		}
	}
	if format == runreport.FormatGitHub && cfg.StepSummary != "" && werr == nil {
		werr = sr.AppendStepSummary(cfg.StepSummary)
	}
	return sr, nil, werr
}

// Headless runs the session without the TUI: progress and the summary on
// stderr, the report (--format, JSON by default) to --out or stdout, the
// JUnit file to --junit. It returns the exit code.
func Headless(ctx context.Context, s *Session, stdout, stderr io.Writer) (int, error) {
	o, err := s.OpenOutputs(stdout)
	if err != nil {
		return 0, err
	}
	defer o.Abort()
	info := s.Info()
	crit := ""
	if s.Criteria != nil {
		crit = ", criteria " + strings.Join(s.Criteria.Names(), ",")
	}
	fmt.Fprintf(stderr, "ragscope: %s: %s samples, metrics %s%s\n", info.Dataset, info.SamplesText(), joinMetrics(s.Metrics), crit)
	fmt.Fprintf(stderr, "ragscope: %s\n", s.Banner)
	fmt.Fprintf(stderr, "ragscope: run %s (db %s)\n", info.ID, s.Store.Path())
	if n := s.resumed; n > 0 {
		fmt.Fprintf(stderr, "ragscope: resuming: %d of %d samples already finished\n", n, s.Total())
	}
	o.live = s.livePass(o)
	start := time.Now()
	run, err := s.Start(ctx)
	if err != nil {
		return 0, err
	}
	prog := progress{total: s.Total(), start: start}
	last := time.Now()
	// A throttled endpoint finishes no sample for a while: the ticker
	// says so rather than leaving a CI log silent.
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	printed := -1 // the count last printed: the end is not said twice
	show := func() {
		if prog.done+prog.stopped == printed && s.LimitLine() == "" {
			return
		}
		printed = prog.done + prog.stopped
		fmt.Fprintln(stderr, prog.line(run))
		if l := s.LimitLine(); l != "" {
			fmt.Fprintln(stderr, "ragscope:", l)
		}
	}
	for events := run.Events; events != nil; {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			prog.observe(&ev)
			if ev.Kind == eval.EventSampleFinished && o.live != nil {
				o.live.Add(ev.Result)
			}
			if ev.Kind == eval.EventNotice {
				fmt.Fprintln(stderr, "ragscope:", sanitize.Line(ev.Err))
			}
			if ev.Kind != eval.EventSampleFinished || ev.Result == nil {
				continue
			}
		case <-tick.C:
		}
		if time.Since(last) < progressEvery {
			continue
		}
		last = time.Now()
		show()
	}
	prog.inFlight = 0
	show()
	cancelled, _ := run.Wait()
	if run.Stopped() != nil {
		// A result that could not be stored was still given to the
		// events: the report is what the store holds.
		o.live.Close()
		o.live = nil
	}
	return finishReport(run, s.Cfg, cancelled, o, stderr)
}

// liveUsed, when set, is told that Finish took the live pass (a test's
// hook: the report must be the same either way).
var liveUsed func()

// livePass starts the pass a headless run makes over its results as they
// come (see runreport.Live), its spool beside the database; nil when the
// spool cannot be made there (the report is then read from the store).
func (s *Session) livePass(o *Outputs) *runreport.Live {
	if o.baseline != nil {
		// The comparison's sums and its listed samples follow the order
		// the results come in: read in the samples' order, from the store.
		return nil
	}
	l, _ := runreport.NewLive(s.Info(), s.Cfg.Parsed.Gate, filepath.Dir(s.Store.Path()))
	return l
}

// finishReport writes the outputs and the summary of a finished run and
// says how it ended; it returns the exit code: 1 (fatal) and 130
// (interrupted) over 4 (gate), 4 over 3 (failed samples).
func finishReport(run *Run, cfg *Config, cancelled bool, o *Outputs, stderr io.Writer) (int, error) {
	// The outputs stream from the store: what is written is what is
	// stored, and nothing of the run is held in memory.
	info := run.Info()
	e, err, werr := o.Finish(run.store, run.ID, &info, cfg)
	if err != nil {
		return exit.Fatal, fmt.Errorf("reading run %s back from the database: %v", run.ID, err)
	}
	WriteSummary(stderr, e.Info, e.Tally)
	if c := e.Gate.Comparison(); c != nil {
		o.baseline.Write(stderr, c, e.BaseDiff, e.BaseDiffErr)
	}
	if e.Gated() {
		WriteGateSummary(stderr, e.Outcome, cancelled)
	}
	if werr == nil && o.fh != nil {
		fmt.Fprintf(stderr, "ragscope: report written to %s\n", o.fh.Path())
	}
	if werr == nil && o.junit != nil {
		fmt.Fprintf(stderr, "ragscope: JUnit report written to %s\n", o.junit.Path())
	}
	if why := run.Stopped(); why != nil {
		if werr != nil {
			fmt.Fprintln(stderr, "ragscope:", werr)
		}
		msg := stoppedText(why)
		var changed *dataset.ChangedError
		if errors.As(why, &changed) {
			// --resume refuses a changed dataset: say what does work.
			return exit.Fatal, fmt.Errorf("the run stopped: %s\nthe samples evaluated before are kept in run %s", msg, run.ID)
		}
		return exit.Fatal, fmt.Errorf("the run stopped: %s\nfinished samples are kept; when this is fixed, continue with: ragscope run --resume %s", msg, run.ID)
	}
	if werr != nil {
		return exit.Fatal, werr
	}
	code := e.Code(cancelled)
	switch code {
	case exit.Interrupted:
		fmt.Fprintf(stderr, "ragscope: interrupted; finished samples are kept — continue with: ragscope run --resume %s\n", run.ID)
	case exit.Gate:
		if f := e.Tally.Failed(); f > 0 {
			fmt.Fprintf(stderr, "ragscope: %d samples also failed to score (exit 4, the gate, is said over 3)\n", f)
		}
	}
	return code, nil
}

// stoppedText is why a run stopped, naming the endpoint when the error
// does not.
func stoppedText(why error) string {
	msg := why.Error()
	if f := endpoint.Classify(why); f.Endpoint != "" && !strings.Contains(msg, f.Endpoint) {
		msg += " (endpoint " + f.Endpoint + ")"
	}
	return msg
}

// WriteGateSummary says how the gate ended: each breached check and each
// one that could not be made, and the worst samples below the per-sample
// thresholds with their evidence.
func WriteGateSummary(w io.Writer, o report.GateOutcome, interrupted bool) {
	state := "passed"
	if !o.Passed() {
		state = "FAILED (exit 4)"
	}
	if interrupted {
		state += " over the samples finished before the interruption"
	}
	fmt.Fprintf(w, "gate: %s\n", state)
	for _, c := range o.Checks {
		fmt.Fprintf(w, "  %s: %s\n", c.State, c.Message)
	}
	if lines := o.WorstLines(); len(lines) > 0 {
		fmt.Fprintln(w, "worst samples below the per-sample thresholds:")
		for _, l := range lines {
			fmt.Fprintf(w, "  %s\n", sanitize.Line(clip(l, 300)))
		}
	}
}

// progress is the headless progress line's state.
type progress struct {
	total, done, stopped int
	inFlight             int
	start                time.Time
	// pace is the run's pace for the ETA (report.Pace: from each sample's
	// own start and finish, so the first samples, which all wait for
	// their statements before their verdicts, do not stretch it).
	pace report.Pace
}

// observe counts one event of the run.
func (p *progress) observe(ev *eval.Event) {
	p.inFlight = ev.InFlight
	p.pace.Observe(ev)
	switch {
	case ev.Kind != eval.EventSampleFinished || ev.Result == nil:
	case ev.Result.Interrupted():
		// Cut short by the run's stop: not progress (--resume evaluates
		// it again), and not a judge's error either.
		p.stopped++
	default:
		p.done++
	}
}

func (p *progress) eta() string {
	left := p.total - p.done - p.stopped
	d, ok := p.pace.ETA(left)
	if left <= 0 || !ok {
		return "-"
	}
	return d.Round(time.Second).String()
}

func (p *progress) line(r *Run) string {
	calls, tok := r.Counts()
	pct := 100 * p.done / max(p.total, 1)
	stopped := ""
	if p.stopped > 0 {
		stopped = fmt.Sprintf("  cancelled %d", p.stopped)
	}
	return fmt.Sprintf("ragscope: [%d/%d] %3d%%%s  calls %d  cache hits %d (%.0f%%)  in flight %d  retries %d  errors %d  tokens %d  elapsed %s  eta %s",
		p.done, p.total, pct, stopped, calls.Sent(), calls.CacheHits, calls.HitRate(), p.inFlight, calls.Retries, calls.Errors,
		tok.PromptTokens+tok.CompletionTokens, time.Since(p.start).Round(time.Millisecond), p.eta())
}

// WriteSummary prints the per-metric table: mean, how many scored and how
// many did not, and why.
func WriteSummary(w io.Writer, info report.RunInfo, t *report.Tally) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tmean\tscored\tn/a\tfailed\tsent\tcached\ttokens\tcost\twhy")
	summary := t.Summary()
	for _, m := range info.Scored() {
		ms := summary[m]
		mean := "n/a"
		if ms.Mean != nil {
			mean = fmt.Sprintf("%.3f", *ms.Mean)
		}
		u := info.Usage[m]
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", m, mean, ms.Scored, ms.NotApplicable, ms.Failed,
			u.Sent(), u.CacheHits, u.PromptTokens+u.CompletionTokens, info.MetricCostText(m), ms.Why())
	}
	tw.Flush()
	failed := ""
	if info.Calls.Errors > 0 {
		// Failed calls are no calls sent, yet a reply cut at the token
		// limit is billed: its tokens are in the figures that follow.
		failed = fmt.Sprintf(", %d failed", info.Calls.Errors)
	}
	fmt.Fprintf(w, "cost: %s; %d calls sent%s, %d cache hits, tokens %d prompt + %d completion\n", sanitize.Line(info.CostSentence()),
		info.Calls.Sent(), failed, info.Calls.CacheHits, info.Tokens.PromptTokens, info.Tokens.CompletionTokens)
	diag := t.Diagnoses()
	var parts []string
	for _, d := range report.DiagnosesAt(report.RunLevels(info)) {
		parts = append(parts, fmt.Sprintf("%s %d", d, diag[d]))
	}
	fmt.Fprintf(w, "diagnosis: %s\n", strings.Join(parts, ", "))
	if l := report.RunLevels(info); !l.IsDefault() {
		fmt.Fprintf(w, "pass levels: %s\n", l.Describe())
	}
	fmt.Fprintf(w, "judge: %s\n", info.Judge.Name)
	if top := t.TopErrors(3); len(top) > 0 {
		fmt.Fprintln(w, "most frequent failures:")
		for _, e := range top {
			fmt.Fprintf(w, "  %d× %s\n", e.Count, clip(e.Message, 300))
		}
	}
}

// clip shortens a message for a summary line.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "..."
}
