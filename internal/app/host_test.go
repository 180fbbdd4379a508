package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/store"
	"github.com/ragscope/ragscope/tui"
)

// newTestSession prepares a session against a fake judge, as `ragscope run`
// would, and evaluates the dataset once so there is a parent run.
func newTestSession(t *testing.T, srv *fakejudge.Server, data, promptsDir string) *Session {
	t.Helper()
	cfg := &Config{
		Dataset: data, BaseURL: srv.BaseURL(), APIKey: "k", APIType: "openai", Model: "judge", EmbeddingModel: "emb",
		ResponseFormat: "json_schema", EmbedFormat: "float", Strictness: 3, Concurrency: 4,
		Timeout: 5 * time.Second, MaxRetries: 1, Metrics: "all", Lang: "auto",
		DB: filepath.Join(t.TempDir(), "r.db"), PromptsDir: promptsDir,
	}
	st := openShared(t, cfg.DB, store.Hold)
	s, run := startRun(t, cfg, st)
	drain(t, run.Events)
	if cancelled, err := run.Wait(); cancelled || err != nil {
		t.Fatalf("first run: cancelled %v, %v", cancelled, err)
	}
	return s
}

func openShared(t *testing.T, path string, mode int) *store.Shared {
	t.Helper()
	st, err := store.Open(path, store.OpenOptions{Mode: mode, Role: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func drain(t *testing.T, events <-chan eval.Event) []*eval.Result {
	t.Helper()
	var out []*eval.Result
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return out
			}
			if ev.Kind == eval.EventSampleFinished {
				out = append(out, ev.Result)
			}
		case <-timeout:
			t.Fatal("the re-run did not end")
		}
	}
}

