package endpoint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
)

// TestReasoningSwitches: --reasoning off sends every family's switch; a
// server that refuses one (OpenAI refuses fields it does not know, and
// reasoning_effort values a model does not take) has it dropped and the
// call sent again, once, and the refusal is remembered for later calls.
func TestReasoningSwitches(t *testing.T) {
	tests := []struct {
		name    string
		refuse  func(raw map[string]any) string // the server's 400 message, "" to answer
		want    []string                        // switches of the call that was answered
		refused []string
	}{
		{"all taken (vLLM, SGLang, Ollama ignore what they do not read)", func(map[string]any) string { return "" },
			[]string{"chat_template_kwargs", "reasoning_effort=none"}, nil},
		{"OpenAI: unknown field and an effort the model lacks", func(raw map[string]any) string {
			if _, ok := raw["chat_template_kwargs"]; ok {
				return "Unrecognized request argument supplied: chat_template_kwargs"
			}
			if e := raw["reasoning_effort"]; e == "none" || e == "minimal" {
				return "Unsupported value: 'reasoning_effort' does not support '" + e.(string) + "' with this model."
			}
			return ""
		}, []string{"reasoning_effort=low"}, []string{"chat_template_kwargs", "reasoning_effort=minimal", "reasoning_effort=none"}},
		{"a gateway that forbids reasoning_effort", func(raw map[string]any) string {
			if _, ok := raw["reasoning_effort"]; ok {
				return "Extra inputs are not permitted: body.reasoning_effort"
			}
			return ""
		}, []string{"chat_template_kwargs"}, []string{"reasoning_effort"}},
		// Groq refuses a field it does not know, "property 'X' is
		// unsupported" (karthink/gptel#774), and takes reasoning_effort
		// none or default only (Alishahryar1/free-claude-code#1348).
		{"Groq: unknown properties, effort none", func(raw map[string]any) string {
			for _, f := range []string{"enable_thinking", "thinking", "chat_template_kwargs"} {
				if _, ok := raw[f]; ok {
					return "property '" + f + "' is unsupported"
				}
			}
			if e := raw["reasoning_effort"]; e != "none" && e != "default" {
				return "`reasoning_effort` must be one of `none` or `default`"
			}
			return ""
		}, []string{"reasoning_effort=none"}, []string{"chat_template_kwargs", "enable_thinking", "thinking"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
				if msg := tt.refuse(r.Raw); msg != "" {
					return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"` + msg + `","type":"invalid_request_error"}}`}
				}
				return fakejudge.Reply{Choices: []string{`{"a": 1}`}}
			})
			defer srv.Close()
			ab := NewAbilities(EndpointProfile{}, "")
			c := newTestClient(t, srv.BaseURL(), Config{Abilities: ab})
			req := chatReq("t")
			req.Reasoning = "off"
			if _, err := c.Chat(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			last := reqs[len(reqs)-1].Raw
			var got []string
			if kw, ok := last["chat_template_kwargs"].(map[string]any); ok {
				if kw["enable_thinking"] != false || kw["thinking"] != false {
					t.Errorf("chat_template_kwargs %v", kw)
				}
				got = append(got, "chat_template_kwargs")
			}
			if th, ok := last["thinking"].(map[string]any); (!ok || th["type"] != "disabled") && !slices.Contains(tt.refused, "thinking") {
				t.Errorf("thinking %v, want type disabled (GLM, Doubao)", last["thinking"])
			}
			if e, ok := last["reasoning_effort"].(string); ok {
				got = append(got, "reasoning_effort="+e)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("answered call sent %v, want %v", got, tt.want)
			}
			if p := ab.Profile(); strings.Join(p.SwitchRefused, ",") != strings.Join(tt.refused, ",") {
				t.Errorf("refused %v, want %v", p.SwitchRefused, tt.refused)
			}
			// The next call sends only what was taken: no refusal again.
			n := len(reqs)
			if _, err := c.Chat(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if len(srv.Requests()) != n+1 {
				t.Errorf("the next call took %d requests, want 1", len(srv.Requests())-n)
			}
		})
	}
	// auto sends no switch at all.
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply { return fakejudge.Reply{Choices: []string{`{"a": 1}`}} })
	defer srv.Close()
	c := newTestClient(t, srv.BaseURL(), Config{})
	if _, err := c.Chat(context.Background(), chatReq("t")); err != nil {
		t.Fatal(err)
	}
	raw := srv.Requests()[0].Raw
	if _, ok := raw["chat_template_kwargs"]; ok {
		t.Error("auto sent chat_template_kwargs")
	}
	if _, ok := raw["reasoning_effort"]; ok {
		t.Error("auto sent reasoning_effort")
	}
}

// Calls in flight when another learns that a switch is refused learn it
// too: each drops the switch it sent and succeeds, none fails.
func TestConcurrentCallsLearnARefusedSwitch(t *testing.T) {
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		if _, ok := r.Raw["chat_template_kwargs"]; ok {
			return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"Unrecognized request argument supplied: chat_template_kwargs","type":"invalid_request_error"}}`}
		}
		return fakejudge.Reply{Choices: []string{`{"a": 1}`}}
	})
	defer srv.Close()
	c := newTestClient(t, srv.BaseURL(), Config{Concurrency: 8})
	req := chatReq("t")
	req.Reasoning = "off"
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := c.Chat(context.Background(), req)
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// OpenAI's reasoning models refuse any temperature but their own, in one
// of two words; the call is sent again without it, the refusal is
// remembered (no second failed call) and said in the profile's notice. A
// server that takes the temperature gets it, 0 included.
func TestRefusedTemperature(t *testing.T) {
	for _, msg := range []string{
		"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
		"Unsupported parameter: 'temperature' is not supported with this model.",
		"deepseek-reasoner does not support the parameter `temperature`", // deepseek-ai/DeepSeek-R1#7
	} {
		srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
			if _, ok := r.Raw["temperature"]; ok {
				return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"` + msg + `","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`}
			}
			return fakejudge.Reply{Choices: []string{`{"a": 1}`}}
		})
		ab := NewAbilities(EndpointProfile{}, "")
		c := newTestClient(t, srv.BaseURL(), Config{Abilities: ab})
		for range 2 {
			if _, err := c.Chat(context.Background(), chatReq("t")); err != nil {
				t.Fatalf("%s: %v", msg, err)
			}
		}
		if n := len(srv.Requests()); n != 3 {
			t.Errorf("%s: %d requests for two calls, want 3 (one refused)", msg, n)
		}
		if notice := ab.Notice(); !strings.Contains(notice, "refused temperature") {
			t.Errorf("notice %q does not say the temperature was refused", notice)
		}
		srv.Close()
	}
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply { return fakejudge.Reply{Choices: []string{`{"a": 1}`}} })
	defer srv.Close()
	c := newTestClient(t, srv.BaseURL(), Config{Abilities: NewAbilities(EndpointProfile{}, "")})
	if _, err := c.Chat(context.Background(), chatReq("t")); err != nil {
		t.Fatal(err)
	}
	if temp, ok := srv.Requests()[0].Raw["temperature"]; !ok || temp != 0.0 {
		t.Errorf("temperature %v (sent %v), want 0 sent", temp, ok)
	}
}

