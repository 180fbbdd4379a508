package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/holder"
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
