package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
)

// A run record written before usage and costs were kept decodes, says it
// has no cost, and is written back with the old fields untouched.
func TestOldRunRecordDecodes(t *testing.T) {
	old := `{"id":"20250101-000000-abcd","dataset":"d.jsonl","started_at":"2025-01-01T00:00:00Z","finished_at":"2025-01-01T00:01:00Z",
"judge":{"kind":"llm","name":"gpt-4o-mini","model":"gpt-4o-mini"},"prompts":{},"metrics":["faithfulness"],
"calls":{"chat":3,"embeddings":1,"retries":0,"cache_hits":2,"errors":0},"tokens":{"prompt_tokens":100,"completion_tokens":20},"samples":1}`
	var info RunInfo
	dec := json.NewDecoder(strings.NewReader(old))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&info); err != nil {
		t.Fatal(err)
	}
	if info.Usage != nil || info.CostUSD != nil || info.Pricing != nil || info.UsagePartial || info.Calls.Chat != 3 || info.Tokens.PromptTokens != 100 {
		t.Fatalf("decoded %+v", info)
	}
	if c := info.CostText(); c != "" {
		t.Errorf("cost text %q, want none", c)
	}
	if s := info.CostSentence(); s != "not recorded" {
		t.Errorf("cost sentence %q", s)
	}
	b, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"cost_usd":null`)) || bytes.Contains(b, []byte(`"usage"`)) || bytes.Contains(b, []byte(`"pricing"`)) {
		t.Errorf("re-encoded: %s", b)
	}
}

func pricedRun(p *Pricing, tasks map[string]eval.TaskUsage) RunInfo {
	fin := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := RunInfo{FinishedAt: &fin, Pricing: p}
	var calls eval.CallCounts
	var tok eval.Usage
	for _, u := range tasks {
		calls.Chat += u.Chat
		calls.Embeddings += u.Embeddings
		calls.CacheHits += u.CacheHits
		tok.PromptTokens += u.PromptTokens
		tok.CompletionTokens += u.CompletionTokens
	}
	r.AddUsage(calls, tok, byOwnMetric(tasks))
	r.PriceUsage()
	return r
}

// byOwnMetric bills each task to the metric it is named after, as a run
// whose metrics share no request does.
func byOwnMetric(tasks map[string]eval.TaskUsage) map[eval.Metric]eval.MetricUsage {
	out := map[eval.Metric]eval.MetricUsage{}
	for task, u := range tasks {
		m := eval.MetricOfTask(task)
		out[m] = out[m].With(task, u)
	}
	return out
}

func TestPriceUsage(t *testing.T) {
	chat := &ModelPrice{Model: "c", Prompt: 2, Completion: 8}
	emb := &ModelPrice{Model: "e", Prompt: 0.1}
	tasks := map[string]eval.TaskUsage{
		"faithfulness_statements":        {Chat: 2, Usage: eval.Usage{PromptTokens: 1000, CompletionTokens: 100}},
		"faithfulness_verdicts":          {Chat: 1, CacheHits: 1, Usage: eval.Usage{PromptTokens: 500, CompletionTokens: 50}},
		"answer_relevancy_question":      {Chat: 1, Usage: eval.Usage{PromptTokens: 300, CompletionTokens: 30}},
		eval.TaskEmbeddings:              {Embeddings: 1, Usage: eval.Usage{PromptTokens: 40}},
		"context_recall_classifications": {CacheHits: 3},
	}
	f := (1500*2 + 150*8) / 1e6
	ar := (300*2+30*8)/1e6 + 40*0.1/1e6
	tests := []struct {
		name     string
		pricing  *Pricing
		total    *float64
		metric   map[eval.Metric]*float64
		text     string
		sentence string
	}{
		{"priced", &Pricing{Table: "built-in (2025-09-30)", Chat: chat, Embeddings: emb}, usdPtr(f + ar),
			map[eval.Metric]*float64{eval.Faithfulness: usdPtr(f), eval.AnswerRelevancy: usdPtr(ar), eval.ContextRecall: usdPtr(0)},
			"$0.00504", "$0.00504 (prices built-in (2025-09-30))"},
		{"embedding model unpriced", &Pricing{Chat: chat, Unpriced: []string{"e"}}, nil,
			map[eval.Metric]*float64{eval.Faithfulness: usdPtr(f), eval.AnswerRelevancy: nil, eval.ContextRecall: usdPtr(0)},
			"—", "unknown (no price for e (add it to prices.json))"},
		{"offline", &Pricing{Offline: true}, usdPtr(0),
			map[eval.Metric]*float64{eval.Faithfulness: usdPtr(0), eval.AnswerRelevancy: usdPtr(0), eval.ContextRecall: usdPtr(0)},
			"$0", "$0 (offline judge: no cost)"},
		{"no prices recorded", nil, nil,
			map[eval.Metric]*float64{eval.Faithfulness: nil, eval.AnswerRelevancy: nil, eval.ContextRecall: nil}, "", "not recorded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := pricedRun(tt.pricing, tasks)
			if !sameUSD(r.CostUSD, tt.total) {
				t.Errorf("run cost %v, want %v", showUSD(r.CostUSD), showUSD(tt.total))
			}
			for m, want := range tt.metric {
				if got := r.Usage[m].CostUSD; !sameUSD(got, want) {
					t.Errorf("%s cost %v, want %v", m, showUSD(got), showUSD(want))
				}
			}
			if got := r.CostText(); got != tt.text {
				t.Errorf("cost text %q, want %q", got, tt.text)
			}
			if got := r.CostSentence(); got != tt.sentence {
				t.Errorf("cost sentence %q, want %q", got, tt.sentence)
			}
			// An interrupted attempt leaves the cost a floor, but nothing
			// to add to the offline judge's.
			r.UsagePartial = true
			if got := r.CostText(); r.Pricing != nil && r.Pricing.Offline && got != "$0" || r.Pricing != nil && !r.Pricing.Offline && tt.total != nil && got != tt.text+"+" {
				t.Errorf("interrupted: cost text %q", got)
			}
			if u := r.Usage[eval.Faithfulness]; u.Chat != 3 || u.CacheHits != 1 || u.PromptTokens != 1500 || len(u.Tasks) != 2 {
				t.Errorf("faithfulness rolled up to %+v", u)
			}
		})
	}
}

// A resumed run's usage adds to the earlier attempt's, task by task.
func TestAddUsageAdds(t *testing.T) {
	part := map[string]eval.TaskUsage{"faithfulness_statements": {Chat: 1, CacheHits: 2, Usage: eval.Usage{PromptTokens: 10, CompletionTokens: 1}}}
	r := pricedRun(&Pricing{Chat: &ModelPrice{Prompt: 1e6, Completion: 1e6}}, part)
	r.AddUsage(eval.CallCounts{Chat: 1, CacheHits: 2, Retries: 1}, eval.Usage{PromptTokens: 10, CompletionTokens: 1}, byOwnMetric(part))
	r.PriceUsage()
	u := r.Usage[eval.Faithfulness].Tasks["faithfulness_statements"]
	if u.Chat != 2 || u.CacheHits != 4 || u.PromptTokens != 20 || r.Calls.Chat != 2 || r.Calls.Retries != 1 || r.Tokens.PromptTokens != 20 {
		t.Fatalf("after adding: %+v, calls %+v", u, r.Calls)
	}
	if r.CostUSD == nil || *r.CostUSD != 22 {
		t.Fatalf("cost %v, want 22", showUSD(r.CostUSD))
	}
	r.UsagePartial = true
	if got := r.CostText(); got != "$22.00+" {
		t.Errorf("partial cost text %q", got)
	}
	r.ResetUsage()
	if r.Usage != nil || r.CostUSD != nil || r.Calls != (eval.CallCounts{}) || r.UsagePartial {
		t.Errorf("reset left %+v", r)
	}
}

func TestFormatUSD(t *testing.T) {
	for v, want := range map[float64]string{0: "$0", 0.0123: "$0.0123", 0.000041: "$0.000041", 0.5: "$0.5", 1: "$1.00",
		12.345: "$12.35", 0.00012345: "$0.000123", 1e-12: "$0"} {
		if got := FormatUSD(v); got != want {
			t.Errorf("FormatUSD(%v) = %q, want %q", v, got, want)
		}
	}
}

// The Markdown report says what the run cost, per metric and in all.
func TestMarkdownReportShowsCost(t *testing.T) {
	r := pricedRun(&Pricing{Table: "built-in (2025-09-30)", Chat: &ModelPrice{Prompt: 1, Completion: 1}},
		map[string]eval.TaskUsage{"faithfulness_statements": {Chat: 2, Usage: eval.Usage{PromptTokens: 6000, CompletionTokens: 4000}}})
	r.Metrics = []eval.Metric{eval.Faithfulness, eval.ContextRecall}
	var b bytes.Buffer
	if err := WriteReportMarkdown(&b, r, tallyOf(r.Metrics, nil, Levels{}).Summary(), map[Diagnosis]int{}, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- cost: $0.01 (prices built-in (2025-09-30))", "| faithfulness | n/a | 0 | 0 | 0 | 2 | 0 | 10000 | $0.01 |  |",
		"| context_recall | n/a | 0 | 0 | 0 | 0 | 0 | 0 | $0 |  |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
}

func usdPtr(v float64) *float64 { return &v }

func sameUSD(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	d := *a - *b
	return d < 1e-9 && d > -1e-9
}

func showUSD(v *float64) any {
	if v == nil {
		return "null"
	}
	return *v
}

// A finished run with fewer results than samples (a salvaged database, a
// run cut short) says so in the header; a live one says how far it is.
func TestHeaderSaysMissingResults(t *testing.T) {
	done := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	r := RunInfo{ID: "r", Samples: 14, StartedAt: done.Add(-time.Minute), FinishedAt: &done}
	for _, tt := range []struct {
		results int
		ended   bool
		want    string
	}{
		{14, true, "(14 samples)"},
		{12, true, "(14 samples, 12 with a result: the others have none (the run was cut short, or its results were lost))"},
		{5, false, "(14 samples, 5 evaluated so far)"},
	} {
		got := r.HeaderFacts("d.jsonl", time.Minute, tt.ended, tt.results)[0].Value
		if !strings.Contains(got, tt.want) {
			t.Errorf("%d results, ended %v: %q", tt.results, tt.ended, got)
		}
	}
}

// The header of a run killed before its end says so and how to go on; of
// one with skipped records reads whole; of one whose scores carry human
// labels says so.
func TestHeaderSaysWhatTheRunIs(t *testing.T) {
	r := RunInfo{ID: "r1", Samples: 14, Skipped: 2, Interrupted: true, Config: map[string]string{"human_labels": "applied"}}
	facts := r.HeaderFacts("d.jsonl", 0, false, 4)
	if got := facts[0].Value; got != "d.jsonl (14 samples, 2 skipped as invalid, 4 with a result: the run was interrupted; continue it with ragscope run --resume r1)" {
		t.Errorf("dataset fact %q", got)
	}
	if last := facts[len(facts)-1]; last.Name != "human labels" || last.Value != "applied" {
		t.Errorf("last fact %+v", last)
	}
}
