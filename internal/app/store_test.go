package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/live"
	"github.com/ragscope/ragscope/internal/store"
)

// Two runs of overlapping datasets, one in the holder and one in its
// client, pay for each distinct judge call once, and a watcher of the
// client's run sees every result and the end.
func TestConcurrentRunsPayOnceAndAreWatched(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 5 * time.Millisecond })
	defer srv.Close()
	data := smallDataset(t, 12)
	path := filepath.Join(t.TempDir(), "r.db")
	a := openShared(t, path, store.Hold)
	b := openShared(t, path, store.Hold)
	w := openShared(t, path, store.Read)
	// A request timed out and retried is sent twice by right: the
	// timeout is long enough that a loaded machine never sees one.
	cfg := func() *Config {
		return &Config{Dataset: data, DB: path, BaseURL: srv.BaseURL(), APIKey: "k", APIType: "openai", Model: "judge", EmbeddingModel: "emb",
			ResponseFormat: "json_schema", EmbedFormat: "float", Strictness: 3, Concurrency: 4,
			Timeout: time.Minute, MaxRetries: 1, Metrics: "all", Lang: "auto"}
	}
	var runs []*Run
	var sessions []*Session
	for _, st := range []*store.Shared{a, b} {
		s, err := Prepare(parsed(t, cfg()), st, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sessions = append(sessions, s)
	}
	for _, s := range sessions {
		run, err := s.Start(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	watched := live.Events(context.Background(), w, runs[1].ID)
	for _, run := range runs {
		go func() {
			for range run.Events {
			}
		}()
	}
	got := map[int]bool{}
	finished := false
	for ev := range watched {
		switch ev.Kind {
		case eval.EventSampleFinished:
			got[ev.Result.Index] = true
		case eval.EventRunFinished:
			finished = true
		case eval.EventError:
			t.Fatalf("watch error: %s", ev.Err)
		}
	}
	if len(got) != 12 || !finished {
		t.Fatalf("the watcher saw %d of 12 results, end %v", len(got), finished)
	}
	for _, run := range runs {
		cancelled, err := run.Wait()
		_, results, rerr := a.Run(run.ID)
		if err != nil || rerr != nil || cancelled || len(results) != 12 {
			t.Fatalf("run %s: %d results, cancelled %v, %v", run.ID, len(results), cancelled, err)
		}
		for _, r := range results {
			if r.Failed() {
				t.Fatalf("run %s sample %d failed: %v", run.ID, r.Index, r.Errors)
			}
		}
	}
	seen := map[string]bool{}
	for _, r := range srv.Requests() {
		// Draws of one prompt are requests of their own, each its seed.
		k := fmt.Sprint(r.Task, "\x00", r.Prompt(), "\x00", r.N)
		if r.Seed != nil {
			k += fmt.Sprint("\x00", *r.Seed)
		}
		if seen[k] {
			t.Fatalf("the judge saw a %s request twice", r.Task)
		}
		seen[k] = true
	}
}

// A typo in --out costs nothing: it is refused before the run (and the
// interface) starts, with or without the TUI.
func TestOutIsCheckedBeforeTheRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	st := openShared(t, path, store.Hold)
	data := smallDataset(t, 2)
	for name, run := range map[string]func(*Session) (int, error){
		"tui":      func(s *Session) (int, error) { return Interactive(context.Background(), s, false, io.Discard) },
		"headless": func(s *Session) (int, error) { return Headless(context.Background(), s, io.Discard, io.Discard) },
	} {
		t.Run(name, func(t *testing.T) {
			s, err := Prepare(parsed(t, &Config{Dataset: data, Offline: true, Metrics: "all", Lang: "auto", Strictness: 3, Concurrency: 1, Timeout: time.Second,
				Out: filepath.Join(t.TempDir(), "no", "such", "dir", "report.json")}), st, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_, err = run(s)
			var ue exit.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--out") {
				t.Fatalf("err = %v, want a usage error about --out", err)
			}
			if runs, _ := st.Runs(); len(runs) != 0 {
				t.Fatalf("a run was recorded before --out was checked: %v", runs)
			}
		})
	}
}
