package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/labels"
	"github.com/ragscope/ragscope/internal/live"
	"github.com/ragscope/ragscope/internal/runreport"
	"github.com/ragscope/ragscope/internal/store"
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
	opts := runOptions(s.Store, info, ascii) // the record names the session's judge, metrics and samples
	opts.Live, opts.Banner, opts.Host, opts.Limit = true, s.Banner, h, s.LimitLine
	opts.KeyVar = strings.TrimPrefix(s.Cfg.KeyFrom, "$")
	opts.Levels = s.Cfg.Parsed.Levels.WithCriteria(info.Criteria)
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
// asks on its cost page, which shows the estimate per metric, before the
// run is recorded (firstRun).
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
	case err == nil: // the interface quit at the cost question
		err = exit.Usagef("quit at the cost question (--confirm-over $%g); nothing was sent and no run was recorded: %w", s.Cfg.ConfirmOver, ErrOverBudget)
	}
	return run, err
}

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
	opts := runOptions(st, info, ascii)
	opts.Started, opts.Host, opts.Watch, opts.Limit = info.StartedAt, StoredHost{Store: st, Run: info, Why: errStoredRun}, follow, st.HolderNote
	opts.Levels = report.RunLevels(info)
	if !pass.IsDefault() {
		opts.Levels = pass.WithCriteria(info.Criteria)
	}
	var events <-chan eval.Event
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if isLive {
		opts.Live, opts.Attached = true, true
		opts.Banner = fmt.Sprintf("live run %s, evaluated by pid %d (ragscope %s); q leaves it running", info.ID, lr.PID, lr.Role)
		opts.EndBanner = fmt.Sprintf("run %s, evaluated by pid %d (ragscope %s), has ended", info.ID, lr.PID, lr.Role)
		if follow != nil {
			opts.Banner = fmt.Sprintf("watching: results go to run %s; q stops watching (records not evaluated yet are taken up by the next watch)", info.ID)
			opts.QuitHelp = "stop watching"
		}
		if cl := st.Client(); cl != nil && lr.Role == "serve" {
			opts.Banner += ", X stops it"
			opts.Cancel = func() { _ = cl.Stop(info.ID) }
		}
		if lr.Role == "watch" && follow == nil {
			// Another process's watcher: the follow screen, without its lag.
			fs := report.WatchStatus{RunID: info.ID, Elsewhere: fmt.Sprintf("pid %d", lr.PID)}
			opts.Watch = func() report.WatchStatus { return fs }
		}
		events = live.Events(wctx, st, info.ID)
	} else {
		opts.Summaries = func(from, limit int, fn func(*eval.Result) error) (int, error) {
			return st.RunSummaries(info.ID, from, limit, fn)
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

// runOptions are the interface's options for the run of record info, whose
// results, labels and judge calls st holds.
func runOptions(st cache.Store, info report.RunInfo, ascii bool) tui.Options {
	return tui.Options{Dataset: info.Dataset, Total: info.Samples, Skipped: info.Skipped, Judge: info.Judge, Metrics: info.Metrics, ASCII: ascii,
		RawCalls: RawCalls(st), RawCallsJSON: RawCallsJSON(st), RunID: info.ID, Load: LoadResult(st, info.ID), Pricing: info.Pricing,
		Labels: labels.Host{Store: st, By: labels.Labeller()}, Criteria: info.Criteria.Names(), CriteriaPass: info.Criteria.Passes()}
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

// RawCalls renders a sample's judge calls from the cache for the TUI's `x`
// view, from whichever process holds the database.
func RawCalls(st cache.Store) func(keys []string) (string, error) {
	return func(keys []string) (string, error) {
		var b strings.Builder
		for i, k := range keys {
			e, err := st.Call(k)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "== call %d of %d  key %s\n", i+1, len(keys), k[:min(12, len(k))])
			if e == nil {
				b.WriteString("   not in the cache (offline judge, --no-cache, or cleared)\n\n")
				continue
			}
			fmt.Fprintf(&b, "   %s %s  model %s  stored %s\n", e.Kind, e.Task, e.Model, e.Time.Local().Format("2006-01-02 15:04:05"))
			if e.Kind == cache.KindChat {
				var msgs struct {
					Messages []eval.Message `json:"messages"`
				}
				_ = json.Unmarshal(e.Request, &msgs)
				for _, m := range msgs.Messages {
					fmt.Fprintf(&b, "   [%s]\n%s\n", m.Role, indent(m.Content, "     "))
				}
				for ci, c := range e.Response.Choices {
					if ci < len(e.Response.Reasoning) && e.Response.Reasoning[ci] != "" {
						fmt.Fprintf(&b, "   [reasoning %d, never parsed]\n%s\n", ci+1, indent(e.Response.Reasoning[ci], "     "))
					}
					fmt.Fprintf(&b, "   [reply %d]\n%s\n", ci+1, indent(c, "     "))
				}
				fmt.Fprintf(&b, "   tokens %d prompt + %d completion", e.Response.Usage.PromptTokens, e.Response.Usage.CompletionTokens)
				if r := e.Response.Usage.ReasoningTokens; r > 0 {
					fmt.Fprintf(&b, " (%d reasoning)", r)
				}
				fmt.Fprintf(&b, ", %d ms\n\n", e.Response.LatencyMS)
			} else {
				fmt.Fprintf(&b, "   %s\n   vector of %d dimensions\n\n", string(e.Request), len(e.Vector))
			}
		}
		return b.String(), nil
	}
}

// RawCallsJSON gives a sample's judge calls as the cache holds them
// (request, reply or vector, model, time), for y in the TUI's raw view: a
// call that is not cached is listed by its key with "cached": false.
func RawCallsJSON(st cache.Store) func(keys []string) ([]byte, error) {
	return func(keys []string) ([]byte, error) {
		type call struct {
			*cache.CallEntry
			Key    string `json:"key"`
			Cached bool   `json:"cached"`
		}
		calls := make([]call, 0, len(keys))
		for _, k := range keys {
			e, err := st.Call(k)
			if err != nil {
				return nil, err
			}
			calls = append(calls, call{CallEntry: e, Key: k, Cached: e != nil})
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(calls); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pre)
}