// A model newer than the names the client knows may refuse max_tokens for
// max_completion_tokens: the call is sent again with the budget there.
func TestRefusedMaxTokens(t *testing.T) {
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		if _, ok := r.Raw["max_tokens"]; ok {
			return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`}
		}
		return fakejudge.Reply{Choices: []string{`{"a": 1}`}}
	})
	defer srv.Close()
	c := newTestClient(t, srv.BaseURL(), Config{Abilities: NewAbilities(EndpointProfile{}, "")})
	req := chatReq("t")
	req.MaxTokens = 300
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2: one refused, one answered", len(reqs))
	}
	if got := reqs[1].Raw["max_completion_tokens"]; got != 300.0 {
		t.Errorf("max_completion_tokens %v, want 300", got)
	}
}

// DashScope (and ModelScope) refuse a non-streaming call to a Qwen3 model
// that thinks by default unless it says enable_thinking false, top-level:
// the client learns it from the first refusal, in either language, and
// sends it from then on whatever --reasoning says, except on, which cannot
// be had without streaming and says so. --reasoning off sends it from the
// start; a server that refuses the field (OpenAI) has it dropped.
func TestThinkingOnlyWhenStreaming(t *testing.T) {
	dashScope := func(msg string) func(r *fakejudge.Request) fakejudge.Reply {
		return func(r *fakejudge.Request) fakejudge.Reply {
			if r.Raw["enable_thinking"] != false {
				return fakejudge.Reply{Status: 400, Body: `{"error":{"code":"invalid_parameter_error","param":null,"message":"` + msg + `","type":"invalid_request_error"}}`}
			}
			return fakejudge.Reply{Choices: []string{`{"a": 1}`}}
		}
	}
	for _, tt := range []struct {
		name, msg, mode string
		requests        int // for two calls
	}{
		{"auto, English", "parameter.enable_thinking must be set to false for non-streaming calls", "auto", 3},
		{"auto, Chinese", "parameter.enable_thinking必须设置为false才能进行非流式调用", "", 3},
		{"ModelScope", "enable thinking can not be support when `stream=False`.", "auto", 3},
		{"off sends it from the start", "parameter.enable_thinking must be set to false for non-streaming calls", "off", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakejudge.New(dashScope(tt.msg))
			defer srv.Close()
			ab := NewAbilities(EndpointProfile{}, "")
			c := newTestClient(t, srv.BaseURL(), Config{Abilities: ab})
			req := chatReq("t")
			req.Reasoning = tt.mode
			for range 2 {
				if _, err := c.Chat(context.Background(), req); err != nil {
					t.Fatal(err)
				}
			}
			if n := len(srv.Requests()); n != tt.requests {
				t.Errorf("%d requests for two calls, want %d", n, tt.requests)
			}
			if notice := ab.Notice(); tt.mode != "off" && !strings.Contains(notice, "enable_thinking false") {
				t.Errorf("notice %q does not say what is sent", notice)
			}
		})
	}
	// --reasoning on: the model thinks, which it does only when streaming.
	thinks := dashScope("parameter.enable_thinking must be set to false for non-streaming calls")
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		if r.Raw["stream"] == true {
			return sse(`{"choices":[{"index":0,"delta":{"reasoning_content":"Let me see."}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"{\"a\": 1}"},"finish_reason":"stop"}]}`)
		}
		return thinks(r)
	})
	defer srv.Close()
	c := newTestClient(t, srv.BaseURL(), Config{Abilities: NewAbilities(EndpointProfile{}, "")})
	req := chatReq("t")
	req.Reasoning = "on"
	out, err := c.Chat(context.Background(), req)
	if err != nil || len(out.Choices) != 1 || out.Choices[0] != `{"a": 1}` || len(out.Reasoning) != 1 || out.Reasoning[0] != "Let me see." {
		t.Errorf("--reasoning on against a model that thinks only when streaming: %+v, %v; want the streamed answer and its reasoning apart", out, err)
	}
	openAI := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		for _, f := range []string{"enable_thinking", "thinking", "chat_template_kwargs"} {
			if _, ok := r.Raw[f]; ok {
				return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"Unrecognized request argument supplied: ` + f + `","type":"invalid_request_error"}}`}
			}
		}
		return fakejudge.Reply{Choices: []string{`{"a": 1}`}}
	})
	defer openAI.Close()
	ab := NewAbilities(EndpointProfile{}, "")
	c = newTestClient(t, openAI.BaseURL(), Config{Abilities: ab})
	req.Reasoning = "off"
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"enable_thinking", "thinking", "chat_template_kwargs"} {
		if p := ab.Profile(); !slices.Contains(p.SwitchRefused, f) {
			t.Errorf("refused %v, want %s among them", p.SwitchRefused, f)
		}
	}
}

