package app

import (
	"context"
	"fmt"
	"io"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/labels"
	"github.com/ragscope/ragscope/internal/live"
	"github.com/ragscope/ragscope/internal/store"
	"github.com/ragscope/ragscope/tui"
)

// Show opens a run in the TUI: a stored run as it is, a run that another
// process or the server is evaluating live, through the same event path as
// a run of our own. q leaves a live run going; the server's runs can be
// stopped from the interface (X). With follow set it is a watcher's screen
// (ragscope watch) on the run its results go to, with the lag and the
// alerts follow tells.
//
// The diagnosis, the score colours and the marks follow pass (--pass) when
// it is not the defaults, else the pass levels the run was recorded with.
func Show(ctx context.Context, st *store.Shared, ref string, ascii bool, pass report.Levels, follow func() report.WatchStatus, stderr io.Writer) (int, error) {
	// The record alone: the results are read page by page by the table
	// (a run of a million samples is never in memory at once).
	info, _, _, err := st.RunPage(ref, 0, 0)
	if err != nil {
		return 0, exit.UsageError{Err: err}
	}
	running, err := st.Live()
	if err != nil {
		return 0, err
	}
	lr, isLive := running[info.ID]
	opts := tui.Options{
		Dataset: info.Dataset, Total: info.Samples, Judge: info.Judge, Metrics: info.Metrics, ASCII: ascii,
		Started: info.StartedAt, RawCalls: RawCalls(st), RawCallsJSON: RawCallsJSON(st), RunID: info.ID, Host: StoredHost{Store: st, Run: info},
		Load: LoadResult(st, info.ID), Pricing: info.Pricing, Labels: labels.Host{Store: st, By: labels.Labeller()},
		Watch: follow, Limit: st.HolderNote, Levels: report.RunLevels(info),
		Criteria: info.Criteria.Names(), CriteriaPass: info.Criteria.Passes(),
	}
	if !pass.IsDefault() {
		opts.Levels = pass.WithCriteria(info.Criteria)
	}
	var events <-chan eval.Event
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if isLive {
		opts.Live, opts.Attached = true, true
		opts.Banner = fmt.Sprintf("live run %s, evaluated by pid %d (ragscope %s); q leaves it running", info.ID, lr.PID, lr.Role)
		if follow != nil {
			opts.Banner = fmt.Sprintf("watching: results go to run %s; q stops watching (records not evaluated yet are taken up by the next watch)", info.ID)
			opts.QuitHelp = "stop watching"
		}
		if cl := st.Client(); cl != nil && lr.Role == "serve" {
			opts.Banner += ", X stops it"
			id := info.ID
			opts.Cancel = func() { _ = cl.Stop(id) }
		}
		if lr.Role == "watch" && follow == nil {
			// Another process's watcher: the follow screen, without its lag.
			fs := report.WatchStatus{RunID: info.ID, Elsewhere: fmt.Sprintf("pid %d", lr.PID)}
			opts.Watch = func() report.WatchStatus { return fs }
		}
		events = live.Events(wctx, st, info.ID)
	} else {
		id := info.ID
		opts.Summaries = func(from, limit int, fn func(*eval.Result) error) (int, error) {
			return st.RunSummaries(id, from, limit, fn)
		}
		opts.Banner = fmt.Sprintf("stored run %s", info.ID)
		if info.FinishedAt == nil {
			opts.Banner += " (interrupted: continue it with ragscope run --resume " + info.ID + ")"
		}
	}
	if err := tui.Run(ctx, opts, events); err != nil {
		return 0, err
	}
	if isLive && follow == nil {
		if now, err := st.Live(); err == nil {
			if _, still := now[info.ID]; still {
				fmt.Fprintf(stderr, "ragscope: run %s continues; attach again with: ragscope attach %s\n", info.ID, info.ID)
			}
		}
	}
	return exit.OK, nil
}

// LoadResult reads one sample of a run from the store, for the TUI's
// Options.Load: the table keeps only what it shows of each sample.
func LoadResult(st cache.Store, runID string) func(index int) (*eval.Result, error) {
	return func(index int) (*eval.Result, error) {
		_, page, _, err := st.RunPage(runID, index, 1)
		if err != nil {
			return nil, err
		}
		if len(page) == 0 || page[0].Index != index {
			return nil, fmt.Errorf("run %s has no result for sample %d", runID, index)
		}
		return page[0], nil
	}
}
