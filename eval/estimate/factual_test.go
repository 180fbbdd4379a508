package estimate

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/prompts"
)

// sentenceJudge extracts the statements the planner plans (the text's
// sentences) and answers the other tasks generically, so that a real run
// makes the very calls the plan counts.
func sentenceJudge(r *fakejudge.Request) fakejudge.Reply {
	switch r.Task {
	case prompts.TaskFaithfulnessStatements:
		return fakejudge.Reply{Choices: []string{fakejudge.JSON(map[string]any{"statements": sentencesOf(r.TaskText("answer"))})}}
	case prompts.TaskFaithfulnessVerdicts:
		vs := []map[string]any{}
		for _, st := range r.TaskItems("statement") {
			vs = append(vs, map[string]any{"statement": st, "chunk": nil, "quote": "", "reason": "r", "verdict": 1})
		}
		return fakejudge.Reply{Choices: []string{fakejudge.JSON(map[string]any{"statements": vs})}}
	}
	return fakejudge.Generic(r)
}

// Factual correctness and noise sensitivity, planned and then run without
// a cache against a fake judge: per sample with a reference (the fifth has
// none, so neither metric calls), factual correctness extracts the
// answer's statements and judges them against the reference, and outside
// precision mode also extracts the reference's (2 sentences) and judges
// them against the answer; noise sensitivity extracts both, judges the
// answer's statements against the reference, and both lists against each
// of the 3 chunks.
func TestPlanOfFactualCorrectnessAndNoiseSensitivity(t *testing.T) {
	samples := benchSamples(5)
	samples[4].Reference = ""
	for _, tc := range []struct {
		name    string
		metrics []eval.Metric
		fcMode  string
		nsMode  string
		want    map[eval.Metric]Calls
	}{
		{"factual f1", []eval.Metric{eval.FactualCorrectness}, "", "", map[eval.Metric]Calls{eval.FactualCorrectness: {Chat: 4 * 4}}},
		{"factual recall", []eval.Metric{eval.FactualCorrectness}, "recall", "", map[eval.Metric]Calls{eval.FactualCorrectness: {Chat: 4 * 4}}},
		{"factual precision", []eval.Metric{eval.FactualCorrectness}, "precision", "", map[eval.Metric]Calls{eval.FactualCorrectness: {Chat: 4 * 2}}},
		{"noise relevant", []eval.Metric{eval.NoiseSensitivity}, "", "", map[eval.Metric]Calls{eval.NoiseSensitivity: {Chat: 4 * (2 + 1 + 2*3)}}},
		{"noise irrelevant", []eval.Metric{eval.NoiseSensitivity}, "", "irrelevant", map[eval.Metric]Calls{eval.NoiseSensitivity: {Chat: 4 * (2 + 1 + 2*3)}}},
		// Each metric is billed the calls its own steps make; without a
		// cache the metrics' identical requests are each planned and sent.
		{"with faithfulness", []eval.Metric{eval.Faithfulness, eval.FactualCorrectness, eval.NoiseSensitivity}, "", "", map[eval.Metric]Calls{
			eval.Faithfulness:       {Chat: 5 * 2},
			eval.FactualCorrectness: {Chat: 4 * 4},
			eval.NoiseSensitivity:   {Chat: 4 * (2 + 1 + 2*3)},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := planConfig("gpt-4o-mini")
			cfg.Metrics, cfg.FCMode, cfg.NSMode = tc.metrics, tc.fcMode, tc.nsMode
			est, err := Run(context.Background(), cfg, eval.SliceSource(samples), len(samples))
			if err != nil {
				t.Fatal(err)
			}
			requirePlan(t, est, tc.want)

			// The run the plan is of.
			srv := fakejudge.New(sentenceJudge)
			defer srv.Close()
			client, err := endpoint.New(endpoint.Config{BaseURL: srv.BaseURL(), APIKey: "k", Concurrency: 4, RequestTimeout: 5 * time.Second,
				MaxRetries: 0, BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			j := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "gpt-4o-mini", EmbeddingModel: "text-embedding-3-small"}, eval.Instrument(client), prompts.Embedded())
			r := &eval.Runner{Judge: j, Config: eval.RunnerConfig{Metrics: tc.metrics, FCMode: tc.fcMode, NSMode: tc.nsMode, Workers: 2}}
			run := make([]eval.Sample, len(samples))
			copy(run, samples)
			for _, res := range r.Run(context.Background(), run) {
				for _, m := range tc.metrics {
					if m == eval.Faithfulness {
						continue // needs no reference
					}
					if want := map[bool]eval.Status{true: eval.StatusMissingInput, false: eval.StatusOK}[res.Index == 4]; res.Status[m] != want {
						t.Errorf("sample %d %s: %s (%s), want %s", res.Index, m, res.Status[m], res.Errors[m], want)
					}
				}
			}
			if sent := srv.Count(""); sent != est.Calls.Chat {
				t.Errorf("the run sent %d chat requests, the estimate planned %d", sent, est.Calls.Chat)
			}
		})
	}
}