// sse is a streamed reply of the chunks given, as DashScope, vLLM and
// OpenAI send one: an event per chunk, then [DONE].
func sse(chunks ...string) fakejudge.Reply {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return fakejudge.Reply{ContentType: "text/event-stream", Body: b.String()}
}

// A model that answers only in a streaming call (QwQ on DashScope or
// ModelScope) is asked again streaming from its first refusal on; the
// stream's deltas are joined per choice, its usage read from the last
// chunk, and a reply cut at the token limit, an error said in the stream or
// a stream that ends before its choices do are what they are without it.
func TestStreamOnlyModel(t *testing.T) {
	const refusal = `{"error":{"code":"invalid_parameter_error","param":null,"message":"This model only support stream mode, please enable the stream parameter to access the model. ","type":"invalid_request_error"}}`
	usage := `{"choices":[],"usage":{"prompt_tokens":20,"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":4}}}`
	for _, tt := range []struct {
		name    string
		n       int
		stream  func(budget any) fakejudge.Reply
		choices []string
		err     string
	}{
		{"two choices interleaved", 2, func(any) fakejudge.Reply {
			return sse(`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`,
				`{"choices":[{"index":1,"delta":{"content":"{\"a\""}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"{\"a\": 1}"},"finish_reason":"stop"}]}`,
				`{"choices":[{"index":1,"delta":{"content":": 2}"},"finish_reason":"stop"}]}`, usage)
		}, []string{`{"a": 1}`, `{"a": 2}`}, ""},
		{"cut at the token limit, then asked with more", 1, func(budget any) fakejudge.Reply {
			if budget == 100.0 {
				return sse(`{"choices":[{"index":0,"delta":{"content":"{\"a\""},"finish_reason":"length"}]}`, usage)
			}
			return sse(`{"choices":[{"index":0,"delta":{"content":"{\"a\": 3}"},"finish_reason":"stop"}]}`, usage)
		}, []string{`{"a": 3}`}, ""},
		{"an error in the stream", 1, func(any) fakejudge.Reply {
			return sse(`{"error":{"message":"upstream overloaded","type":"server_error"}}`)
		}, nil, "upstream overloaded"},
		{"a stream that ends before its choice", 1, func(any) fakejudge.Reply {
			return fakejudge.Reply{ContentType: "text/event-stream", Body: "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"{\\\"a\"}}]}\n\n"}
		}, nil, "ended before its choices did"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
				if r.Raw["stream"] != true {
					return fakejudge.Reply{Status: 400, Body: refusal}
				}
				if opts, _ := r.Raw["stream_options"].(map[string]any); opts["include_usage"] != true {
					t.Errorf("stream_options %v: the usage is not asked for", r.Raw["stream_options"])
				}
				return tt.stream(r.Raw["max_tokens"])
			})
			defer srv.Close()
			ab := NewAbilities(EndpointProfile{}, "")
			c := newTestClient(t, srv.BaseURL(), Config{Abilities: ab, MaxRetries: 1})
			req := chatReq("t")
			req.N, req.MaxTokens = tt.n, 100
			out, err := c.Chat(context.Background(), req)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(out.Choices, "|") != strings.Join(tt.choices, "|") {
				t.Errorf("choices %q, want %q", out.Choices, tt.choices)
			}
			if out.Usage.PromptTokens == 0 || out.Usage.ReasoningTokens == 0 {
				t.Errorf("usage %+v: the last chunk's was not read", out.Usage)
			}
			if !strings.Contains(ab.Notice(), "streamed") {
				t.Errorf("notice %q does not say the calls stream", ab.Notice())
			}
		})
	}
}

