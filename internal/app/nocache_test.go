package app

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/internal/store"
	"github.com/ragscope/ragscope/tui"
)

// TestNoCacheSaysWhy: with an LLM judge and --no-cache the interface
// keeps comparing runs, and the prompt and re-run keys say that the cache
// is off, not that an LLM judge is missing (the header shows one).
func TestNoCacheSaysWhy(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	data := smallDataset(t, 2)
	for _, noCache := range []bool{false, true} {
		cfg := &Config{Dataset: data, BaseURL: srv.BaseURL(), APIKey: "k", APIType: "openai", Model: "judge", EmbeddingModel: "emb",
			ResponseFormat: "json_schema", EmbedFormat: "float", Strictness: 3, Concurrency: 4,
			Timeout: 5 * time.Second, MaxRetries: 1, Metrics: "faithfulness", Lang: "auto", NoCache: noCache,
			DB: filepath.Join(t.TempDir(), "r.db")}
		st := openShared(t, cfg.DB, store.Hold)
		s, run := startRun(t, cfg, st)
		results := drain(t, run.Events)
		if _, err := run.Wait(); err != nil {
			t.Fatal(err)
		}
		h := SessionHost(s)
		if !noCache {
			if _, ok := h.(*Host); !ok {
				t.Fatalf("with the cache the host is %T, want the prompt workflow", h)
			}
			continue
		}
		ro, ok := h.(tui.ReadOnlyHost)
		if !ok {
			t.Fatalf("with --no-cache the host is %T, want one that compares", h)
		}
		if why := ro.ReadOnly(); !strings.Contains(why, "--no-cache") || strings.Contains(why, "need an LLM judge") {
			t.Errorf("the reason given: %q", why)
		}
		if runs, err := h.Runs(); err != nil || len(runs) != 1 {
			t.Errorf("runs to compare: %v, %v", runs, err)
		}
		m := tui.New(tui.Options{Dataset: data, Judge: s.Judge.Info(), Metrics: s.Metrics, Results: results, Host: h, RunID: run.ID})
		m.Update(tea.WindowSizeMsg{Width: 200, Height: 40})
		for _, k := range []rune{'p', 'R'} {
			m.Update(tea.KeyPressMsg{Code: k, Text: string(k)})
			screen := strings.Join(strings.Fields(ansi.Strip(m.View().Content)), " ")
			if !strings.Contains(screen, "off with --no-cache") || strings.Contains(screen, "need an LLM judge") {
				t.Errorf("%c says:\n%s", k, screen)
			}
		}
	}
}
