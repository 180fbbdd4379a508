package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/holder"
	"github.com/ragscope/ragscope/internal/live"
	"github.com/ragscope/ragscope/internal/runreport"
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/internal/store"
)

// Submit hands the run of cfg to the `ragscope serve` holding its database
// (`ragscope run --detach`): the server reads the dataset and makes the
// judge calls with cfg's key, which it keeps in memory for that run only.
// It returns the run's id and the server's pid.
func Submit(cfg Config) (id string, pid int, err error) {
	if cfg.Dataset == "" {
		return "", 0, exit.UsageError{Err: errors.New("--detach needs a DATASET")}
	}
	if _, err := os.Stat(cfg.Dataset); err != nil {
		return "", 0, exit.UsageError{Err: err}
	}
	dbPath, err := store.DBPath(cfg.DB)
	if err != nil {
		return "", 0, err
	}
	sock, err := holder.SocketPath(dbPath)
	if err != nil {
		return "", 0, err
	}
	cl, err := holder.Dial(sock, 5*time.Second)
	if errors.Is(err, holder.ErrNoHolder) {
		return "", 0, fmt.Errorf("no ragscope serve holds %s: start one with `ragscope serve --db %s` (see docs/store.md), or run without --detach", dbPath, dbPath)
	}
	if err != nil {
		return "", 0, err
	}
	defer cl.Close()
	wd, err := os.Getwd()
	if err != nil {
		return "", 0, err
	}
	cfg.Absolute(wd)
	raw, err := json.Marshal(cfg) // without the key: Config never serialises it
	if err != nil {
		return "", 0, err
	}
	id, err = cl.Submit(holder.SubmitRequest{Config: raw, APIKey: cfg.APIKey, Dir: wd})
	return id, cl.Hello().PID, err
}

// WaitRun is `ragscope attach --wait RUN`: it waits for the end of a run
// another process evaluates and returns the exit code `run --headless`
// would have had, so a script that detached it learns the gate's outcome.
// For a run the server does not know, the code comes from the stored
// results alone (no gate), and says so.
func WaitRun(ctx context.Context, st *store.Shared, ref string, stderr io.Writer) (int, error) {
	info, _, _, err := st.RunPage(ref, 0, 0)
	if err != nil {
		return 0, exit.UsageError{Err: err}
	}
	id := info.ID
	if cl := st.Client(); cl != nil {
		o, err := cl.Outcome(ctx, id)
		switch {
		case err == nil && o.Done:
			fmt.Fprintf(stderr, "ragscope: run %s %s (exit %d)\n", id, sanitize.Line(o.Summary), o.Code)
			return o.Code, nil
		case ctx.Err() != nil:
			return exit.Interrupted, fmt.Errorf("stopped waiting for run %s; it goes on", id)
		case err != nil && !errors.Is(err, holder.ErrNoRunService) && !errors.Is(err, holder.ErrLost):
			return 0, err
		}
		// Not the server's run, or the server went away: wait on the store.
	}
	for range live.Events(ctx, st, id) {
		// The end is read from the store below.
	}
	if ctx.Err() != nil {
		return exit.Interrupted, fmt.Errorf("stopped waiting for run %s; it goes on", id)
	}
	sr, err := runreport.Read(st, id, 0)
	if err != nil {
		return exit.Fatal, err
	}
	if sr.Info.FinishedAt == nil {
		return exit.Fatal, fmt.Errorf("run %s stopped before it finished (its process went away); continue it with: ragscope run --resume %s", id, id)
	}
	WriteSummary(stderr, sr.Info, sr.Tally)
	code := sr.Code(sr.Info.Cancelled)
	fmt.Fprintf(stderr, "ragscope: run %s %s (exit %d; its gate, if it had one, is known only to the server that evaluated it)\n",
		id, EndState(sr.Info.Cancelled), code)
	return code, nil
}

// EndState is how a run that ended is said to have ended: stopped when it
// was cancelled, else finished.
func EndState(cancelled bool) string {
	if cancelled {
		return "stopped"
	}
	return "finished"
}