// A server with a small context (vLLM at --max-model-len 2000) refuses a
// budget the prompt leaves no room for: the call is asked again with the
// most that fits, and when even that cuts the reply, the metric ends
// truncated, saying so, instead of failing on the server's 400.
func TestBudgetFitsTheContext(t *testing.T) {
	const window, prompt = 2000, 1000
	for _, tt := range []struct {
		name  string
		needs int // completion tokens the whole reply needs
		err   string
	}{
		{"the most that fits is enough", 900, ""},
		{"the reply does not fit at all", 5000, "no more fit the model's context"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
				budget := r.MaxTokens
				if budget == 0 {
					budget = 700 // the server's default
				}
				if prompt+budget > window {
					return fakejudge.Reply{Status: 400, Body: fmt.Sprintf(`{"object":"error","message":"This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`, window, prompt+budget, prompt, budget)}
				}
				if budget < tt.needs {
					return fakejudge.Reply{Body: fmt.Sprintf(`{"choices":[{"index":0,"message":{"content":"{\"a\""},"finish_reason":"length"}],"usage":{"prompt_tokens":%d,"completion_tokens":%d}}`, prompt, budget)}
				}
				return fakejudge.Reply{Choices: []string{`{"a": 1}`}}
			})
			defer srv.Close()
			c := newTestClient(t, srv.BaseURL(), Config{})
			_, err := c.Chat(context.Background(), chatReq("t"))
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				reqs := srv.Requests()
				if got := reqs[len(reqs)-1].MaxTokens; got != window-prompt-16 {
					t.Errorf("answered at max_tokens %d, want %d", got, window-prompt-16)
				}
				return
			}
			var se *eval.StepError
			if !errors.As(err, &se) || se.Status != eval.StatusTruncated || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("err %v, want truncated saying %q", err, tt.err)
			}
		})
	}
	for _, msg := range []string{
		"'max_tokens' or 'max_completion_tokens' is too large: 1400. This model's maximum context length is 2000 tokens and your request has 1000 input tokens (1400 > 2000 - 1000).",
		"Requested token count exceeds the model's maximum context length of 2000 tokens. You requested a total of 2400 tokens: 1000 tokens from the input messages and 1400 tokens for the completion.",
	} {
		if fit, ok := contextFit(&Failure{Status: 400, ServerMessage: msg}); !ok || fit != window-prompt-16 {
			t.Errorf("contextFit(%q) = %d, %v; want %d", msg, fit, ok, window-prompt-16)
		}
	}
}

