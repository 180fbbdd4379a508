package app

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/internal/store"
	"github.com/ragscope/ragscope/tui"
)

// The TUI's header and the headless progress line (and the run record)
// count the calls of one run the same way: sent, cache hits, retries and
// errors, on a judge that fails some calls for good and some once.
func TestTUIAndHeadlessCountTheSameCalls(t *testing.T) {
	var n atomic.Int64
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		switch n.Add(1) % 9 {
		case 4: // retried, then answered
			return fakejudge.Reply{Status: 503, Body: `{"error":{"message":"busy"}}`}
		case 7: // refused for good
			return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"bad request"}}`}
		}
		return fakejudge.Generic(r)
	})
	defer srv.Close()
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	cfg := &Config{Dataset: smallDataset(t, 12), BaseURL: srv.BaseURL(), APIKey: "test-key-123456", APIType: "openai",
		Model: "judge", EmbeddingModel: "emb", ResponseFormat: "json_schema", EmbedFormat: "float", Strictness: 3,
		Concurrency: 4, Timeout: 5 * time.Second, MaxRetries: 2, Metrics: "all", Lang: "auto"}
	s, err := Prepare(parsed(t, cfg), st, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run, err := s.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := tui.New(tui.Options{Live: true, Total: 12, Metrics: s.Metrics, Started: time.Now()})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	var events []eval.Event
	for ev := range run.Events {
		events = append(events, ev)
	}
	if _, err := run.Wait(); err != nil {
		t.Fatal(err)
	}
	m.Update(tui.EventsMsg{Events: events})
	calls, _ := run.Counts()
	if calls.Retries == 0 || calls.Errors == 0 || calls.Sent() == 0 {
		t.Fatalf("the judge should have forced retries and errors: %+v", calls)
	}
	if rec := run.Info().Calls; rec != calls {
		t.Fatalf("run record %+v, runner %+v", rec, calls)
	}
	header := ansi.Strip(m.View().Content)
	for _, want := range []string{fmt.Sprintf("calls sent %d", calls.Sent()), fmt.Sprintf("cache hits %d", calls.CacheHits),
		fmt.Sprintf("retries %d", calls.Retries), fmt.Sprintf("errors %d", calls.Errors)} {
		if !strings.Contains(header, want) {
			t.Errorf("the TUI header lacks %q (headless: %+v):\n%s", want, calls, header[:min(len(header), 600)])
		}
	}
}
