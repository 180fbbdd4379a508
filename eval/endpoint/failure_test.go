package endpoint

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
)

// TestServerErrorsKept: what the server said reaches the user, whatever
// shape it said it in, instead of a parse error about the shape.
func TestServerErrorsKept(t *testing.T) {
	const nginx = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n"
	cases := []struct {
		name     string
		reply    fakejudge.Reply
		kind     Kind
		status   int
		calls    int // with MaxRetries 2
		has      []string
		hasNot   []string
		server   string // the Failure's ServerMessage
		parseErr bool   // eval.StatusParseError rather than judge_error
	}{
		{"200 with an error object", fakejudge.Reply{Body: `{"error":{"message":"The upstream model crashed","type":"server_error"}}`},
			KindOther, 200, 3, []string{"HTTP 200 with an error in the body: The upstream model crashed"}, []string{"no choices", "JSON"}, "The upstream model crashed", false},
		{"200 with an error string", fakejudge.Reply{Body: `{"error":"model is loading, try again"}`},
			KindOther, 200, 3, []string{"model is loading, try again"}, []string{"no choices"}, "model is loading, try again", false},
		{"200 with an upstream 429 (OpenRouter)", fakejudge.Reply{Body: `{"error":{"message":"Provider rate limited","code":429}}`},
			KindRateLimited, 200, 3, []string{"Provider rate limited", "after 3 attempts"}, nil, "Provider rate limited", false},
		{"200 with an upstream 401", fakejudge.Reply{Body: `{"error":{"message":"No auth credentials found","code":401}}`},
			KindUnauthorized, 200, 1, []string{"check OPENAI_API_KEY (the endpoint answered 200: No auth credentials found)"}, nil, "No auth credentials found", false},
		// OpenRouter keeps the provider's own words in metadata.raw, a JSON
		// text (diegosouzapw/OmniRoute#3044) or plain text (open-webui/computer#293).
		{"OpenRouter: the upstream's error in metadata.raw", fakejudge.Reply{Status: 400, Body: `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"invalid_request_error\",\"message\":\"Model 'moonshotai/kimi-k2.6' supports at most 1 image per prompt.\",\"request_id\":\"req_1\"}}","provider_name":"Crucible","is_byok":false}},"user_id":"user_1"}`},
			KindOther, 400, 1, []string{"HTTP 400: Provider returned error (Crucible: Model 'moonshotai/kimi-k2.6' supports at most 1 image per prompt.)"}, []string{"request_id", "user_id"},
			"Provider returned error (Crucible: Model 'moonshotai/kimi-k2.6' supports at most 1 image per prompt.)", false},
		{"OpenRouter: an upstream 429 in a 200, raw as text", fakejudge.Reply{Body: `{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"z-ai/glm-5.3-flash is temporarily rate-limited upstream. Please retry shortly.","provider_name":"BaseTen"}}}`},
			KindRateLimited, 200, 3, []string{"Provider returned error (BaseTen: z-ai/glm-5.3-flash is temporarily rate-limited upstream. Please retry shortly.)"}, nil,
			"Provider returned error (BaseTen: z-ai/glm-5.3-flash is temporarily rate-limited upstream. Please retry shortly.)", false},
		// Azure's content filter refuses a prompt with a 400 coded
		// content_filter (openai/openai-python#331), or withholds a reply
		// with finish_reason content_filter and no content
		// (microsoft/semantic-kernel#5240): neither is asked again, and
		// the partial content is never read.
		{"Azure: the prompt filtered", fakejudge.Reply{Status: 400, Body: `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"violence":{"filtered":true,"severity":"medium"}}}}}`},
			KindOther, 400, 1, []string{"HTTP 400: The response was filtered due to the prompt triggering Azure OpenAI's content management policy", "content filter stopped the call (content_filter)", "another endpoint or filter policy"}, nil,
			"The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766", false},
		{"Azure: the reply filtered", fakejudge.Reply{Body: `{"choices":[{"index":0,"finish_reason":"content_filter","message":{"role":"assistant","content":null}}],"usage":{"prompt_tokens":30,"completion_tokens":4}}`},
			KindOther, 0, 1, []string{"content filter stopped the call (content_filter)", "another endpoint or filter policy"}, []string{"malformed", "no choices"}, "", false},
		{"Azure: a partial reply filtered", fakejudge.Reply{Body: `{"choices":[{"index":0,"finish_reason":"content_filter","message":{"role":"assistant","content":"{\"verdict\": 1}"}}]}`},
			KindOther, 0, 1, []string{"content filter stopped the call (content_filter)"}, nil, "", false},
		// Groq's JSON mode refusing the model's own reply (thepersonalaicompany/amurex-backend#38).
		{"Groq: the reply failed its JSON mode", fakejudge.Reply{Status: 400, Body: `{"error":{"message":"Failed to generate JSON. Please adjust your prompt. See 'failed_generation' for more details.","type":"invalid_request_error","code":"json_validate_failed","failed_generation":"{\"a\": "}}`},
			KindOther, 400, 3, []string{"HTTP 400: Failed to generate JSON."}, nil, "Failed to generate JSON. Please adjust your prompt. See 'failed_generation' for more details.", true},
		// The content filters of Chinese providers, each in its own words:
		// refused, not asked again.
		{"DashScope: the input inspected", fakejudge.Reply{Status: 400, Body: `{"error":{"message":"Input data may contain inappropriate content. For details, see: https://help.aliyun.com/zh/model-studio/error-code#inappropriate-content","type":"data_inspection_failed","param":null,"code":"data_inspection_failed"},"id":"chatcmpl-1","request_id":"1"}`},
			KindOther, 400, 1, []string{"HTTP 400: Input data may contain inappropriate content.", "content filter stopped the call"}, []string{"request_id"},
			"Input data may contain inappropriate content. For details, see: https://help.aliyun.com/zh/model-studio/error-code#inappropriate-content", false}, // 666ghj/BettaFish#449
		// The reply inspected, in a stream that had begun (666ghj/BettaFish#572):
		// an error object in a 200, as a stream's error event reads.
		{"DashScope: the output inspected", fakejudge.Reply{Body: `{"error":{"message":"Output data may contain inappropriate content. For details, see: https://help.aliyun.com/zh/model-studio/error-code#inappropriate-content","type":"data_inspection_failed","param":null,"code":"data_inspection_failed"}}`},
			KindOther, 200, 1, []string{"HTTP 200 with an error in the body: Output data may contain inappropriate content.", "content filter stopped the call"}, nil,
			"Output data may contain inappropriate content. For details, see: https://help.aliyun.com/zh/model-studio/error-code#inappropriate-content", false},
		{"Zhipu: 1301", fakejudge.Reply{Status: 400, Body: `{"error":{"code":"1301","message":"系统检测到输入或生成内容可能包含不安全或敏感内容，请您避免输入易产生敏感内容的提示语，感谢您的配合。"}}`},
			KindOther, 400, 1, []string{"HTTP 400: 系统检测到输入或生成内容可能包含不安全或敏感内容", "content filter stopped the call"}, nil,
			"系统检测到输入或生成内容可能包含不安全或敏感内容，请您避免输入易产生敏感内容的提示语，感谢您的配合。", false}, // langchain4j/langchain4j#1079
		{"Zhipu: the reply ended sensitive", fakejudge.Reply{Body: `{"choices":[{"index":0,"finish_reason":"sensitive","message":{"role":"assistant","content":""}}],"usage":{"prompt_tokens":30,"completion_tokens":0}}`},
			KindOther, 0, 1, []string{"content filter stopped the call"}, []string{"malformed"}, "", false}, // promptfoo/promptfoo#9905
		{"Moonshot: high risk", fakejudge.Reply{Status: 400, Body: `{"error":{"code":400,"message":"The request was rejected because it was considered high risk","param":"prompt","type":"content_filter"}}`},
			KindOther, 400, 1, []string{"HTTP 400: The request was rejected because it was considered high risk", "content filter stopped the call"}, nil,
			"The request was rejected because it was considered high risk", false}, // 666ghj/BettaFish#368
		// A prompt longer than the model's context: the sample's, said so,
		// not asked again.
		{"DeepSeek: the prompt alone too long", fakejudge.Reply{Status: 400, Body: `{"error":{"message":"This model's maximum context length is 65536 tokens. However, you requested 87731 tokens (87731 in the messages, 0 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`},
			KindContextTooLong, 400, 1, []string{"maximum context length is 65536 tokens", "the prompt does not fit the model's context", "longer context"}, nil,
			"This model's maximum context length is 65536 tokens. However, you requested 87731 tokens (87731 in the messages, 0 in the completion). Please reduce the length of the messages or completion.", false}, // bytedance/deer-flow#66
		{"DashScope: input length out of range", fakejudge.Reply{Status: 400, Body: `{"error":{"code":"invalid_parameter_error","param":null,"message":"<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 30720]","type":"invalid_request_error"}}`},
			KindContextTooLong, 400, 1, []string{"Range of input length should be [1, 30720]", "the prompt does not fit the model's context"}, nil,
			"<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 30720]", false}, // QwenLM/Qwen-Agent#615, QwenLM/qwen-code#98
		{"Zhipu: 1261", fakejudge.Reply{Status: 400, Body: `{"error":{"code":"1261","message":"Prompt exceeds max length"}}`},
			KindContextTooLong, 400, 1, []string{"HTTP 400: Prompt exceeds max length", "the prompt does not fit the model's context"}, nil,
			"Prompt exceeds max length", false}, // NousResearch/hermes-agent#1877
		// Zhipu's limits of load are 429s: waited out, like any.
		{"Zhipu: 1302", fakejudge.Reply{Status: 429, Body: `{"error":{"code":"1302","message":"您当前使用该API的并发数过高，请降低并发，或联系客服增加限额"}}`},
			KindRateLimited, 429, 3, []string{"并发数过高", "after 3 attempts"}, nil, "您当前使用该API的并发数过高，请降低并发，或联系客服增加限额", false}, // https://docs.bigmodel.cn/cn/api/api-code
		{"Zhipu: 1305", fakejudge.Reply{Status: 429, Body: `{"error":{"code":"1305","message":"该模型当前访问量过大，请您稍后再试"}}`},
			KindRateLimited, 429, 3, []string{"访问量过大", "after 3 attempts"}, nil, "该模型当前访问量过大，请您稍后再试", false}, // HKUDS/nanobot#3864
		{"502 HTML from a proxy", fakejudge.Reply{Status: 502, ContentType: "text/html", Body: nginx},
			KindOther, 502, 3, []string{`HTTP 502: the endpoint answered with an HTML page, not JSON: "502 Bad Gateway 502 Bad Gateway nginx/1.25.3"`}, []string{"<", "invalid character"},
			"502 Bad Gateway 502 Bad Gateway nginx/1.25.3", false},
		{"HTML labelled as JSON", fakejudge.Reply{Status: 503, Body: "<!DOCTYPE html><html><body><p>Service &amp; API down</p></body></html>"},
			KindOther, 503, 3, []string{`HTML page, not JSON: "Service & API down"`}, nil, "Service & API down", false},
		{"200 HTML: a web UI at the base URL", fakejudge.Reply{ContentType: "text/html; charset=utf-8", Body: "<!doctype html><html><head><title>Open WebUI</title><script>var k=1;</script></head><body></body></html>"},
			KindWrongEndpoint, 200, 1, []string{`HTTP 200: the endpoint answered with an HTML page, not JSON: "Open WebUI"`, "is --base-url right? (it usually ends in /v1)"}, []string{"var k"}, "Open WebUI", false},
		{"hostile page", fakejudge.Reply{Status: 500, ContentType: "text/html", Body: "<html><body>\x1b]52;c;ZWNobw==\x07boom\x1b[2J\u202e here\x00</body></html>"},
			KindOther, 500, 3, []string{`"boom here"`}, []string{"\x1b", "\x07", "\u202e", "\x00", "52;c"}, "boom here", false},
		{"plain text 503", fakejudge.Reply{Status: 503, ContentType: "text/plain", Body: "upstream connect error or disconnect/reset before headers\n"},
			KindOther, 503, 3, []string{"HTTP 503: upstream connect error or disconnect/reset before headers"}, nil, "upstream connect error or disconnect/reset before headers", false},
		{"vLLM's flat error", fakejudge.Reply{Status: 400, Body: `{"object":"error","message":"max_tokens is too large","type":"BadRequestError","param":null,"code":400}`},
			KindOther, 400, 1, []string{"HTTP 400: max_tokens is too large"}, nil, "max_tokens is too large", false},
		{"FastAPI detail", fakejudge.Reply{Status: 422, Body: `{"detail":"messages: field required"}`},
			KindOther, 422, 1, []string{"HTTP 422: messages: field required"}, nil, "messages: field required", false},
		{"Gemini's error in a list", fakejudge.Reply{Status: 400, Body: `[{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}}]`},
			KindOther, 400, 1, []string{"HTTP 400: Request contains an invalid argument."}, []string{"[{"}, "Request contains an invalid argument.", false},
		{"empty 500", fakejudge.Reply{Status: 500, Body: " "},
			KindOther, 500, 3, []string{"HTTP 500 Internal Server Error"}, nil, "", false},
		{"JSON cut short stays a parse error", fakejudge.Reply{Body: `{"choices": [`},
			KindOther, 0, 3, []string{"not valid JSON: it ends in the middle of a value"}, nil, "", true},
		{"text stays a parse error", fakejudge.Reply{Body: `Sure! Here is the JSON you asked for.`},
			KindOther, 0, 3, []string{"not valid JSON: invalid character"}, nil, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakejudge.New(func(*fakejudge.Request) fakejudge.Reply { return tc.reply })
			defer srv.Close()
			c := newTestClient(t, srv.BaseURL(), Config{APIKey: "sk-test", MaxRetries: 2})
			_, err := c.Chat(context.Background(), chatReq("kept"))
			f := failureOf(t, err)
			for _, want := range tc.has {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			for _, bad := range tc.hasNot {
				if strings.Contains(err.Error(), bad) {
					t.Errorf("error %q has %q", err, bad)
				}
			}
			if f.Kind != tc.kind || f.Status != tc.status || f.ServerMessage != tc.server {
				t.Errorf("kind %s status %d server %q; want %s %d %q", f.Kind, f.Status, f.ServerMessage, tc.kind, tc.status, tc.server)
			}
			if got, want := eval.StatusOf(err) == eval.StatusParseError, tc.parseErr; got != want {
				t.Errorf("status %s", eval.StatusOf(err))
			}
			if n := srv.Count("kept"); n != tc.calls {
				t.Errorf("%d requests, want %d", n, tc.calls)
			}
		})
	}
}