// DeepSeek refuses a budget in two more ways: its default (4096 completion
// tokens) may not fit after a long prompt, and a budget over the model's
// most is refused with the range. Each is asked again at what the refusal
// says fits, and answered.
func TestBudgetTheServerTakes(t *testing.T) {
	for _, tt := range []struct {
		name   string
		budget int // the call's max_tokens; 0 the server's default
		refuse func(maxTokens int) string
		want   int
	}{
		// FoundationAgents/OpenManus#79.
		{"the server's default does not fit", 0, func(maxTokens int) string {
			if maxTokens != 0 && maxTokens <= 65536-62247 {
				return ""
			}
			return `{"error":{"message":"This model's maximum context length is 65536 tokens. However, you requested 66343 tokens (62247 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`
		}, 65536 - 62247 - 16},
		// CherryHQ/cherry-studio#4377.
		{"over the model's most", 16384, func(maxTokens int) string {
			if maxTokens <= 8192 {
				return ""
			}
			return `{"error":{"message":"Invalid max_tokens value, the valid range of max_tokens is [1, 8192]","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`
		}, 8192},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
				if body := tt.refuse(r.MaxTokens); body != "" {
					return fakejudge.Reply{Status: 400, Body: body}
				}
				return fakejudge.Reply{Choices: []string{`{"a": 1}`}}
			})
			defer srv.Close()
			c := newTestClient(t, srv.BaseURL(), Config{})
			req := chatReq("t")
			req.MaxTokens = tt.budget
			if _, err := c.Chat(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if got := reqs[len(reqs)-1].MaxTokens; got != tt.want || len(reqs) != 2 {
				t.Errorf("answered at max_tokens %d after %d requests, want %d after 2", got, len(reqs), tt.want)
			}
		})
	}
}

