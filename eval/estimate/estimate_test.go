package estimate

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/prompts"
)

// Without a cache every call is planned: per sample one statements and one
// verdicts call, one question request with n, one embedding request, one
// verdict per chunk and one classification call; the planner's replies
// pass the judge's own checks, so no plan stops short.
func TestPlanOfSamplesWithoutCache(t *testing.T) {
	samples := benchSamples(5)
	samples[4].Reference = "" // no reference: no precision nor recall call
	cfg := planConfig("gpt-4o-mini")
	cfg.Metrics = eval.AllMetrics[:5]
	est, err := Run(context.Background(), cfg, eval.SliceSource(samples), len(samples))
	if err != nil {
		t.Fatal(err)
	}
	// Context utilization needs no reference: a verdict per chunk of every
	// sample, the one without a reference too.
	want := map[eval.Metric]Calls{
		eval.Faithfulness:       {Chat: 10},
		eval.AnswerRelevancy:    {Chat: 5, Embeddings: 5},
		eval.ContextPrecision:   {Chat: 12},
		eval.ContextRecall:      {Chat: 4},
		eval.ContextUtilization: {Chat: 15},
	}
	requirePlan(t, est, want)
	if est.Tokenizer["gpt-4o-mini"] != "o200k_base tokenizer" || est.CostUSD == nil || *est.CostUSD <= 0 {
		t.Errorf("tokenizer %q, cost %v", est.Tokenizer, est.CostUSD)
	}
	for _, task := range prompts.Tasks {
		if !slices.ContainsFunc(metricsOfTask(task), func(m eval.Metric) bool { return slices.Contains(cfg.Metrics, m) }) {
			continue // not a task of the metrics planned
		}
		if est.Completion[task] != "default guess" {
			t.Errorf("%s: %q", task, est.Completion[task])
		}
	}
	b, err := json.Marshal(est)
	if err != nil {
		t.Fatal(err)
	}
	var back Estimate
	if err := json.Unmarshal(b, &back); err != nil || back.Calls != est.Calls {
		t.Errorf("JSON round trip: %v %+v", err, back.Calls)
	}

	// n is sent: four questions are one request.
	cfg = planConfig("gpt-4o-mini")
	cfg.Metrics = []eval.Metric{eval.AnswerRelevancy}
	cfg.Strictness = 4
	est, err = Run(context.Background(), cfg, eval.SliceSource(samples[:1]), 1)
	if err != nil || est.ByMetric[eval.AnswerRelevancy].Calls != (Calls{Chat: 1, Embeddings: 1}) {
		t.Errorf("n=4: %+v, %v", est.ByMetric, err)
	}
	// An endpoint known to ignore n answers one choice: the judge asks
	// for the other three one by one.
	cfg.OneChoice = true
	est, err = Run(context.Background(), cfg, eval.SliceSource(samples[:1]), 1)
	if err != nil || est.ByMetric[eval.AnswerRelevancy].Calls != (Calls{Chat: 4, Embeddings: 1}) {
		t.Errorf("n=4 on an endpoint that ignores n: %+v, %v", est.ByMetric, err)
	}
}

// The new metrics planned alone or beside faithfulness: each is billed the
// calls its own steps make, the shared tasks (the statement extraction,
// the embeddings) included.
func TestPlanOfAnswerCorrectnessAndSimilarity(t *testing.T) {
	samples := benchSamples(5)
	samples[4].Reference = "" // no reference: neither metric calls
	for _, tc := range []struct {
		name    string
		metrics []eval.Metric
		want    map[eval.Metric]Calls
	}{
		{"both", []eval.Metric{eval.AnswerSimilarity, eval.AnswerCorrectness}, map[eval.Metric]Calls{
			// each metric is billed its own calls; without a cache both
			// metrics' (identical) embedding requests are planned and sent
			eval.AnswerSimilarity:  {Embeddings: 4},
			eval.AnswerCorrectness: {Chat: 12, Embeddings: 4},
		}},
		{"correctness alone", []eval.Metric{eval.AnswerCorrectness}, map[eval.Metric]Calls{
			// per sample: answer statements, reference statements, classification, one embedding
			eval.AnswerCorrectness: {Chat: 12, Embeddings: 4},
		}},
		{"with faithfulness", []eval.Metric{eval.Faithfulness, eval.AnswerCorrectness}, map[eval.Metric]Calls{
			eval.Faithfulness:      {Chat: 5 * 2},
			eval.AnswerCorrectness: {Chat: 12, Embeddings: 4},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := planConfig("gpt-4o-mini")
			cfg.Metrics = tc.metrics
			est, err := Run(context.Background(), cfg, eval.SliceSource(samples), len(samples))
			if err != nil {
				t.Fatal(err)
			}
			requirePlan(t, est, tc.want)
		})
	}
}

