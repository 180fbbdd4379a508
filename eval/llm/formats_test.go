package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/prompts"
)

// TestStepDownToTextKeepsEachPrompt: a server that takes neither
// json_schema nor json_object and ignores n is asked in text with the
// schema in the prompt, once: the draws of answer relevancy, copies of one
// base request, each carry the schema once.
func TestStepDownToTextKeepsEachPrompt(t *testing.T) {
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		if r.Format == "json_schema" || r.Format == "json_object" {
			return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"response_format is not supported","type":"invalid_request_error"}}`}
		}
		q := *r
		q.N, q.Task = 1, fakejudge.GuessTask(r.Prompt())
		return fakejudge.Oracle(&q)
	})
	defer srv.Close()
	ab := endpoint.NewAbilities(endpoint.EndpointProfile{}, "")
	client, err := endpoint.New(endpoint.Config{BaseURL: srv.BaseURL(), APIKey: "k", MaxRetries: 1, BackoffBase: time.Millisecond,
		RequestTimeout: 5 * time.Second, Abilities: ab})
	if err != nil {
		t.Fatal(err)
	}
	j := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "m", EmbeddingModel: "e", QuestionTemperature: 0.7, Lang: eval.LangEN, Abilities: ab},
		eval.Instrument(client), prompts.Embedded())
	r := &eval.Runner{Judge: j, Config: eval.RunnerConfig{Metrics: []eval.Metric{eval.AnswerRelevancy}, Strictness: 4, Workers: 1}}
	res := r.Run(context.Background(), []eval.Sample{{Question: "When does the office open?", Answer: "The office opens at 9 am.", Contexts: []string{"The office opens at 9 am."}}})
	if st := res[0].Status[eval.AnswerRelevancy]; st != eval.StatusOK {
		t.Fatalf("answer relevancy %s: %s", st, res[0].Errors[eval.AnswerRelevancy])
	}
	if ab.Format() != "text" || ab.NHonoured() {
		t.Fatalf("profile %+v", ab.Profile())
	}
	var lengths []int
	for _, q := range srv.Requests() {
		if q.Format == "" { // text: no response_format sent
			if n := strings.Count(q.Prompt(), "It must follow this JSON Schema"); n != 1 {
				t.Errorf("a text request carries the schema %d times", n)
			}
			lengths = append(lengths, len(q.Prompt()))
		}
	}
	if len(lengths) != 4 {
		t.Fatalf("%d text requests, want 4 (one per draw)", len(lengths))
	}
	for _, n := range lengths[1:] {
		if n != lengths[0] {
			t.Errorf("prompt lengths %v: the draws differ", lengths)
			break
		}
	}
}
