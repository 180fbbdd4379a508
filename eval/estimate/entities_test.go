package estimate

import (
	"context"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/prompts"
)

// Context entity recall plans two calls per sample with a reference and a
// context (the reference's entities, the joined contexts'), none for the
// others, and that is what a run of the same samples sends.
func TestPlanOfEntityRecallIsTheRun(t *testing.T) {
	samples := benchSamples(6)
	samples[4].Reference = "" // no reference: no call
	samples[5].Contexts = nil // no contexts: no call
	samples[3].Reference = "Eiffel's company designed it; it was finished in 1889 (3)."
	cfg := planConfig("gpt-4o-mini")
	cfg.Metrics = []eval.Metric{eval.ContextEntityRecall}
	est, err := Run(context.Background(), cfg, eval.SliceSource(samples), len(samples))
	if err != nil {
		t.Fatal(err)
	}
	// The first three share their reference: the real run's cache would
	// answer the repeats, but without a cache every call is planned.
	requirePlan(t, est, map[eval.Metric]Calls{eval.ContextEntityRecall: {Chat: 8}})

	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	client, err := endpoint.New(endpoint.Config{BaseURL: srv.BaseURL(), APIKey: "k", Concurrency: 4, RequestTimeout: 5 * time.Second,
		MaxRetries: 1, BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	j := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "gpt-4o-mini", EmbeddingModel: "text-embedding-3-small"}, eval.Instrument(client), prompts.Embedded())
	r := &eval.Runner{Judge: j, Config: eval.RunnerConfig{Metrics: cfg.Metrics, Workers: 2}}
	res := r.Run(context.Background(), samples)
	if n := srv.Count(prompts.TaskContextEntityRecallEntities); n != est.Calls.Chat || srv.Count("") != n {
		t.Errorf("the run sent %d entity calls (%d in all), the estimate planned %d", n, srv.Count(""), est.Calls.Chat)
	}
	for i, want := range []eval.Status{eval.StatusOK, eval.StatusOK, eval.StatusOK, eval.StatusOK, eval.StatusMissingInput, eval.StatusMissingInput} {
		if got := res[i].Status[eval.ContextEntityRecall]; got != want {
			t.Errorf("sample %d: %s (%s), want %s", i, got, res[i].Errors[eval.ContextEntityRecall], want)
		}
	}
}