// requirePlan checks the calls est planned per metric, and that no
// planned reply failed the judge's checks (the plan would stop short).
func requirePlan(t *testing.T, est *Estimate, want map[eval.Metric]Calls) {
	t.Helper()
	for m, c := range want {
		if got := est.ByMetric[m].Calls; got != c {
			t.Errorf("%s: %+v, want %+v", m, got, c)
		}
	}
	for _, n := range est.Notes {
		if strings.Contains(n, "stopped short") {
			t.Errorf("a planned reply failed the judge's checks: %s", n)
		}
	}
}

func TestSentencesOf(t *testing.T) {
	for text, want := range map[string]int{
		"One. Two? Three!": 3,
		"会的。需要重新办理；请咨询。":   3,
		"no break at all":  1,
		"  ":               0,
	} {
		if got := sentencesOf(text); len(got) != want {
			t.Errorf("%q: %q", text, got)
		}
	}
}

// A judge that reasons writes its thinking before its JSON: a default
// guess of the completion tokens, which is the JSON alone, is grown by the
// reasoning share earlier runs of the endpoint measured, and says so.
func TestEstimateCountsReasoning(t *testing.T) {
	samples := benchSamples(3)
	run := func(share float64) *Estimate {
		cfg := planConfig("gpt-4o-mini")
		cfg.Metrics = []eval.Metric{eval.Faithfulness}
		cfg.ReasoningShare = share
		est, err := Run(context.Background(), cfg, eval.SliceSource(samples), len(samples))
		if err != nil {
			t.Fatal(err)
		}
		return est
	}
	plain, reasoning := run(0), run(0.75)
	if plain.Tokens.Completion == 0 {
		t.Fatal("no completion tokens planned")
	}
	if got, want := reasoning.Tokens.Completion, 4*plain.Tokens.Completion; got < want-2 || got > want+2 {
		t.Errorf("with 75%% reasoning: %d completion tokens, want about %d (4× %d)", got, want, plain.Tokens.Completion)
	}
	if src := reasoning.Completion["faithfulness_verdicts"]; !strings.Contains(src, "75% reasoning") {
		t.Errorf("the estimate does not say it counts reasoning: %q", src)
	}
	if reasoning.Tokens.Prompt != plain.Tokens.Prompt || reasoning.Calls != plain.Calls {
		t.Error("reasoning changed the calls or the prompt tokens")
	}
}

// A conversation turn after the first adds its two calls to the plan: the
// standalone rewrite (billed to the run's first metric) and the look back
// of faithfulness; a first turn adds none.
func TestPlanOfConversationTurns(t *testing.T) {
	samples := benchSamples(2)
	samples[0].Conversation, samples[0].Turn = "c", 1
	samples[1].Conversation, samples[1].Turn = "c", 2
	samples[1].History = []eval.Turn{{Turn: 1, Question: samples[0].Question, Answer: samples[0].Answer, Contexts: samples[0].Contexts}}
	cfg := planConfig("gpt-4o-mini")
	cfg.Metrics = []eval.Metric{eval.Faithfulness}
	est, err := Run(context.Background(), cfg, eval.SliceSource(samples), len(samples))
	if err != nil {
		t.Fatal(err)
	}
	requirePlan(t, est, map[eval.Metric]Calls{eval.Faithfulness: {Chat: 2 + 4}})
}

// metricsOfTask lists every metric whose steps make calls of task, the
// metric MetricOfTask names first: answer correctness, factual correctness
// and noise sensitivity reuse faithfulness's statement extraction, the
// last two share the entailment verdicts, and three metrics embed.
func metricsOfTask(task string) []eval.Metric {
	switch task {
	case eval.TaskEmbeddings:
		return []eval.Metric{eval.AnswerRelevancy, eval.AnswerSimilarity, eval.AnswerCorrectness}
	case string(eval.Faithfulness) + "_statements":
		return []eval.Metric{eval.Faithfulness, eval.AnswerCorrectness, eval.FactualCorrectness, eval.NoiseSensitivity}
	case "entailment_verdicts":
		return []eval.Metric{eval.FactualCorrectness, eval.NoiseSensitivity}
	}
	if m := eval.MetricOfTask(task); m != "" {
		return []eval.Metric{m}
	}
	return nil
}
