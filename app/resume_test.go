package app

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
)

// --resume re-evaluates only the samples the earlier attempt did not
// finish: their results are read back from the store page by page, not
// loaded whole, and the finished ones cost not even a cache lookup.
func TestResumeSkipsFinishedSamples(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), Hold)
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
	if s.Resumed() != 10 {
		t.Fatalf("Resumed() = %d, want 10", s.Resumed())
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
