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
	j := judgeOn(t, srv.BaseURL(), ab)
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

// TestRealServersRefusals: servers that refuse formats and fields in their
// own words are judged all the same: each refusal is learnt once, and the
// scores are the clean judge's.
func TestRealServersRefusals(t *testing.T) {
	refuse := func(status int, body string) (fakejudge.Reply, bool) {
		return fakejudge.Reply{Status: status, Body: body}, true
	}
	for _, tt := range []struct {
		name       string
		remembered string // the format the run starts from
		refuse     func(r *fakejudge.Request) (fakejudge.Reply, bool)
		format     string
		refused    []string
		nIgnored   bool
	}{
		// llama.cpp's server: a schema its grammar cannot take
		// (lidge-jun/opencodex#2135), n > 1 as a 500
		// (algorithmicsuperintelligence/optillm#8).
		{"llama.cpp", "", func(r *fakejudge.Request) (fakejudge.Reply, bool) {
			if r.Format == "json_schema" {
				return refuse(400, `{"error":{"code":400,"message":"Failed to initialize samplers: failed to parse grammar","type":"invalid_request_error"}}`)
			}
			if r.N > 1 {
				return refuse(500, `{"error":{"code":500,"message":"Only one completion choice is allowed","type":"server_error"}}`)
			}
			return fakejudge.Reply{}, false
		}, "json_object", []string{"n"}, true},
		// LM Studio takes json_schema and text but refuses json_object,
		// with its error as a string (LoadShine/tada#16): a run that
		// remembered json_object steps down to text.
		{"LM Studio", "json_object", func(r *fakejudge.Request) (fakejudge.Reply, bool) {
			if r.Format == "json_object" {
				return refuse(400, `{"error":"'response_format.type' must be 'json_schema' or 'text'"}`)
			}
			return fakejudge.Reply{}, false
		}, "text", nil, false},
		// deepseek-reasoner: neither format (gomate-community/TrustRAG#140),
		// no temperature (deepseek-ai/DeepSeek-R1#7), n ignored.
		{"deepseek-reasoner", "", func(r *fakejudge.Request) (fakejudge.Reply, bool) {
			switch {
			case r.Format == "json_schema":
				return refuse(400, fakejudge.DeepSeekRefusal)
			case r.Format == "json_object":
				return refuse(400, `{"error":{"message":"deepseek-reasoner does not support Json Output.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`)
			case r.Raw["temperature"] != nil:
				return refuse(400, `{"error":{"message":"deepseek-reasoner does not support the parameter `+"`temperature`"+`","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`)
			}
			return fakejudge.Reply{}, false
		}, "text", []string{"temperature"}, true},
		// Kimi takes only its own temperature: "invalid temperature: only 1
		// is allowed for this model" (HKUDS/nanobot#202; 0.6 with thinking
		// off, HKUDS/nanobot#4967): dropped, the server's own used.
		{"Moonshot (Kimi)", "", func(r *fakejudge.Request) (fakejudge.Reply, bool) {
			if t, ok := r.Raw["temperature"].(float64); ok && t != 1 {
				return refuse(400, `{"error":{"message":"invalid temperature: only 1 is allowed for this model","type":"invalid_request_error"}}`)
			}
			return fakejudge.Reply{}, false
		}, "json_schema", []string{"temperature"}, false},
		// vLLM's xgrammar refusing a schema (vllm-project/vllm#16321): one
		// step down, to json_object.
		{"vLLM (xgrammar)", "", func(r *fakejudge.Request) (fakejudge.Reply, bool) {
			if r.Format == "json_schema" {
				return refuse(400, `{"object":"error","message":"The provided JSON schema contains features not supported by xgrammar.","type":"BadRequestError","param":null,"code":400}`)
			}
			return fakejudge.Reply{}, false
		}, "json_object", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
				if rep, ok := tt.refuse(r); ok {
					return rep
				}
				q := *r
				q.Task = fakejudge.GuessTask(r.Prompt())
				if tt.name == "deepseek-reasoner" {
					q.N = 1
				}
				return fakejudge.Oracle(&q)
			})
			defer srv.Close()
			ab := endpoint.NewAbilities(endpoint.EndpointProfile{Format: tt.remembered}, "")
			j := judgeOn(t, srv.BaseURL(), ab)
			r := &eval.Runner{Judge: j, Config: eval.RunnerConfig{Metrics: []eval.Metric{eval.Faithfulness, eval.AnswerRelevancy}, Strictness: 3, Workers: 1}}
			res := r.Run(context.Background(), []eval.Sample{{Question: "When does the office open?", Answer: "The office opens at 9 am. It closes at 5 pm.", Contexts: []string{"The office opens at 9 am."}}})
			for _, m := range []eval.Metric{eval.Faithfulness, eval.AnswerRelevancy} {
				if st := res[0].Status[m]; st != eval.StatusOK {
					t.Fatalf("%s %s: %s", m, st, res[0].Errors[m])
				}
			}
			if got := score(t, res[0], eval.Faithfulness); !near(got, 0.5) {
				t.Errorf("faithfulness %v, want 0.5", got)
			}
			p := ab.Profile()
			if p.Format != tt.format || strings.Join(p.RefusedFields(), ",") != strings.Join(tt.refused, ",") || p.NIgnored != tt.nIgnored {
				t.Errorf("profile %+v, want format %s, refused %v", p, tt.format, tt.refused)
			}
		})
	}
}

// judgeOn is the LLM judge on the endpoint at baseURL, one retry, with the
// abilities ab learns into.
func judgeOn(t *testing.T, baseURL string, ab *endpoint.Abilities) *llm.Judge {
	t.Helper()
	client, err := endpoint.New(endpoint.Config{BaseURL: baseURL, APIKey: "sk-test", MaxRetries: 1, BackoffBase: time.Millisecond,
		RequestTimeout: 5 * time.Second, Abilities: ab})
	if err != nil {
		t.Fatal(err)
	}
	return llm.New(llm.Config{BaseURL: baseURL, Model: "m", EmbeddingModel: "e", QuestionTemperature: 0.7, Lang: eval.LangEN, Abilities: ab},
		eval.Instrument(client), prompts.Embedded())
}
