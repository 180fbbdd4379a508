package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/tui"
)

func (s *session) runTUI(ctx context.Context, stdout, stderr io.Writer) (int, error) {
	if !term.IsTerminal(os.Stdout.Fd()) || !term.IsTerminal(os.Stdin.Fd()) {
		return 0, errorf("the interface needs a terminal; use --headless (with --out FILE) in scripts and CI")
	}
	if s.db != nil {
		if err := s.db.PutRun(s.run); err != nil {
			return 0, fmt.Errorf("recording the run: %v", err)
		}
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan eval.Event, 1024)
	r := s.runner(events)
	// The run's end is recorded as soon as the runner returns, not when the
	// user leaves the interface: a run that finished stays finished in the
	// store even if the process is killed while the analyst browses.
	resultsCh := make(chan []*eval.Result, 1)
	go func() {
		results := r.Run(rctx, s.loaded.Samples)
		s.finish(r, r.Cancelled())
		resultsCh <- results
	}()

	var h tui.Host
	if s.llm != nil && s.db != nil && !s.f.noCache {
		h = newHost(s, s.llm)
	}
	var toTUI <-chan eval.Event = events
	if s.logFile != nil {
		toTUI = s.teeLog(events)
	}
	err := tui.Run(ctx, tui.Options{
		Dataset: s.run.Dataset, Total: len(s.loaded.Samples), Judge: s.judge.Info(), Metrics: s.metrics,
		ASCII: s.f.ascii, Live: true, Started: s.run.StartedAt, RawCalls: rawCalls(s.db), Cancel: cancel, Banner: s.banner,
		RunID: s.run.ID, Host: h,
	}, toTUI) // tui.Forward drains events after the program ends, so the runner never blocks
	cancel()
	results := <-resultsCh
	cancelled := r.Cancelled()
	if err != nil {
		return 0, err
	}
	rep := eval.NewReport(s.runInfo(), results)
	if s.f.out != "" {
		fh, err := os.Create(s.f.out)
		if err != nil {
			return 0, errorf("--out: %v", err)
		}
		defer fh.Close()
		if err := rep.WriteJSON(fh); err != nil {
			return 0, err
		}
	}
	writeSummary(stderr, rep)
	if cancelled {
		fmt.Fprintf(stderr, "ragscope: stopped early; finished samples are kept — continue with: ragscope run --resume %s\n", s.run.ID)
		return exitInterrupted, nil
	}
	fmt.Fprintf(stderr, "ragscope: run %s stored; reopen it with: ragscope open %s\n", s.run.ID, s.run.ID)
	return exitOK, nil
}

func cmdOpen(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ragscope open", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbPath := fs.String("db", "", "database file")
	ascii := fs.Bool("ascii", os.Getenv("RUNEWIDTH_EASTASIAN") == "1", "ASCII-only interface glyphs")
	pos, code, ok := parseArgs(fs, args, "", stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "ragscope open: give one RUN id (or latest); see `ragscope runs`")
		return exitUsage
	}
	if !term.IsTerminal(os.Stdout.Fd()) || !term.IsTerminal(os.Stdin.Fd()) {
		fmt.Fprintln(stderr, "ragscope open: the interface needs a terminal; use `ragscope report` in scripts")
		return exitUsage
	}
	db, infos, runs, err := storedRuns(*dbPath, pos[0])
	if err != nil {
		fmt.Fprintln(stderr, "ragscope open:", err)
		return exitCode(err)
	}
	defer db.Close()
	info, results := infos[0], runs[0]
	var loaded []*eval.Result
	for _, r := range results {
		if r != nil {
			loaded = append(loaded, r)
		}
	}
	banner := fmt.Sprintf("stored run %s", info.ID)
	if info.FinishedAt == nil {
		banner += " (interrupted: continue it with ragscope run --resume " + info.ID + ")"
	}
	err = tui.Run(context.Background(), tui.Options{
		Dataset: info.Dataset, Total: info.Samples, Judge: info.Judge, Metrics: info.Metrics, ASCII: *ascii,
		Results: loaded, Started: info.StartedAt, RawCalls: rawCalls(db), Banner: banner,
		RunID: info.ID, Host: storeHost{db: db, info: info},
	}, nil)
	if err != nil {
		fmt.Fprintln(stderr, "ragscope open:", err)
		return exitFatal
	}
	return exitOK
}

// teeLog writes errors and retries to the --log file on their way to the
// interface, which owns the terminal.
func (s *session) teeLog(in <-chan eval.Event) <-chan eval.Event {
	out := make(chan eval.Event, cap(in))
	go func() {
		defer close(out)
		for ev := range in {
			s.logEvent(ev)
			out <- ev
		}
	}()
	return out
}

func (s *session) logEvent(ev eval.Event) {
	switch ev.Kind {
	case eval.EventError:
		fmt.Fprintf(s.log, "%s sample %d: %s: %s\n", ev.Time.Format(time.RFC3339), ev.Sample, ev.Metric, ev.Err)
	case eval.EventRetry:
		fmt.Fprintf(s.log, "%s sample %d: retry %s in %s: %s\n", ev.Time.Format(time.RFC3339), ev.Sample, ev.Call.Task, ev.Wait.Round(time.Millisecond), ev.Err)
	}
}

// rawCalls renders a sample's judge calls from the cache for the TUI's `x` view.
func rawCalls(db *cache.DB) func(keys []string) (string, error) {
	if db == nil {
		return nil
	}
	return func(keys []string) (string, error) {
		var b strings.Builder
		for i, k := range keys {
			e, err := db.Call(k)
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
					fmt.Fprintf(&b, "   [reply %d]\n%s\n", ci+1, indent(c, "     "))
				}
				fmt.Fprintf(&b, "   tokens %d prompt + %d completion, %d ms\n\n", e.Response.Usage.PromptTokens, e.Response.Usage.CompletionTokens, e.Response.LatencyMS)
			} else {
				fmt.Fprintf(&b, "   %s\n   vector of %d dimensions\n\n", string(e.Request), len(e.Vector))
			}
		}
		return b.String(), nil
	}
}

func indent(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pre + l
	}
	return strings.Join(lines, "\n")
}