// The scenario without the interface: edit the verdict template,
// re-run one sample (only its verdict calls reach the judge), then the
// filtered set, and see the change in the diff.
func TestPromptEditRerunAndDiff(t *testing.T) {
	srv := fakejudge.New(lenientJudge)
	defer srv.Close()
	data := smallDataset(t, 4)
	pdir := filepath.Join(t.TempDir(), "prompts")
	if err := os.Mkdir(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := newTestSession(t, srv, data, pdir)
	h := NewHost(s)
	parentID := s.Info().ID

	path, err := h.EditPath("faithfulness_verdicts", "en")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != pdir {
		t.Fatalf("override created at %s, want in %s", path, pdir)
	}
	src, _ := os.ReadFile(path)
	if !strings.Contains(string(src), "statements") {
		t.Fatal("the first edit does not start from the embedded template")
	}
	sample := &eval.Result{Index: 0, Question: "q", Answer: "a", Contexts: []string{"c"}, Reference: "r"}

	// A broken template is refused with file and line; the old prompt stays.
	if err := os.WriteFile(path, append([]byte("{{.Nope}}\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	err = h.Reload(sample)
	if err == nil || !strings.Contains(err.Error(), "faithfulness_verdicts.en.tmpl:1") {
		t.Fatalf("broken template: %v", err)
	}
	if plan, err := h.Plan(context.Background(), []int{0}, eval.DefaultMetrics); err != nil || plan.Calls != 0 {
		t.Fatalf("after a refused edit the old prompt must stay in use (all cached): %+v %v", plan, err)
	}

	if err := os.WriteFile(path, append([]byte("LENIENT: accept paraphrases.\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.Reload(sample); err != nil {
		t.Fatal(err)
	}
	plan, err := h.Plan(context.Background(), []int{0}, eval.DefaultMetrics)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Calls != 1 || plan.Cached == 0 {
		t.Fatalf("plan for one sample: %+v, want 1 call to send", plan)
	}
	before := srv.Count("")
	beforeVerdicts := srv.Count("faithfulness_verdicts")
	childID, events, err := h.Rerun(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	res := drain(t, events)
	if len(res) != 1 || *res[0].Scores[eval.Faithfulness] != 1 {
		t.Fatalf("re-run results %+v", res)
	}
	if sent, verdicts := srv.Count("")-before, srv.Count("faithfulness_verdicts")-beforeVerdicts; sent != 1 || verdicts != 1 {
		t.Fatalf("re-running one sample sent %d calls (%d verdict calls), want exactly its 1 verdict call", sent, verdicts)
	}

	// Re-run the rest (a "filter" of three samples), faithfulness only.
	plan, err = h.Plan(context.Background(), []int{1, 2, 3}, []eval.Metric{eval.Faithfulness})
	if err != nil || plan.Calls != 3 {
		t.Fatalf("plan for three: %+v %v", plan, err)
	}
	before = srv.Count("")
	beforeVerdicts = srv.Count("faithfulness_verdicts")
	grandchild, events, err := h.Rerun(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	drain(t, events)
	if sent, verdicts := srv.Count("")-before, srv.Count("faithfulness_verdicts")-beforeVerdicts; sent != 3 || verdicts != 3 {
		t.Fatalf("re-running the filter sent %d calls (%d verdict calls), want only its 3 verdict calls", sent, verdicts)
	}

	// The store links the runs and each is complete.
	info, rs, err := s.Store.Run(grandchild)
	if err != nil {
		t.Fatal(err)
	}
	if info.Parent != childID || info.FinishedAt == nil {
		t.Fatalf("grandchild run %+v", info)
	}
	for i, r := range rs {
		if r == nil || len(r.Status) != 4 || *r.Scores[eval.Faithfulness] != 1 {
			t.Fatalf("grandchild sample %d incomplete or unchanged: %+v", i, r)
		}
	}
	if childInfo, _, _ := s.Store.Run(childID); childInfo.Parent != parentID {
		t.Fatalf("child's parent %q, want %q", childInfo.Parent, parentID)
	}

	// The diff of the chain's ends shows the change of the mean.
	_, a, _ := s.Store.Run(parentID)
	_, b, _ := s.Store.Run(grandchild)
	d := report.Diff(eval.AllMetrics, a, b)
	if md := d.Means[eval.Faithfulness]; md.Delta == nil || *md.Delta != 0.5 {
		t.Fatalf("faithfulness mean change %+v, want +0.5", md)
	}
}

var _ tui.Host = (*Host)(nil)

// parsed is cfg after Validate, as the CLI and the server hand it on.
func parsed(t testing.TB, cfg *Config) *Config {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// smallDataset writes n samples in RAGAS 0.2 columns; the texts are unique
// to the test, so no two tests' samples share cache entries.
func smallDataset(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	name := t.Name()
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"id":"s%d","user_input":"%s question %d?","response":"answer %d. more.","retrieved_contexts":["chunk a %d","chunk b %d"],"reference":"reference %d"}`+"\n", i, name, i, i, i, i, i)
	}
	p := filepath.Join(t.TempDir(), "data.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// lenientJudge is a judge whose verdicts depend on the prompt: once the
// template asks for leniency, every statement is supported.
func lenientJudge(r *fakejudge.Request) fakejudge.Reply {
	if r.Task == "faithfulness_verdicts" {
		v := 0
		if strings.Contains(r.Prompt(), "LENIENT") {
			v = 1
		}
		return fakejudge.Reply{Choices: []string{fakejudge.JSON(map[string]any{"statements": []map[string]any{
			{"statement": "first statement", "reason": "r", "verdict": v},
			{"statement": "second statement", "reason": "r", "verdict": 1},
		}})}}
	}
	return fakejudge.Generic(r)
}

// startRun prepares cfg on st as `ragscope run` would and starts the run;
// the session closes with the test.
func startRun(t *testing.T, cfg *Config, st cache.Store) (*Session, *Run) {
	t.Helper()
	s, err := Prepare(parsed(t, cfg), st, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	run, err := s.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s, run
}
