package app

import (
	"context"
	"fmt"
	"io"

	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/labels"
	"github.com/ragscope/ragscope/internal/runreport"
	"github.com/ragscope/ragscope/tui"
)

// Interactive runs the session with the TUI: the same run as Headless, its
// events into the interface; --out is opened before the run starts. When
// the interface closes, an unfinished run is cancelled (finished samples
// are kept) and the summary goes to stderr.
func Interactive(ctx context.Context, s *Session, ascii bool, stderr io.Writer) (int, error) {
	// The report goes to --out only: the terminal was the interface's.
	o, err := s.OpenOutputs(nil)
	if err != nil {
		return 0, err
	}
	defer o.Abort()
	info := s.Info()
	h := SessionHost(s)
	host, _ := h.(*Host)
	opts := tui.Options{
		Dataset: info.Dataset, Total: s.Total(), Judge: s.Judge.Info(), Metrics: s.Metrics,
		ASCII: ascii, Live: true, RawCalls: RawCalls(s.Store), RawCallsJSON: RawCallsJSON(s.Store), Banner: s.Banner,
		RunID: info.ID, Host: h, Limit: s.LimitLine, Load: LoadResult(s.Store, info.ID), Pricing: info.Pricing,
		Labels: labels.Host{Store: s.Store, By: labels.Labeller()}, Levels: s.Cfg.Parsed.Levels.WithCriteria(info.Criteria),
		Criteria: info.Criteria.Names(), CriteriaPass: info.Criteria.Passes(),
	}
	run, err := s.interactiveRun(ctx, opts)
	if run == nil {
		return 0, err
	}
	run.Cancel()
	cancelled, _ := run.Wait()
	if err != nil {
		return 0, err
	}
	code, err := finishReport(run, s.Cfg, cancelled, o, stderr)
	if err != nil || code == exit.Interrupted {
		return code, err
	}
	last := run.ID
	if host != nil {
		if _, latest := host.current(); latest != "" && latest != run.ID {
			// The analyst re-ran prompts: the last re-run is what they
			// looked at when they quit, so the summary is of it.
			last = latest
			if sr, err := runreport.Read(s.Store, latest, 0); err == nil {
				fmt.Fprintf(stderr, "ragscope: after re-runs, the last run is %s (its chain starts at %s):\n", latest, run.ID)
				WriteSummary(stderr, sr.Info, sr.Tally)
			}
		}
	}
	fmt.Fprintf(stderr, "ragscope: run %s stored; reopen it with: ragscope open %s\n", last, last)
	// The interface is for looking: failed samples were on screen; exit 3
	// is for scripts, which use --headless.
	return exit.OK, nil
}

// interactiveRun starts the run and shows it until the interface closes;
// the run is nil when none started. Under --confirm-over the interface
// opens first and asks, on its cost page, before the run is recorded
// (firstRun): the question belongs to the interface, which can show the
// estimate per metric, rather than to a prompt on the terminal before it.
func (s *Session) interactiveRun(ctx context.Context, opts tui.Options) (*Run, error) {
	if s.Cfg.ConfirmOver <= 0 {
		run, err := s.Start(ctx)
		if err != nil {
			return nil, err
		}
		opts.Started, opts.Cancel = s.Info().AttemptStart(), run.Cancel
		// The TUI drains the events after it ends, so the runner never blocks.
		return run, tui.Run(ctx, opts, run.Events)
	}
	fr := &firstRun{s: s}
	opts.First = fr.options()
	err := tui.Run(ctx, opts, nil)
	run, startErr := fr.close()
	switch {
	case run != nil:
		// Started by a command whose reply the program may not have read
		// before it ended: then no one else reads the stream.
		go func() {
			for range run.Events {
			}
		}()
	case err == nil && startErr != nil:
		err = startErr
	case err == nil:
		err = errNotStarted(s.Cfg.ConfirmOver)
	}
	return run, err
}
