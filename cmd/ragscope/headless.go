package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ragscope/ragscope/eval"
)

// progressEvery throttles headless progress lines: enough to see a run is
// alive in a CI log without flooding it.
const progressEvery = 2 * time.Second

func (s *session) runHeadless(ctx context.Context, stdout, stderr io.Writer) (int, error) {
	// Open the report file first: a typo in --out must not cost a whole run.
	var out io.Writer = stdout
	if s.f.out != "" {
		fh, err := os.Create(s.f.out)
		if err != nil {
			return 0, errorf("--out: %v", err)
		}
		defer fh.Close()
		out = fh
	}
	fmt.Fprintf(stderr, "ragscope: %s: %d samples, metrics %s\n", s.run.Dataset, len(s.loaded.Samples), joinMetrics(s.metrics))
	fmt.Fprintf(stderr, "ragscope: %s\n", s.banner)
	fmt.Fprintf(stderr, "ragscope: run %s (db %s)\n", s.run.ID, s.dbPath())
	if len(s.done) > 0 {
		fmt.Fprintf(stderr, "ragscope: resuming: %d of %d samples already finished\n", len(s.done), len(s.loaded.Samples))
	}
	if s.db != nil {
		if err := s.db.PutRun(s.run); err != nil {
			return 0, fmt.Errorf("recording the run: %v", err)
		}
	}
	events := make(chan eval.Event, 256)
	r := s.runner(events)
	start := time.Now()
	resultsCh := make(chan []*eval.Result, 1)
	go func() { resultsCh <- r.Run(ctx, s.loaded.Samples) }()

	done, total := 0, len(s.loaded.Samples)
	last := time.Now()
	for ev := range events {
		switch ev.Kind {
		case eval.EventSampleFinished:
			done++
		case eval.EventError, eval.EventRetry:
			s.logEvent(ev)
		}
		if time.Since(last) >= progressEvery && ev.Kind == eval.EventSampleFinished {
			last = time.Now()
			fmt.Fprintln(stderr, s.progressLine(r, done, total, start, ev.InFlight))
		}
	}
	results := <-resultsCh
	cancelled := r.Cancelled()
	s.finish(r, cancelled)
	fmt.Fprintln(stderr, s.progressLine(r, done, total, start, 0))

	rep := eval.NewReport(s.run, results)
	writeSummary(stderr, rep)
	if err := rep.WriteJSON(out); err != nil {
		return 0, fmt.Errorf("writing the report: %v", err)
	}
	if s.f.out != "" {
		fmt.Fprintf(stderr, "ragscope: report written to %s\n", s.f.out)
	}
	switch {
	case cancelled:
		fmt.Fprintf(stderr, "ragscope: interrupted; finished samples are kept — continue with: ragscope run --resume %s\n", s.run.ID)
		return exitInterrupted, nil
	case anyFailed(rep):
		return exitFailures, nil
	}
	return exitOK, nil
}

func (s *session) dbPath() string {
	if s.db == nil {
		return "none"
	}
	return s.db.Path()
}

func (s *session) progressLine(r *eval.Runner, done, total int, start time.Time, inFlight int) string {
	calls, tok := r.Counts()
	el := time.Since(start)
	eta := "-"
	if done > 0 && done < total {
		eta = (time.Duration(float64(el) / float64(done) * float64(total-done))).Round(time.Second).String()
	}
	pct := 100 * done / max(total, 1)
	return fmt.Sprintf("ragscope: [%d/%d] %3d%%  calls %d  cache hits %d (%.0f%%)  in flight %d  retries %d  errors %d  tokens %d  elapsed %s  eta %s",
		done, total, pct, calls.Sent(), calls.CacheHits, calls.HitRate(), inFlight, calls.Retries, calls.Errors,
		tok.PromptTokens+tok.CompletionTokens, el.Round(time.Millisecond), eta)
}

// writeSummary prints the per-metric table: mean, how many scored and how
// many did not, and why.
func writeSummary(w io.Writer, rep *eval.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tmean\tscored\tn/a\tfailed\twhy")
	for _, m := range rep.Run.Metrics {
		ms := rep.Summary[m]
		mean := "n/a"
		if ms.Mean != nil {
			mean = fmt.Sprintf("%.3f", *ms.Mean)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", m, mean, ms.Scored, ms.NotApplicable, ms.Failed, ms.Why())
	}
	tw.Flush()
	diag := eval.CountDiagnoses(rep.Samples)
	var parts []string
	for _, d := range eval.Diagnoses {
		parts = append(parts, fmt.Sprintf("%s %d", d, diag[d]))
	}
	fmt.Fprintf(w, "diagnosis: %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(w, "judge: %s\n", rep.Run.Judge.Name)
}

func anyFailed(rep *eval.Report) bool {
	for _, r := range rep.Samples {
		if r.Failed() {
			return true
		}
	}
	return false
}

func joinMetrics(ms []eval.Metric) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = string(m)
	}
	return strings.Join(parts, ",")
}