// A server too old to take stream_options has it dropped: the stream is
// read all the same, without the usage it would have reported.
func TestRefusedStreamOptions(t *testing.T) {
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		switch {
		case r.Raw["stream"] != true:
			return fakejudge.Reply{Status: 400, Body: fakejudge.StreamOnlyRefusal}
		case r.Raw["stream_options"] != nil:
			return fakejudge.Reply{Status: 400, Body: `{"object":"error","message":"[{'type': 'extra_forbidden', 'loc': ('body', 'stream_options'), 'msg': 'Extra inputs are not permitted'}]","type":"BadRequestError","code":400}`}
		}
		return sse(`{"choices":[{"index":0,"delta":{"content":"{\"a\": 1}"},"finish_reason":"stop"}]}`)
	})
	defer srv.Close()
	ab := NewAbilities(EndpointProfile{}, "")
	c := newTestClient(t, srv.BaseURL(), Config{Abilities: ab})
	out, err := c.Chat(context.Background(), chatReq("t"))
	if err != nil || len(out.Choices) != 1 || out.Choices[0] != `{"a": 1}` {
		t.Fatalf("%+v, %v", out, err)
	}
	if !ab.Refused("stream_options") {
		t.Error("the refusal of stream_options was not learnt")
	}
}

// Servers that take one choice per call refuse n in their own words, some
// with a 500 that must not be retried as a server failure: the call is sent
// again without n (the caller draws the rest one by one), the refusal is
// remembered, and the next call sends no n.
func TestRefusedN(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		body   string
	}{
		// ggml-org/llama.cpp's server throws "Only one completion choice
		// is allowed" as a server_error (algorithmicsuperintelligence/optillm#8).
		{"llama.cpp", 500, `{"error":{"code":500,"message":"Only one completion choice is allowed","type":"server_error"}}`},
		// Groq: "only n=1 is supported. Other values will result in a 400"
		// (stanfordnlp/dspy#1155).
		{"Groq", 400, `{"error":{"message":"'n' : number must be at most 1","type":"invalid_request_error"}}`},
		// OpenRouter relays the provider's refusal in metadata.raw
		// (reVrost/go-openrouter#21): it is read there.
		{"Groq behind OpenRouter", 400, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"'n' : number must be at most 1\",\"type\":\"invalid_request_error\"}}","provider_name":"Groq"}}}`},
		// A gateway that relays the upstream status in a 200's error
		// object (the classification decides on that code too).
		{"Groq behind a gateway, in a 200", 200, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"'n' : number must be at most 1\",\"type\":\"invalid_request_error\"}}","provider_name":"Groq"}}}`},
		{"OpenAI reasoning model", 400, `{"error":{"message":"Unsupported value: 'n' does not support 3 with this model.","type":"invalid_request_error","param":"n","code":"unsupported_value"}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
				if n, ok := r.Raw["n"].(float64); ok && n > 1 {
					return fakejudge.Reply{Status: tt.status, Body: tt.body}
				}
				return fakejudge.Reply{Choices: []string{`{"a": 1}`}}
			})
			defer srv.Close()
			ab := NewAbilities(EndpointProfile{}, "")
			c := newTestClient(t, srv.BaseURL(), Config{Abilities: ab})
			req := chatReq("t")
			req.N = 3
			out, err := c.Chat(context.Background(), req)
			if err != nil || len(out.Choices) != 1 || out.Choices[0] != `{"a": 1}` {
				t.Fatalf("%+v, %v", out, err)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("%d requests, want 2: one refused, one answered", n)
			}
			if !ab.Refused("n") || !strings.Contains(ab.Notice(), "refused n") {
				t.Errorf("notice %q: the refusal of n was not learnt", ab.Notice())
			}
			if _, err := c.Chat(context.Background(), req); err != nil || len(srv.Requests()) != 3 {
				t.Errorf("the next call: %v, %d requests in all, want 3", err, len(srv.Requests()))
			}
		})
	}
}

// What a reasoning model thinks comes in many shapes; whichever, it is
// kept apart and never read as the answer, even when it quotes an object
// that would read as one ({"a": 0} here), and a reply that is all thinking
// is no answer.
func TestReasoningNeverTheAnswer(t *testing.T) {
	const thought = `The format is JSON, for example {\"a\": 0}. Now my own.`
	for _, tt := range []struct {
		name      string
		message   string // the reply's message object
		answer    string
		reasoning string
		err       string
	}{
		// Mistral's Magistral: content is a list of parts
		// (vercel/ai#8072, NousResearch/hermes-agent#4748).
		{"Magistral: thinking and text parts", `{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"` + thought + `"}]},{"type":"text","text":"{\"a\": 1}"}]}`,
			`{"a": 1}`, `The format is JSON, for example {"a": 0}. Now my own.`, ""},
		{"Magistral: thinking as a string", `{"role":"assistant","content":[{"type":"thinking","thinking":"` + thought + `"},{"type":"text","text":"{\"a\": 1}"}]}`,
			`{"a": 1}`, `The format is JSON, for example {"a": 0}. Now my own.`, ""},
		{"Magistral: text split in parts", `{"role":"assistant","content":[{"type":"text","text":"{\"a\""},{"type":"thinking","thinking":[]},{"type":"text","text":": 1}"}]}`,
			`{"a": 1}`, "", ""},
		{"Magistral: only thinking", `{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"` + thought + `"}]}]}`,
			"", "", "all reasoning"},
		// Groq (reasoning_format parsed), OpenRouter, Ollama: a reasoning field.
		{"reasoning field", `{"role":"assistant","content":"{\"a\": 1}","reasoning":"` + thought + `"}`,
			`{"a": 1}`, `The format is JSON, for example {"a": 0}. Now my own.`, ""},
		// llama.cpp and vLLM without a reasoning parser: the block stays in content.
		{"<think> in content (llama.cpp --reasoning-format none)", `{"role":"assistant","content":"<think>\n` + thought + `\n</think>\n\n{\"a\": 1}"}`,
			`{"a": 1}`, `The format is JSON, for example {"a": 0}. Now my own.`, ""},
		{"reasoning_content only", `{"role":"assistant","content":"","reasoning_content":"` + thought + `"}`,
			"", "", "all reasoning"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakejudge.New(func(*fakejudge.Request) fakejudge.Reply {
				return fakejudge.Reply{Body: `{"choices":[{"index":0,"finish_reason":"stop","message":` + tt.message + `}]}`}
			})
			defer srv.Close()
			c := newTestClient(t, srv.BaseURL(), Config{MaxRetries: 1})
			out, err := c.Chat(context.Background(), chatReq("t"))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || eval.StatusOf(err) != eval.StatusParseError {
					t.Fatalf("%+v, %v: want a parse_error saying %q", out, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Choices) != 1 || out.Choices[0] != tt.answer {
				t.Errorf("answer %q, want %q", out.Choices, tt.answer)
			}
			if got := strings.Join(out.Reasoning, ""); got != tt.reasoning {
				t.Errorf("reasoning %q, want %q", got, tt.reasoning)
			}
		})
	}
	// The same parts in a stream's deltas.
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		if r.Raw["stream"] != true {
			return fakejudge.Reply{Status: 400, Body: fakejudge.StreamOnlyRefusal}
		}
		return sse(`{"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"`+thought+`"}]}]}}]}`,
			`{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"{\"a\": 1}"}]},"finish_reason":"stop"}]}`)
	})
	defer srv.Close()
	c := newTestClient(t, srv.BaseURL(), Config{})
	out, err := c.Chat(context.Background(), chatReq("t"))
	if err != nil || len(out.Choices) != 1 || out.Choices[0] != `{"a": 1}` || !strings.Contains(strings.Join(out.Reasoning, ""), "for example") {
		t.Fatalf("streamed parts: %+v, %v", out, err)
	}
}

