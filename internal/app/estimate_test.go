package app

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/cost"
	"github.com/ragscope/ragscope/eval/estimate"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/internal/store"
	"github.com/ragscope/ragscope/prompts"
)

// The estimate is checked against what the fake judge actually received:
// per task, the requests of the run that follows it.

const estModel, estEmbedModel = "gpt-4o-mini", "text-embedding-3-small"

// estJudge is the generic fake judge, with questions of each sample's own:
// the generic one gives every sample the same ones, and a run's embedding
// requests then depend on which sample stored them first (a request
// whose texts were all stored meanwhile by others is not sent).
func estJudge(r *fakejudge.Request) fakejudge.Reply {
	rep := fakejudge.Generic(r)
	if r.Task == prompts.TaskAnswerRelevancyQuestion {
		h := sha256.Sum256([]byte(r.Prompt()))
		for i := range rep.Choices {
			rep.Choices[i] = fakejudge.JSON(map[string]any{"question": fmt.Sprintf("what does %x ask, take %d?", h[:6], i), "noncommittal": 0})
		}
	}
	return rep
}

func estimateConfig(srv *fakejudge.Server, dataset string) *Config {
	return &Config{Dataset: dataset, BaseURL: srv.BaseURL(), APIKey: "test-key-123456", APIType: "openai",
		Model: estModel, EmbeddingModel: estEmbedModel, ResponseFormat: "json_schema", EmbedFormat: "float", Strictness: 3,
		Concurrency: 4, Timeout: 10 * time.Second, MaxRetries: 0, Metrics: "all", Lang: "auto", Stream: true}
}

