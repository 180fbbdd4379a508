package app

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/internal/store"
)

// --resume re-evaluates only the samples the earlier attempt did not
// finish: their results are read back from the store page by page, not
// loaded whole, and the finished ones cost not even a cache lookup.
func TestResumeSkipsFinishedSamples(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	data := smallDataset(t, 20)
	cfg := func(resume string) *Config {
		return &Config{Dataset: data, BaseURL: srv.BaseURL(), APIKey: "test-key-123456", APIType: "openai", Model: "judge",
			EmbeddingModel: "emb", ResponseFormat: "json_schema", EmbedFormat: "float", Strictness: 3, Concurrency: 4,
			Timeout: 5 * time.Second, MaxRetries: 1, Metrics: "all", Lang: "auto", Stream: true, Resume: resume}
	}
	run := func(c *Config) (*Session, *Run) {
		t.Helper()
		s, r := startRun(t, c, st)
		for range r.Events {
		}
		if _, err := r.Wait(); err != nil {
			t.Fatal(err)
		}
		return s, r
	}
	_, full := run(cfg(""))
	info, results, err := st.Run(full.ID)
	if err != nil {
		t.Fatal(err)
	}
	// An interrupted attempt that finished the first ten samples.
	half := info
	half.ID, half.FinishedAt = "20261201-000000-half", nil
	if err := st.PutRun(half); err != nil {
		t.Fatal(err)
	}
	if err := st.PutResults(half.ID, results[:10]); err != nil {
		t.Fatal(err)
	}
	wantHits := 0
	for _, r := range results[10:] {
		wantHits += len(r.Calls)
	}
	s, resumed := run(cfg(half.ID))
	if s.resumed != 10 {
		t.Fatalf("Resumed() = %d, want 10", s.resumed)
	}
	calls, _ := resumed.Counts()
	if calls.Sent() != 0 || calls.CacheHits != wantHits {
		t.Fatalf("resumed run: %+v; want only the last ten samples' %d calls, all from the cache", calls, wantHits)
	}
	_, after, err := st.Run(half.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range after {
		if r == nil || r.Failed() || *r.Scores[eval.Faithfulness] != *results[i].Scores[eval.Faithfulness] {
			t.Fatalf("sample %d after the resume: %+v", i, r)
		}
	}
}

// After --resume the run keeps its first start, and its duration is what
// its attempts took together: the earlier attempt's 30 s and this one's,
// not the resumed part alone nor the hour between the two.
func TestResumeKeepsTheRunsStartAndDuration(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	data := smallDataset(t, 4)
	cfg := &Config{Dataset: data, BaseURL: srv.BaseURL(), APIKey: "test-key-123456", APIType: "openai", Model: "judge",
		EmbeddingModel: "emb", ResponseFormat: "json_schema", EmbedFormat: "float", Strictness: 3, Concurrency: 4,
		Timeout: 5 * time.Second, MaxRetries: 1, Metrics: "faithfulness", Lang: "auto", Stream: true}
	_, first := startRun(t, cfg, st)
	for range first.Events {
	}
	if _, err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	info, results, err := st.Run(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	// An attempt stopped with Ctrl-C an hour ago after 30 s, two samples done.
	began := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	ended := began.Add(30 * time.Second)
	half := info
	half.ID, half.StartedAt, half.FinishedAt, half.Cancelled = "20261201-000000-half", began, &ended, true
	if err := st.PutRun(half); err != nil {
		t.Fatal(err)
	}
	if err := st.PutResults(half.ID, results[:2]); err != nil {
		t.Fatal(err)
	}
	resume := *cfg
	resume.Resume = half.ID
	_, r := startRun(t, &resume, st)
	for range r.Events {
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	after, _, err := st.Run(half.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !after.StartedAt.Equal(began) {
		t.Errorf("started %s, want the first attempt's %s", after.StartedAt, began)
	}
	d, ok := after.Duration()
	if !ok || d < 30*time.Second || d > 40*time.Second {
		t.Errorf("duration %s (%v), want the two attempts' 30 s and a little", d, ok)
	}
	if after.AttemptStartedAt.Before(ended) {
		t.Errorf("the resumed attempt started at %s, before the first one ended", after.AttemptStartedAt)
	}
}