// TestEmbeddingsErrorObject: the same for the embeddings endpoint, where
// the reply would otherwise read as no data ("0 vectors for 2 texts").
func TestEmbeddingsErrorObject(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	srv.Set(func(s *fakejudge.Server) {
		s.EmbedFault = func([]string) (fakejudge.Reply, bool) {
			return fakejudge.Reply{Body: `{"error":{"message":"input is too long for the embedding model","type":"invalid_request_error","code":400}}`}, true
		}
	})
	c := newTestClient(t, srv.BaseURL(), Config{MaxRetries: 2})
	_, err := c.Embed(context.Background(), eval.EmbedRequest{Model: "embed-model", Texts: []string{"a", "b"}})
	f := failureOf(t, err)
	if f.ServerMessage != "input is too long for the embedding model" || strings.Contains(err.Error(), "vectors") {
		t.Fatalf("got %v", err)
	}
	if n := srv.Count("embeddings"); n != 1 {
		t.Fatalf("a 400 in a 200 was sent %d times", n)
	}
}

// dnsFailure dials nothing: every host is unknown.
func dnsFailure() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}}}
}

// TestClassify: the failures no retry cures are classified, named in the
// user's terms, found through any wrapping, and sent once.
func TestClassify(t *testing.T) {
	refusedURL, err := fakejudge.ClosedURL()
	if err != nil {
		t.Fatal(err)
	}
	refusedHost := strings.TrimSuffix(strings.TrimPrefix(refusedURL, "http://"), "/v1")
	cases := []struct {
		name   string
		reply  *fakejudge.Reply // nil: no server, baseURL and client below
		base   string
		client *http.Client
		key    string
		kind   Kind
		status int
		calls  int // with MaxRetries 5
		hint   string
		server string
	}{
		{"connection refused", nil, refusedURL, nil, "sk-x", KindUnreachable, 0, 1,
			"is the server running at " + refusedHost + "?", ""},
		{"unknown host", nil, "http://judge.invalid:8000/v1", dnsFailure(), "sk-x", KindUnreachable, 0, 1,
			"is the host name in --base-url right?", ""},
		{"401 with a key", &fakejudge.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: sk-x***","type":"invalid_request_error","code":"invalid_api_key"}}`}, "", nil, "sk-secret-key", KindUnauthorized, 401, 1,
			"check OPENAI_API_KEY (the endpoint answered 401: Incorrect API key provided: sk-x***)", "Incorrect API key provided: sk-x***"},
		{"401 without a key", &fakejudge.Reply{Status: 401, Body: `{"error":{"message":"missing bearer token"}}`}, "", nil, "", KindUnauthorized, 401, 1,
			"no API key was sent: set OPENAI_API_KEY (the endpoint answered 401: missing bearer token)", "missing bearer token"},
		{"403", &fakejudge.Reply{Status: 403, Body: `{"error":{"message":"Project does not have access to model"}}`}, "", nil, "sk-x", KindUnauthorized, 403, 1,
			"check OPENAI_API_KEY (the endpoint answered 403: Project does not have access to model)", "Project does not have access to model"},
		{"404 model (OpenAI)", &fakejudge.Reply{Status: 404, Body: `{"error":{"message":"The model 'judge-model' does not exist or you do not have access to it.","type":"invalid_request_error","code":"model_not_found"}}`}, "", nil, "sk-x", KindModelNotFound, 404, 1,
			`model "judge-model" not found: see GET /v1/models (the endpoint answered 404: The model 'judge-model' does not exist`, "The model 'judge-model' does not exist or you do not have access to it."},
		// Ollama's /v1 (netease-youdao/QAnything#555).
		{"404 model (Ollama)", &fakejudge.Reply{Status: 404, Body: `{"error":{"message":"model \"judge-model\" not found, try pulling it first","type":"api_error"}}`}, "", nil, "", KindModelNotFound, 404, 1,
			`model "judge-model" not found: see GET /v1/models`, `model "judge-model" not found, try pulling it first`},
		{"404 model (Gemini, in a list)", &fakejudge.Reply{Status: 404, Body: `[{"error":{"code":404,"message":"models/judge-model is not found for API version v1beta, or is not supported for generateContent.","status":"NOT_FOUND"}}]`}, "", nil, "sk-x", KindModelNotFound, 404, 1,
			`model "judge-model" not found: see GET /v1/models`, "models/judge-model is not found for API version v1beta, or is not supported for generateContent."},
		{"404 path", &fakejudge.Reply{Status: 404, Body: `{"detail":"Not Found"}`}, "", nil, "sk-x", KindWrongEndpoint, 404, 1,
			"/v1/chat/completions: is --base-url right? (it usually ends in /v1)", "Not Found"},
		{"429 out of quota", &fakejudge.Reply{Status: 429, Body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}`}, "", nil, "sk-x", KindQuota, 429, 1,
			"out of quota", "You exceeded your current quota, please check your plan and billing details."},
		// Out of credit in other words: none is waited for or asked again,
		// and the run stops.
		{"402 (DeepSeek)", &fakejudge.Reply{Status: 402, Body: `{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}`}, "", nil, "sk-x", KindQuota, 402, 1,
			"out of quota or credit", "Insufficient Balance"}, // continuedev/continue#9942, Aider-AI/aider#4851
		{"429 coded 1113 (Zhipu)", &fakejudge.Reply{Status: 429, Body: `{"error":{"code":"1113","message":"Insufficient balance or no resource package. Please recharge."},"request_id":"202603142338501da90b7ebe1d473d"}`}, "", nil, "sk-x", KindQuota, 429, 1,
			"out of quota or credit", "Insufficient balance or no resource package. Please recharge."}, // 7836246/cursor2api#30
		{"400 Arrearage (DashScope)", &fakejudge.Reply{Status: 400, Body: `{"error":{"code":"Arrearage","param":null,"message":"Access denied, please make sure your account is in good standing.","type":"Arrearage"},"id":"chatcmpl-1","request_id":"1"}`}, "", nil, "sk-x", KindQuota, 400, 1,
			"out of quota or credit", "Access denied, please make sure your account is in good standing."}, // hsliuping/TradingAgents-CN#170
		// Volcengine Ark names the model an endpoint (w4n9H/autocoder-nano#3,
		// volcengine/MineContext#328).
		{"404 model (Volcengine Ark)", &fakejudge.Reply{Status: 404, Body: `{"error":{"code":"InvalidEndpointOrModel.NotFound","message":"The model or endpoint judge-model does not exist or you do not have access to it. Request id: 0217","param":"","type":"NotFound"}}`}, "", nil, "sk-x", KindModelNotFound, 404, 1,
			`model "judge-model" not found: see GET /v1/models`, "The model or endpoint judge-model does not exist or you do not have access to it. Request id: 0217"},
		{"404 endpoint id (Volcengine Ark)", &fakejudge.Reply{Status: 404, Body: `{"error":{"code":"InvalidEndpoint.NotFound","message":"The request targeted an endpoint that does not exist or is invalid. Request id: 0217","param":"","type":"NotFound"}}`}, "", nil, "sk-x", KindModelNotFound, 404, 1,
			`model "judge-model" not found`, "The request targeted an endpoint that does not exist or is invalid. Request id: 0217"},
		{"500 is retried", &fakejudge.Reply{Status: 500}, "", nil, "sk-x", KindOther, 500, 6, "", "fake error 500"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base, hc := tc.base, tc.client
			var srv *fakejudge.Server
			if tc.reply != nil {
				srv = fakejudge.New(func(*fakejudge.Request) fakejudge.Reply { return *tc.reply })
				defer srv.Close()
				base = srv.BaseURL()
			}
			if hc == nil {
				hc = &http.Client{Transport: http.DefaultTransport}
			}
			ct := &countingTransport{base: hc.Transport}
			// A backoff this long would time the test out if a failure
			// that must not be retried were.
			c := newTestClient(t, base, Config{APIKey: tc.key, MaxRetries: 5, HTTPClient: &http.Client{Transport: ct},
				BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
			_, err := c.Chat(context.Background(), chatReq("classify"))
			if err == nil {
				t.Fatal("no error")
			}
			// As the app sees it: wrapped again, and again.
			wrapped := fmt.Errorf("sample 3: %w", fmt.Errorf("faithfulness: %w", err))
			var f *Failure
			if !errors.As(wrapped, &f) {
				t.Fatalf("errors.As finds no *Failure in %v", wrapped)
			}
			got := Classify(wrapped)
			if got.Kind != tc.kind || f.Kind != tc.kind || got.Status != tc.status || got.Kind.Unrecoverable() != (tc.calls == 1) {
				t.Fatalf("kind %s (%s) status %d unrecoverable %v: %v", got.Kind, f.Kind, got.Status, got.Kind.Unrecoverable(), err)
			}
			if !strings.Contains(got.Hint, tc.hint) || !strings.Contains(err.Error(), tc.hint) {
				t.Errorf("hint %q; want %q in it and in the error %q", got.Hint, tc.hint, err)
			}
			if got.ServerMessage != tc.server {
				t.Errorf("server message %q, want %q", got.ServerMessage, tc.server)
			}
			if !strings.HasSuffix(got.Endpoint, "/v1/chat/completions") || strings.ContainsAny(got.Endpoint, "?@") || strings.Contains(got.Endpoint, "://") {
				t.Errorf("endpoint %q", got.Endpoint)
			}
			if n := int(ct.n.Load()); n != tc.calls {
				t.Errorf("%d attempts, want %d", n, tc.calls)
			}
			if tc.key != "" && strings.Contains(err.Error(), tc.key) && len(tc.key) > 4 {
				t.Errorf("the key is in %q", err)
			}
		})
	}
	if f := Classify(nil); f.Kind != "" {
		t.Errorf("Classify(nil): %+v", f)
	}
	if f := Classify(context.Canceled); f.Kind != KindOther || f.Kind.Unrecoverable() {
		t.Errorf("Classify(context.Canceled): %+v", f)
	}
}

// TestRetryAfterBeyondCap: a Retry-After longer than --max-retry-after is
// not silently shortened: the call fails at once and says what was asked,
// what the cap is and which flag raises it, and the calls behind it fail
// without being sent.
func TestRetryAfterBeyondCap(t *testing.T) {
	srv := fakejudge.New(func(*fakejudge.Request) fakejudge.Reply {
		return fakejudge.Reply{Status: 429, Header: map[string]string{"Retry-After": "600"}, Body: `{"error":{"message":"Rate limit reached for requests per day"}}`}
	})
	defer srv.Close()
	c := newTestClient(t, srv.BaseURL(), Config{MaxRetries: 6, MaxRetryAfter: 30 * time.Second})
	_, err := c.Chat(context.Background(), chatReq("daily"))
	f := failureOf(t, err)
	for _, want := range []string{"HTTP 429: Rate limit reached for requests per day", "the server asked to retry after 10m0s, beyond the 30s cap", "--max-retry-after"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if f.Kind != KindRateLimited || srv.Count("daily") != 1 {
		t.Fatalf("kind %s after %d requests", f.Kind, srv.Count("daily"))
	}
	_, err = c.Chat(context.Background(), chatReq("daily"))
	if !strings.Contains(err.Error(), "the endpoint is paused for another 10m0s") || !strings.Contains(err.Error(), "--max-retry-after") || srv.Count("daily") != 1 {
		t.Fatalf("the next call: %v, after %d requests", err, srv.Count("daily"))
	}
	if s := c.Limit(); !strings.HasPrefix(s.String(), "rate limited: 0 in flight of 8 (max 16), paused 6") {
		t.Fatalf("limit %q", s.String())
	}
}

// TestThrottleWaitsForTheReset: a 429 with no Retry-After but OpenAI's
// x-ratelimit-reset-* is waited out for the spent limit's reset, not the
// other's.
func TestThrottleWaitsForTheReset(t *testing.T) {
	var sent atomic.Int64
	srv := fakejudge.New(func(*fakejudge.Request) fakejudge.Reply {
		if sent.Add(1) == 1 {
			return fakejudge.Reply{Status: 429, Header: map[string]string{
				"X-Ratelimit-Remaining-Requests": "0", "X-Ratelimit-Reset-Requests": "200ms",
				"X-Ratelimit-Remaining-Tokens": "9000", "X-Ratelimit-Reset-Tokens": "6m0s",
			}, Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`}
		}
		return fakejudge.Reply{Choices: []string{`{}`}}
	})
	defer srv.Close()
	c := newTestClient(t, srv.BaseURL(), Config{Concurrency: 1, MaxRetries: 3, MaxRetryAfter: 30 * time.Second})
	start := time.Now()
	if _, err := c.Chat(context.Background(), chatReq("reset")); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 200*time.Millisecond || el > 10*time.Second {
		t.Fatalf("done after %s; the spent limit resets in 200ms", el)
	}
}

// TestThrottleWithinCapWaits: a Retry-After within the cap is waited out by
// every call, and the retry notice carries the wait.
func TestThrottleWithinCapWaits(t *testing.T) {
	var sent atomic.Int64
	srv := fakejudge.New(func(*fakejudge.Request) fakejudge.Reply {
		if sent.Add(1) == 1 {
			return fakejudge.Reply{Status: 503, Header: map[string]string{"Retry-After": "0.2"}}
		}
		return fakejudge.Reply{Choices: []string{`{}`}}
	})
	defer srv.Close()
	c := newTestClient(t, srv.BaseURL(), Config{Concurrency: 1, MaxRetries: 3})
	start := time.Now()
	if _, err := c.Chat(context.Background(), chatReq("wait")); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 200*time.Millisecond {
		t.Fatalf("done after %s; the server asked for 200ms", el)
	}
	if s := c.Limit(); s.Throttled != 1 {
		t.Fatalf("%+v", s)
	}
}