// A reasoning model whose thinking spends the whole budget ends with
// finish_reason "length", no content and the reasoning in its field: the
// reasoning is never parsed; the call is asked again with twice the
// budget, and past --max-tokens the metric ends truncated, naming the flag
// and --reasoning off.
func TestReasoningSpendsTheBudget(t *testing.T) {
	for _, tt := range []struct {
		name     string
		needs    int // the budget at which the model gets to its answer
		requests int
		err      string
	}{
		{"answered with a larger budget", 1000, 3, ""},
		{"never enough", 1 << 30, 3, "--reasoning off"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
				if r.MaxTokens < tt.needs {
					return fakejudge.Reply{Body: fmt.Sprintf(`{"choices":[{"index":0,"finish_reason":"length","message":{"role":"assistant","content":"","reasoning_content":"Let me think. An example: {\"a\": 0}. %s"}}],"usage":{"prompt_tokens":50,"completion_tokens":%d,"completion_tokens_details":{"reasoning_tokens":%d}}}`,
						strings.Repeat("More thought. ", 50), r.MaxTokens, r.MaxTokens)}
				}
				return fakejudge.Reply{Choices: []string{`{"a": 1}`}, Reasoning: []string{"Let me think."}, ReasoningField: "reasoning_content"}
			})
			defer srv.Close()
			c := newTestClient(t, srv.BaseURL(), Config{MaxTokens: 1024})
			req := chatReq("t")
			req.MaxTokens = 256
			out, err := c.Chat(context.Background(), req)
			if n := len(srv.Requests()); n != tt.requests {
				t.Errorf("%d requests, want %d (256, 512, 1024)", n, tt.requests)
			}
			if tt.err == "" {
				if err != nil || len(out.Choices) != 1 || out.Choices[0] != `{"a": 1}` {
					t.Fatalf("%+v, %v", out, err)
				}
				if out.Usage.CompletionTokens < 256+512 {
					t.Errorf("usage %+v: the cut replies were not paid for", out.Usage)
				}
				return
			}
			if eval.StatusOf(err) != eval.StatusTruncated || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "--max-tokens") {
				t.Fatalf("%+v, %v: want truncated, naming --max-tokens and %q", out, err, tt.err)
			}
			if len(out.Choices) != 0 {
				t.Errorf("choices %q from a reply cut in its reasoning", out.Choices)
			}
		})
	}
}

// nField reads n named in a refusal however it is quoted, and no other
// word that ends in n.
func TestNField(t *testing.T) {
	for msg, want := range map[string]bool{
		"unsupported value: 'n' does not support 3 with this model.":   true,
		"'n' : number must be at most 1":                               true,
		"n: input should be less than or equal to 1":                   true,
		"n must be exactly 1":                                          true,
		"parameter `n` is not supported":                               true,
		"invalid n = 3; only 1 is allowed":                             true,
		"the prompt has an unsupported token":                          false,
		"maximum context length is 4096 tokens":                        false,
		"when stream is true, n must not be set":                       true,
		"unrecognized request argument supplied: chat_template_kwargs": false,
	} {
		if got := nField.MatchString(msg); got != want {
			t.Errorf("nField(%q) = %v, want %v", msg, got, want)
		}
	}
}