// With a cache, metrics that send the very same requests (the answer's
// statements: faithfulness, answer correctness, factual correctness and
// noise sensitivity; the answer's claims against the reference: factual
// correctness and noise sensitivity) share one call, and each metric is
// billed what its steps made: the estimate's split per metric is the real
// run's, call for call and hit for hit, however the race between the
// metrics went.
func TestPlanPerMetricEqualsTheRunsBilling(t *testing.T) {
	samples := benchSamples(6)
	metrics := []eval.Metric{eval.Faithfulness, eval.AnswerCorrectness, eval.FactualCorrectness, eval.NoiseSensitivity, eval.AnswerSimilarity}
	srv := fakejudge.New(sentenceJudge)
	defer srv.Close()
	db, err := cache.Open(filepath.Join(t.TempDir(), "c.db"), cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := planConfig("gpt-4o-mini")
	cfg.Metrics, cfg.Store = metrics, db
	est, err := Run(context.Background(), cfg, eval.SliceSource(samples), len(samples))
	if err != nil {
		t.Fatal(err)
	}
	client, err := endpoint.New(endpoint.Config{BaseURL: srv.BaseURL(), APIKey: "k", Concurrency: 8, RequestTimeout: 5 * time.Second,
		MaxRetries: 0, BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	j := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "gpt-4o-mini", EmbeddingModel: "text-embedding-3-small"},
		eval.Instrument(cache.NewClient(db, client, cache.ReadWrite)), prompts.Embedded())
	r := &eval.Runner{Judge: j, Config: eval.RunnerConfig{Metrics: metrics, Workers: 3}}
	run := make([]eval.Sample, len(samples))
	copy(run, samples)
	r.Run(context.Background(), run)
	billed := r.Usage()
	for _, m := range metrics {
		got, want := est.ByMetric[m], billed[m]
		if got.Calls.Chat != want.Chat || got.Calls.Embeddings != want.Embeddings || got.CacheHits != want.CacheHits {
			t.Errorf("%s: estimate %+v hits %d, the run billed %+v", m, got.Calls, got.CacheHits, want.TaskUsage)
		}
	}
	// The shared requests went to the first metric of the run: the
	// statements to faithfulness, the claims against the reference to
	// factual correctness; what noise sensitivity paid is its own.
	if n := billed[eval.AnswerCorrectness].Tasks["faithfulness_statements"]; n.Chat != len(samples) || n.CacheHits != len(samples) {
		t.Errorf("answer correctness's statement calls: %+v, want %d sent (the reference's) and %d hits (the answer's)", n, len(samples), len(samples))
	}
	// Per sample: the answer against the reference (a hit: factual
	// correctness paid) and two per chunk, of which the reference's
	// statements against the two chunks every sample shares are paid once.
	if n := billed[eval.NoiseSensitivity].Tasks["entailment_verdicts"]; n.Chat != len(samples)*6-2*(len(samples)-1) || n.CacheHits != len(samples)+2*(len(samples)-1) {
		t.Errorf("noise sensitivity's entailment calls: %+v", n)
	}
	if n := billed[eval.FactualCorrectness].Tasks["entailment_verdicts"]; n.Chat != 2*len(samples) || n.CacheHits != 0 {
		t.Errorf("factual correctness's entailment calls: %+v, want both directions of every sample sent", n)
	}
	if n := billed[eval.Faithfulness].Tasks["faithfulness_statements"]; n.Chat != len(samples) || n.CacheHits != 0 {
		t.Errorf("faithfulness's statement calls: %+v", n)
	}
}