func estPrepared(t *testing.T, cfg *Config, st cache.Store) *Session {
	t.Helper()
	s, err := Prepare(parsed(t, cfg), st, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func estimateOf(t *testing.T, s *Session) *estimate.Estimate {
	t.Helper()
	est, err := s.Estimate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return est
}

func estRunToEnd(t *testing.T, s *Session) {
	t.Helper()
	run, err := s.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for range run.Events {
	}
	if _, err := run.Wait(); err != nil {
		t.Fatal(err)
	}
}

// estSent is what the fake judge has received, per task.
type estSent struct {
	tasks              map[string]int
	prompt, completion int // as the fake judge reports them
	embedPrompt        int
}

func estSentBy(srv *fakejudge.Server) estSent {
	out := estSent{tasks: map[string]int{}}
	for _, r := range srv.Requests() {
		out.tasks[r.Task]++
		p, c := fakejudge.Usage(r.Model, r.Messages, estJudge(r).Choices)
		out.prompt += p
		out.completion += c
	}
	emb := cost.For(estEmbedModel)
	for _, b := range srv.EmbedBatches() {
		out.tasks[eval.TaskEmbeddings]++
		for _, text := range b {
			out.embedPrompt += emb.Count(text)
		}
	}
	return out
}

func (s estSent) minus(o estSent) estSent {
	d := estSent{tasks: map[string]int{}, prompt: s.prompt - o.prompt, completion: s.completion - o.completion, embedPrompt: s.embedPrompt - o.embedPrompt}
	for k, v := range s.tasks {
		d.tasks[k] = v - o.tasks[k]
	}
	return d
}

func (s estSent) total() int {
	n := 0
	for _, v := range s.tasks {
		n += v
	}
	return n
}

// estCheckCalls compares the estimate's calls per metric with the requests
// per task, exactly.
func estCheckCalls(t *testing.T, est *estimate.Estimate, got estSent) {
	t.Helper()
	want := map[eval.Metric]estimate.Calls{}
	for task, n := range got.tasks {
		m := eval.MetricOfTask(task)
		c := want[m]
		if task == eval.TaskEmbeddings {
			c.Embeddings += n
		} else {
			c.Chat += n
		}
		want[m] = c
	}
	total := estimate.Calls{}
	for _, m := range eval.AllMetrics {
		if est.ByMetric[m].Calls != want[m] {
			t.Errorf("%s: estimated %+v, the run sent %+v", m, est.ByMetric[m].Calls, want[m])
		}
		total.Chat += want[m].Chat
		total.Embeddings += want[m].Embeddings
	}
	if est.Calls != total {
		t.Errorf("total: estimated %+v, the run sent %+v", est.Calls, total)
	}
}

func estRatio(est, actual int) float64 { return float64(est) / float64(actual) }

func TestEstimateIsTheRunOfTheDemo(t *testing.T) {
	srv := fakejudge.New(estJudge)
	defer srv.Close()
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	s := estPrepared(t, estimateConfig(srv, filepath.Join("..", "..", "testdata", "demo.jsonl")), st)
	est := estimateOf(t, s)
	if n := srv.Count(""); n != 0 {
		t.Fatalf("the estimate sent %d requests to the judge", n)
	}
	if est.Calls.Chat == 0 || est.CacheHits != 0 {
		t.Fatalf("a first estimate: %+v", est)
	}
	estRunToEnd(t, s)
	got := estSentBy(srv)
	estCheckCalls(t, est, got)
	r := estRatio(est.Tokens.Prompt, got.prompt+got.embedPrompt)
	t.Logf("demo: %d chat + %d embedding calls estimated and sent; prompt tokens estimated %d, reported %d (chat %d + embeddings %d): ratio %.3f",
		est.Calls.Chat, est.Calls.Embeddings, est.Tokens.Prompt, got.prompt+got.embedPrompt, got.prompt, got.embedPrompt, r)
	if r < 0.9 || r > 1.1 {
		t.Errorf("prompt tokens: estimate %d is not within 10%% of the %d the judge reported", est.Tokens.Prompt, got.prompt+got.embedPrompt)
	}
	for task, src := range est.Completion {
		if src != "default guess" {
			t.Errorf("%s: completion from %q before any run", task, src)
		}
	}
	if est.CostUSD == nil || *est.CostUSD <= 0 {
		t.Errorf("cost of a priced model: %v", est.CostUSD)
	}
}

// A dataset half evaluated: the estimate of the whole counts the half's
// calls as cache hits and plans exactly the other half's, and prices their
// completion from the replies already cached.
func TestEstimateOfAPartlyCachedDataset(t *testing.T) {
	srv := fakejudge.New(estJudge)
	defer srv.Close()
	dir := t.TempDir()
	st := openShared(t, filepath.Join(dir, "r.db"), store.Hold)
	demo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(demo)), "\n")
	half := filepath.Join(dir, "half.jsonl")
	if err := os.WriteFile(half, []byte(strings.Join(lines[:len(lines)/2], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	estRunToEnd(t, estPrepared(t, estimateConfig(srv, half), st))
	before := estSentBy(srv)

	s := estPrepared(t, estimateConfig(srv, filepath.Join("..", "..", "testdata", "demo.jsonl")), st)
	est := estimateOf(t, s)
	if n := srv.Count(""); n != before.total() {
		t.Fatalf("the estimate sent requests to the judge: %d after it, %+v before", n, before.tasks)
	}
	if est.CacheHits == 0 {
		t.Fatal("no cache hit estimated for the evaluated half")
	}
	estRunToEnd(t, s)
	got := estSentBy(srv).minus(before)
	estCheckCalls(t, est, got)
	r := estRatio(est.Tokens.Prompt, got.prompt+got.embedPrompt)
	rc := estRatio(est.Tokens.Completion, got.completion)
	t.Logf("partly cached demo: %d chat + %d embedding calls estimated and sent, %d cache hits; prompt tokens ratio %.3f, completion tokens estimated %d (from history) vs %d: ratio %.3f",
		est.Calls.Chat, est.Calls.Embeddings, est.CacheHits, r, est.Tokens.Completion, got.completion, rc)
	if r < 0.9 || r > 1.1 {
		t.Errorf("prompt tokens: estimate %d is not within 10%% of the %d the judge reported", est.Tokens.Prompt, got.prompt+got.embedPrompt)
	}
	for _, task := range prompts.Tasks {
		if !slices.Contains(eval.DefaultMetrics, eval.MetricOfTask(task)) {
			continue // not a metric of the run
		}
		if !strings.HasPrefix(est.Completion[task], "history (") {
			t.Errorf("%s: completion from %q, want the history of the cached half", task, est.Completion[task])
		}
	}
	if rc < 0.9 || rc > 1.1 {
		t.Errorf("completion tokens: estimate %d from history is not within 10%% of the %d of the run", est.Tokens.Completion, got.completion)
	}

	// Everything is cached now: nothing to send, and the past runs still
	// tell how long the replies are.
	again := estimateOf(t, estPrepared(t, estimateConfig(srv, filepath.Join("..", "..", "testdata", "demo.jsonl")), st))
	if again.Calls != (estimate.Calls{}) || again.CostUSD == nil || *again.CostUSD != 0 {
		t.Errorf("fully cached: %+v, cost %v", again.Calls, again.CostUSD)
	}
	fresh := smallDataset(t, 3)
	other := estimateOf(t, estPrepared(t, estimateConfig(srv, fresh), st))
	if !strings.HasPrefix(other.Completion[prompts.TaskContextPrecisionVerdict], "history (") {
		t.Errorf("a new dataset with the same prompts: completion from %q, want past runs", other.Completion[prompts.TaskContextPrecisionVerdict])
	}
}

// Identical samples: the run pays for the first and the cache answers the
// second; the estimate says the same. Without the cache both are paid.
func TestEstimateOfRepeatedSamples(t *testing.T) {
	for _, noCache := range []bool{false, true} {
		srv := fakejudge.New(estJudge)
		dir := t.TempDir()
		line := `{"user_input":"What is the capital of France?","response":"Paris is the capital. It is on the Seine.","retrieved_contexts":["Paris is the capital of France.","The Seine flows through Paris."],"reference":"Paris."}` + "\n"
		data := filepath.Join(dir, "dup.jsonl")
		other := `{"user_input":"How tall is it?","response":"About 330 m.","retrieved_contexts":["The tower is 330 m tall."],"reference":"330 metres."}` + "\n"
		if err := os.WriteFile(data, []byte(line+line+other+line), 0o644); err != nil {
			t.Fatal(err)
		}
		st := openShared(t, filepath.Join(dir, "r.db"), store.Hold)
		cfg := estimateConfig(srv, data)
		cfg.NoCache = noCache
		s := estPrepared(t, cfg, st)
		est := estimateOf(t, s)
		estRunToEnd(t, s)
		estCheckCalls(t, est, estSentBy(srv))
		t.Logf("no-cache %v: %+v calls, %d cache hits", noCache, est.Calls, est.CacheHits)
		srv.Close()
	}
}

func TestEstimateOfUnpricedAndOfflineJudges(t *testing.T) {
	srv := fakejudge.New(estJudge)
	defer srv.Close()
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	data := smallDataset(t, 4)

	cfg := estimateConfig(srv, data)
	cfg.Model = "qwen2.5:7b"
	est := estimateOf(t, estPrepared(t, cfg, st))
	if est.CostUSD != nil || est.ByMetric[eval.Faithfulness].CostUSD != nil {
		t.Errorf("a model without a price has a cost: %v", est.CostUSD)
	}
	if est.ByMetric[eval.AnswerRelevancy].CostUSD != nil {
		t.Error("answer relevancy asks the unpriced chat model too, so it has no cost")
	}
	if !strings.Contains(strings.Join(est.Notes, "\n"), `no price for model "qwen2.5:7b": add it to `+PricesPath(cfg)) {
		t.Errorf("notes do not say how to price the model: %q", est.Notes)
	}
	if !strings.HasPrefix(est.Tokenizer["qwen2.5:7b"], "estimated") {
		t.Errorf("tokenizer of a local model: %q", est.Tokenizer)
	}
	if !est.Over(1000) {
		t.Error("an estimate that cannot be priced must not pass a budget")
	}

	off := estimateConfig(srv, data)
	off.Offline = true
	est = estimateOf(t, estPrepared(t, off, st))
	if est.Calls != (estimate.Calls{}) || est.CostUSD == nil || *est.CostUSD != 0 || est.Notes[0] != estimate.NoteOffline {
		t.Errorf("offline: %+v, cost %v, notes %q", est.Calls, est.CostUSD, est.Notes)
	}
	if srv.Count("") != 0 {
		t.Errorf("estimates sent %d requests", srv.Count(""))
	}
}
