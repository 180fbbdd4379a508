package app

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/ragscope/ragscope/tui"
)

// Interactive runs the session with the TUI: the same run as Headless, its
// events into the interface; --out is opened before the run starts. When
// the interface closes, an unfinished run is cancelled (finished samples
// are kept) and the summary goes to stderr.
func Interactive(ctx context.Context, s *Session, ascii bool, stderr io.Writer) (int, error) {
	// The report goes to --out only: the terminal was the interface's.
	o, err := s.openOutputs(nil)
	if err != nil {
		return 0, err
	}
	defer o.abort()
	// Asked before the interface takes the screen: nothing is sent yet.
	if err := s.AskBudget(ctx, os.Stdin, stderr); err != nil {
		return 0, err
	}
	run, err := s.Start(ctx)
	if err != nil {
		return 0, err
	}
	info := s.Info()
	var h tui.Host
	host := NewHost(s)
	if host != nil {
		h = host
	}
	err = tui.Run(ctx, tui.Options{
		Dataset: info.Dataset, Total: s.Loaded.Count, Judge: s.Judge.Info(), Metrics: s.Metrics,
		ASCII: ascii, Live: true, Started: info.StartedAt, RawCalls: RawCalls(s.Store), RawCallsJSON: RawCallsJSON(s.Store), Cancel: run.Cancel, Banner: s.Banner,
		RunID: info.ID, Host: h, Limit: s.LimitLine, Load: LoadResult(s.Store, info.ID), Pricing: info.Pricing,
	}, run.Events) // the TUI drains the events after it ends, so the runner never blocks
	run.Cancel()
	cancelled, _ := run.Wait()
	if err != nil {
		return 0, err
	}
	code, err := finishReport(run, s.Cfg, cancelled, o, stderr)
	if err != nil || code == ExitInterrupted {
		return code, err
	}
	last := run.ID
	if host != nil {
		if _, latest := host.current(); latest != "" && latest != run.ID {
			// The analyst re-ran prompts: the last re-run is what they
			// looked at when they quit, so the summary is of it.
			last = latest
			if sr, err := tallyStored(s.Store, latest, 0); err == nil {
				fmt.Fprintf(stderr, "ragscope: after re-runs, the last run is %s (its chain starts at %s):\n", latest, run.ID)
				WriteSummary(stderr, sr.info, sr.tally)
			}
		}
	}
	fmt.Fprintf(stderr, "ragscope: run %s stored; reopen it with: ragscope open %s\n", last, last)
	// The interface is for looking: failed samples were on screen; exit 3
	// is for scripts, which use --headless.
	return ExitOK, nil
}
