// Package serve holds `ragscope serve`, the server of detached runs.
package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/app"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/holder"
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/internal/store"
)

// Server is `ragscope serve`: a holder that stays up and evaluates the runs
// its clients submit (`ragscope run --detach`), so that they outlive the
// client's terminal or SSH connection. A run's API key comes with its
// submission and lives in this process's memory only for that run.
type Server struct {
	ctx    context.Context
	stderr io.Writer

	mu   sync.Mutex
	st   *store.Shared
	runs map[string]*app.Run
	// ended are the outcomes of the runs that ended, for `attach --wait`;
	// changed is closed and replaced when one is added.
	ended   map[string]holder.RunOutcome
	order   []string // ended's ids, oldest first
	changed chan struct{}
	wg      sync.WaitGroup
}

// keepOutcomes bounds the outcomes a long-lived server remembers.
const keepOutcomes = 10000

var _ holder.RunService = (*Server)(nil)

// Serve holds the database and serves it until ctx is done; then it stops
// the runs still going (their finished samples are kept) and lets go.
func Serve(ctx context.Context, dbPath string, stdout, stderr io.Writer) error {
	sv := &Server{ctx: ctx, stderr: stderr, runs: map[string]*app.Run{}, ended: map[string]holder.RunOutcome{}, changed: make(chan struct{})}
	st, err := store.Open(dbPath, store.OpenOptions{Mode: store.Hold, Role: "serve", Runs: sv, Stderr: stderr})
	if err != nil {
		return err
	}
	if h, ok := st.Holder(); ok {
		st.Close()
		return fmt.Errorf("database %s is held by pid %d (ragscope %s); `ragscope serve` must hold it itself: stop that process, then start the server",
			st.Path(), h.PID, h.Role)
	}
	sv.mu.Lock()
	sv.st = st
	sv.mu.Unlock()
	path := sanitize.Line(st.Path())
	fmt.Fprintf(stdout, "ragscope serve: serving %s (pid %d); submit runs with: ragscope run --detach --db %s DATASET\n", path, os.Getpid(), path)
	<-ctx.Done()
	sv.mu.Lock()
	for _, r := range sv.runs {
		r.Cancel()
	}
	sv.mu.Unlock()
	sv.wg.Wait()
	return st.Close()
}

// Submit starts a run from a client's settings.
func (sv *Server) Submit(req holder.SubmitRequest) (string, error) {
	sv.mu.Lock()
	st := sv.st
	sv.mu.Unlock()
	if st == nil {
		return "", errors.New("the server is still starting; try again")
	}
	var cfg app.Config
	if err := json.Unmarshal(req.Config, &cfg); err != nil {
		return "", fmt.Errorf("the run's settings are unreadable: %v", err)
	}
	cfg.APIKey = req.APIKey
	cfg.Stream = true // nobody looks at a detached run's samples in this process
	cfg.Absolute(req.Dir)
	if err := cfg.Validate(); err != nil {
		return "", exit.UsageError{Err: err}
	}
	s, err := app.Prepare(&cfg, st, sv.stderr)
	if err != nil {
		return "", err
	}
	// --out and --junit are opened now: a bad path is the client's error.
	o, err := s.OpenOutputs(nil)
	if err != nil {
		s.Close()
		return "", err
	}
	run, err := s.Start(sv.ctx)
	if err != nil {
		o.Abort()
		s.Close()
		return "", err
	}
	sv.mu.Lock()
	sv.runs[run.ID] = run
	sv.wg.Add(1)
	sv.mu.Unlock()
	fmt.Fprintf(sv.stderr, "ragscope serve: run %s started: %s, %d samples, %s\n", run.ID, cfg.Dataset, s.Total(), s.Banner)
	go func() {
		defer sv.wg.Done()
		defer s.Close()
		for range run.Events {
		}
		cancelled, err := run.Wait()
		state := app.EndState(cancelled)
		if err != nil {
			state += " (" + err.Error() + ")"
		}
		defer o.Abort()
		info := run.Info()
		code := exit.Fatal
		switch e, rerr, werr := o.Finish(s.Store, run.ID, &info, &cfg); {
		case rerr != nil:
			state += "; reports not written: " + rerr.Error()
		default:
			if werr != nil {
				state += "; " + werr.Error()
			}
			if e.Gated() {
				state += "; gate " + map[bool]string{true: "passed", false: "FAILED"}[e.Outcome.Passed()]
				for _, c := range e.Outcome.Checks {
					if c.State != report.GatePassed {
						state += "; " + string(c.State) + ": " + c.Message
					}
				}
			}
			// As `run --headless` decides it (app's finishReport).
			switch why := run.Stopped(); {
			case why != nil:
				state += "; the run stopped: " + why.Error()
			case werr == nil:
				code = e.Code(cancelled)
			}
		}
		sv.end(run.ID, holder.RunOutcome{Known: true, Done: true, Code: code, Summary: state})
		fmt.Fprintf(sv.stderr, "ragscope serve: run %s %s\n", run.ID, state)
	}()
	return run.ID, nil
}

// Stop cancels a run the server is evaluating.
func (sv *Server) Stop(runID string) error {
	sv.mu.Lock()
	r := sv.runs[runID]
	sv.mu.Unlock()
	if r == nil {
		return fmt.Errorf("run %s is not being evaluated by this server (finished, or started elsewhere)", runID)
	}
	r.Cancel()
	return nil
}

// end records how a run ended, for Outcome, once its reports are written.
func (sv *Server) end(id string, o holder.RunOutcome) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	delete(sv.runs, id)
	sv.ended[id] = o
	sv.order = append(sv.order, id)
	if len(sv.order) > keepOutcomes {
		delete(sv.ended, sv.order[0])
		sv.order = sv.order[1:]
	}
	close(sv.changed)
	sv.changed = make(chan struct{})
}

// Outcome says how a run this server evaluated ended, waiting for its end
// until ctx is done.
func (sv *Server) Outcome(ctx context.Context, runID string) (holder.RunOutcome, error) {
	for {
		sv.mu.Lock()
		o, ended := sv.ended[runID]
		_, running := sv.runs[runID]
		changed := sv.changed
		sv.mu.Unlock()
		switch {
		case ended:
			return o, nil
		case !running:
			return holder.RunOutcome{}, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return holder.RunOutcome{Known: true}, nil
		}
	}
}
