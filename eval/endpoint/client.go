// Package endpoint is the client of OpenAI-compatible endpoints: chat
// completions and embeddings with retries, one rate limiter per endpoint,
// bounded reply bodies, failures in the user's terms with no credential in
// them, what a run learns of a server (Abilities) and the split of a
// reply's reasoning from its answer (SplitReasoning).
package endpoint

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ragscope/ragscope/eval"
)

// Config configures the client.
type Config struct {
	BaseURL string
	APIKey  string
	// KeyFrom names where the key was read, for a refused key's hint:
	// "$OPENAI_API_KEY" (the default), a profile's "$DEEPSEEK_KEY", "--api-key".
	KeyFrom string
	// APIType is "openai" (default) or "azure"; Azure also needs APIVersion
	// and uses the model name as the deployment name.
	APIType    string
	APIVersion string
	// Concurrency bounds the requests in flight (default 16); the limiter
	// allows fewer while the endpoint throttles.
	Concurrency int
	// RequestTimeout bounds one attempt (default 60s).
	RequestTimeout time.Duration
	// MaxRetries is the number of retries after the first attempt (default 6).
	MaxRetries int
	// BackoffBase and BackoffMax shape exponential backoff with full jitter
	// (defaults 500ms and 30s) after a failure the server gave no wait for.
	BackoffBase, BackoffMax time.Duration
	// MaxRetryAfter (default 2m, --max-retry-after) is the longest a call
	// waits for a pause the server asked for. A throttle asking for more is
	// not retried, and says so: retrying before the server allows would
	// only be refused again.
	MaxRetryAfter time.Duration
	// RPM and TPM (--rpm, --tpm) cap the requests and tokens sent per
	// minute; 0 is no cap. Tokens are estimated from the request before it
	// is sent (a quarter of its text's bytes plus MaxTokens, or 256, per
	// choice) and corrected by the usage the reply reports.
	RPM, TPM int
	// MaxReplyBytes (default 8 MiB, --max-reply-bytes) caps the body read
	// of a chat reply. An embeddings reply may be EmbedReplyBytesPerText
	// (128 KiB) larger per text sent: its size grows with the batch. A
	// reply over the cap ends the call, not retried.
	MaxReplyBytes int64
	// EmbeddingFormat is "float" (default) or "base64".
	EmbeddingFormat string
	// MaxTokens (default DefaultMaxTokens, --max-tokens) is the largest
	// completion budget a chat call may be given. A reply cut at the token
	// limit (finish_reason length) is asked again with twice the budget,
	// up to this; past it the call ends as truncated.
	MaxTokens int
	// Abilities is what is known of the endpoint (shared with the judge):
	// the reasoning switches it refused are not sent again, and replies
	// that reason are recorded. nil: nothing known.
	Abilities *Abilities
	// HTTPClient overrides the base HTTP client (tests).
	HTTPClient *http.Client
}

// DefaultMaxTokens is the default of Config.MaxTokens: room for a
// reasoning model's thinking before a judge's JSON.
const DefaultMaxTokens = 16384

// Client implements eval.ChatClient. All its calls share one limiter (see
// LimitState): the endpoint sees one client backing off, not Concurrency
// clients backing off each on its own.
type Client struct {
	cfg  Config
	http *http.Client
	// base is the base URL without its query (see withQuery).
	base       string
	lim        *limiter
	modelsPath string
}

// New returns a client for the endpoint.
func New(cfg Config) (*Client, error) {
	cfg.Concurrency = orDefault(cfg.Concurrency, 16)
	cfg.RequestTimeout = orDefault(cfg.RequestTimeout, 60*time.Second)
	cfg.BackoffBase = orDefault(cfg.BackoffBase, 500*time.Millisecond)
	cfg.BackoffMax = orDefault(cfg.BackoffMax, 30*time.Second)
	cfg.MaxRetryAfter = orDefault(cfg.MaxRetryAfter, 2*time.Minute)
	cfg.MaxReplyBytes = orDefault(cfg.MaxReplyBytes, DefaultMaxReplyBytes)
	cfg.MaxTokens = orDefault(cfg.MaxTokens, DefaultMaxTokens)
	cfg.MaxRetries, cfg.RPM, cfg.TPM = max(cfg.MaxRetries, 0), max(cfg.RPM, 0), max(cfg.TPM, 0)
	if cfg.Abilities == nil {
		cfg.Abilities = NewAbilities(EndpointProfile{}, "")
	}
	switch cfg.APIType {
	case "", "openai":
	case "azure":
		if cfg.BaseURL == "" {
			return nil, errors.New("--api-type azure needs --base-url (https://RESOURCE.openai.azure.com)")
		}
		cfg.APIVersion = cmp.Or(cfg.APIVersion, "2023-05-15")
	default:
		return nil, fmt.Errorf("--api-type: %q is not one of openai, azure", cfg.APIType)
	}
	c := &Client{cfg: cfg, base: "https://api.openai.com/v1", modelsPath: "/v1/models"}
	// The default keeps 2 idle connections per host: every request in
	// flight beyond them would pay a new TLS handshake.
	dt := http.DefaultTransport.(*http.Transport).Clone()
	dt.MaxIdleConnsPerHost = cfg.Concurrency
	dt.MaxIdleConns = max(dt.MaxIdleConns, cfg.Concurrency)
	var rt http.RoundTripper = dt
	if cfg.HTTPClient != nil && cfg.HTTPClient.Transport != nil {
		rt = cfg.HTTPClient.Transport
	}
	// The path goes after the base URL, so a query in it is added to every
	// request on the wire instead.
	if cfg.BaseURL != "" {
		c.base = strings.TrimRight(cfg.BaseURL, "/")
		if u, err := url.Parse(c.base); err == nil && u.RawQuery != "" {
			rt = withQuery{base: rt, query: u.Query()}
			u.RawQuery, u.ForceQuery = "", false
			c.base = strings.TrimRight(u.String(), "/")
		}
	}
	// No client-wide timeout: each attempt has its own context deadline.
	c.http = &http.Client{Transport: rt}
	if cfg.APIType == "azure" {
		c.modelsPath = "/openai/models"
	} else if u, err := url.Parse(c.base); err == nil && u.Host != "" {
		c.modelsPath = strings.TrimRight(u.Path, "/") + "/models"
	}
	c.lim = newLimiter(cfg.Concurrency, cfg.RPM, cfg.TPM, cfg.MaxRetryAfter, c.backoff)
	return c, nil
}

func orDefault[T int | int64 | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// InFlight is the number of requests on the wire now.
func (c *Client) InFlight() int { return c.lim.state().InFlight }

// Limit is the state of the endpoint's limiter now, for display.
func (c *Client) Limit() LimitState { return c.lim.state() }

// defaultCompletionEstimate is the completion tokens a chat call is assumed
// to spend, for --tpm, when it sets no max_tokens: a judge's JSON verdicts
// are short. The reply's usage corrects it.
const defaultCompletionEstimate = 256

// estimateChat is the tokens of a chat call at a completion budget.
func estimateChat(req eval.ChatRequest, budget int) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content) + 16 // the role and the message's framing
	}
	return n/4 + orDefault(budget, defaultCompletionEstimate)*max(req.N, 1)
}

// Chat implements eval.ChatClient. Beyond one call with retries, it asks
// again with a larger budget when a reply is cut at the token limit, and
// without a reasoning switch, the temperature or n the server refused.
func (c *Client) Chat(ctx context.Context, req eval.ChatRequest) (eval.ChatResponse, error) {
	budget := req.MaxTokens
	var paid eval.Usage
	cutAt := 0 // the completion tokens of the last reply cut at the limit
	for refusals := 0; ; {
		out, cut, sent, err := c.chatOnce(ctx, req, budget)
		paid.PromptTokens += out.Usage.PromptTokens
		paid.CompletionTokens += out.Usage.CompletionTokens
		paid.ReasoningTokens += out.Usage.ReasoningTokens
		out.Usage = paid
		if err != nil {
			if sw := refusedSwitch(err, sent, req.Reasoning); sw != "" && refusals < 8 {
				refusals++
				if c.cfg.Abilities.Refuse(sw) {
					eval.ReportNotice(ctx, c.cfg.Abilities.Notice())
				}
				eval.ReportRetry(ctx, req.Task, refusalRetry(sw, req), 0)
				continue
			}
			// A budget of 0 is the server's default, which may not fit
			// either (DeepSeek's is 4096 completion tokens).
			if fit, ok := contextFit(err); ok && (budget == 0 || fit < budget) {
				if fit <= cutAt {
					return out, &eval.StepError{Status: eval.StatusTruncated, Err: fmt.Errorf("%s: the reply was cut off at the token limit (finish_reason length) after %d completion tokens, and no more fit the model's context after the prompt: %w", req.Task, cutAt, err)}
				}
				eval.ReportRetry(ctx, req.Task, fmt.Errorf("max_tokens %d does not fit the model's context after the prompt; asking again with %d", budget, fit), 0)
				budget = fit
				continue
			}
			return out, err
		}
		if cut == nil {
			return out, nil
		}
		cutAt = cut.completion
		next := c.nextBudget(budget, cut.completion)
		if next <= budget || next <= 0 {
			msg := fmt.Sprintf("the reply was cut off at the token limit (finish_reason length) with max_tokens %d, the most --max-tokens allows: raise --max-tokens", budget)
			if budget == 0 {
				msg = fmt.Sprintf("the reply was cut off at the server's token limit (finish_reason length) after %d completion tokens, and --max-tokens %d allows no more: raise --max-tokens", cut.completion, c.cfg.MaxTokens)
			}
			if cut.reasoning {
				msg += ", or turn the model's thinking off (--reasoning off)"
			}
			return out, &eval.StepError{Status: eval.StatusTruncated, Err: fmt.Errorf("%s: %s", req.Task, msg)}
		}
		eval.ReportRetry(ctx, req.Task, fmt.Errorf("the reply was cut off at the token limit (finish_reason length); asking again with max_tokens %d", next), 0)
		budget = next
	}
}

// contextWindow and promptTokens read a refusal of a budget that does not
// fit the model's context: "maximum context length is 32768 tokens ...
// (17000 in the messages, ...)" (OpenAI, vLLM, DeepSeek), "... and your
// request has 17000 input tokens" (vLLM), "maximum context length of 32768
// tokens ... 17000 tokens from the input messages" (SGLang). budgetRange
// reads a refusal of a budget over the model's most: "Invalid max_tokens
// value, the valid range of max_tokens is [1, 8192]" (DeepSeek;
// CherryHQ/cherry-studio#4377).
var (
	contextWindow = regexp.MustCompile(`maximum context length (?:is|of) (\d+)`)
	promptTokens  = regexp.MustCompile(`(\d+) (?:in the messages|input tokens|tokens from the input)`)
	budgetRange   = regexp.MustCompile(`valid range of max_tokens is \[\d+, *(\d+)\]`)
)

// contextFit is the largest budget the server takes, when err is a
// refusal that says it: the model's context after the prompt, a few tokens
// kept apart for the reply's framing, or the most the model allows.
func contextFit(err error) (int, bool) {
	var f *Failure
	if !errors.As(err, &f) || f.decided() != 400 && f.decided() != 422 {
		return 0, false
	}
	msg := strings.ToLower(f.ServerMessage)
	if m := budgetRange.FindStringSubmatch(msg); m != nil {
		most, _ := strconv.Atoi(m[1])
		return most, most > 0
	}
	return roomAfterPrompt(msg)
}

// roomAfterPrompt is what a refusal of a budget says the model's context
// leaves after the prompt; false when it does not say, or leaves none.
func roomAfterPrompt(msg string) (int, bool) {
	msg = strings.ToLower(msg)
	w, p := contextWindow.FindStringSubmatch(msg), promptTokens.FindStringSubmatch(msg)
	if w == nil || p == nil {
		return 0, false
	}
	window, _ := strconv.Atoi(w[1])
	prompt, _ := strconv.Atoi(p[1])
	if fit := window - prompt - 16; fit > 0 {
		return fit, true
	}
	return 0, false
}

// measureReasoning adds a reply to the endpoint's reasoning share: by the
// tokens the server reports, else by the reasoning's share of the text.
func (c *Client) measureReasoning(out eval.ChatResponse) {
	if u := out.Usage; u.ReasoningTokens > 0 && u.CompletionTokens > 0 {
		c.cfg.Abilities.MeasureReasoning(u.ReasoningTokens, u.CompletionTokens)
		return
	}
	r, all := 0, 0
	for i, ch := range out.Choices {
		all += len(ch)
		if i < len(out.Reasoning) {
			r += len(out.Reasoning[i])
			all += len(out.Reasoning[i])
		}
	}
	c.cfg.Abilities.MeasureReasoning(r, all)
}

// cutReply is a reply that ended at the token limit: completion is the
// completion tokens per choice it spent, reasoning whether it was still
// reasoning.
type cutReply struct {
	completion int
	reasoning  bool
}

// nextBudget is the budget to ask after a reply was cut with budget (0:
// the server's default, which the reply's completion tokens show): twice
// as much, up to the cap.
func (c *Client) nextBudget(budget, completion int) int {
	base := budget
	if base <= 0 {
		base = max(completion, 512)
	}
	next := min(2*base, c.cfg.MaxTokens)
	if budget == 0 && next <= completion {
		return 0 // the server's default was already the cap or more
	}
	return next
}

// reasoningModel reports models whose OpenAI API takes
// max_completion_tokens instead of max_tokens; another model that refuses
// max_tokens is learnt from the refusal.
func reasoningModel(model string) bool {
	return slices.ContainsFunc([]string{"o1", "o3", "o4", "gpt-5"}, func(p string) bool { return strings.HasPrefix(model, p) })
}

// effortLadder is the order of reasoning_effort values tried to turn
// thinking off: Ollama and recent OpenAI models take "none", gpt-5
// "minimal", the o-series no less than "low".
var effortLadder = []string{"none", "minimal", "low"}

// switches are the body fields that carry the reasoning switch: every
// family's that the server has not refused. Servers ignore fields they do
// not know (vLLM, SGLang, llama.cpp, Ollama) or refuse them with a 400
// naming the field (OpenAI, some gateways); a refused one is dropped and
// the call sent again (see refusedSwitch).
func (c *Client) switches(b *chatBody, mode string) {
	ab := c.cfg.Abilities
	off := false
	if mode == "off" && !ab.Refused("enable_thinking") || mode != "on" && ab.Refused("stream_only_thinking") {
		// DashScope's own switch, top-level; it refuses a call without it
		// to a model that thinks by default unless the call streams.
		b.EnableThinking = &off
	}
	if mode != "off" && mode != "on" {
		return
	}
	on := mode == "on"
	if !ab.Refused("thinking") {
		// GLM (Zhipu) and Doubao (Volcengine) read thinking.type.
		b.Thinking = map[string]string{"type": "disabled"}
		if on {
			b.Thinking["type"] = "enabled"
		}
	}
	if !ab.Refused("chat_template_kwargs") {
		// Qwen3 on vLLM/SGLang/llama.cpp reads enable_thinking;
		// DeepSeek-V3.1 and Granite read thinking.
		b.ChatTemplateKwargs = map[string]bool{"enable_thinking": on, "thinking": on}
	}
	efforts := effortLadder
	if on {
		efforts = []string{"medium"}
	}
	for _, e := range efforts {
		if !ab.Refused("reasoning_effort") && !ab.Refused("reasoning_effort="+e) {
			b.ReasoningEffort = e
			break
		}
	}
}

// refusalRetry is what a call asked again after the refusal sw says.
func refusalRetry(sw string, req eval.ChatRequest) error {
	switch sw {
	case "stream_only_thinking":
		return errors.New("the endpoint's model thinks only in a streaming call; asking with enable_thinking false")
	case "non_streaming":
		return errors.New("the endpoint's model answers only in a streaming call; asking again streaming")
	}
	what := map[string]string{
		"temperature":    fmt.Sprintf("temperature %g for this model", req.Temperature),
		"n":              fmt.Sprintf("n %d (several choices in one call)", req.N),
		"max_tokens":     "max_tokens (it takes max_completion_tokens)",
		"stream_options": "stream_options (a stream's usage)",
	}[sw]
	return fmt.Errorf("the endpoint refused %s; asking without it", cmp.Or(what, "the reasoning switch "+sw))
}

// refusedSwitch names what a 400 or 422 (or llama.cpp's 500 refusing n)
// refused of the call sent, for the Abilities to learn: a field (a
// reasoning switch, temperature, n, max_tokens), or a call without
// streaming ("non_streaming", or "stream_only_thinking" when
// enable_thinking false will do); "" when the
// failure is no such refusal. It reads what the failed call sent, not what
// is known now: calls in flight when another learned of the refusal must
// learn it too, not fail.
func refusedSwitch(err error, sent chatBody, mode string) string {
	var f *Failure
	if !errors.As(err, &f) {
		return ""
	}
	if sent.N > 1 && f.decided() >= 400 && oneChoiceOnly(f.ServerMessage) {
		return "n" // llama.cpp's server, with a 400 or a 500
	}
	if f.decided() != 400 && f.decided() != 422 {
		return ""
	}
	msg := strings.ToLower(f.ServerMessage + " " + f.detail)
	// "This model only support stream mode, please enable the stream
	// parameter" (DashScope, ModelScope: QwQ, thinking-only Qwen3).
	if !sent.Stream && strings.Contains(msg, "stream") && (strings.Contains(msg, "only support") || strings.Contains(msg, "仅支持")) {
		return "non_streaming"
	}
	// "parameter.enable_thinking must be set to false for non-streaming
	// calls" (DashScope; 必须设置为false才能进行非流式调用), "enable thinking
	// can not be support when `stream=False`" (ModelScope): the model
	// thinks by default and the call does not stream. Not a field to drop
	// but one to send.
	if (strings.Contains(msg, "enable_thinking") || strings.Contains(msg, "enable thinking")) && (strings.Contains(msg, "stream") || strings.Contains(msg, "流式")) {
		switch {
		case sent.Stream:
			return ""
		case mode == "on" || sent.EnableThinking != nil && !*sent.EnableThinking:
			// Thinking wanted, or a model that cannot stop: stream.
			return "non_streaming"
		}
		return "stream_only_thinking"
	}
	if sent.StreamOptions != nil && strings.Contains(msg, "stream_options") {
		return "stream_options" // a server too old to report a stream's usage
	}
	if !strings.Contains(msg, "chat_template_kwargs") {
		if sent.EnableThinking != nil && strings.Contains(msg, "enable_thinking") {
			return "enable_thinking"
		}
		if sent.Thinking != nil && strings.Contains(msg, "thinking") {
			return "thinking"
		}
	}
	// "Unsupported value: 'temperature' does not support 0 with this
	// model", or "'temperature' is not supported with this model".
	if sent.Temperature != nil && strings.Contains(msg, "temperature") {
		return "temperature"
	}
	// "Unsupported value: 'n' does not support 3 with this model"
	// (OpenAI), "'n' : number must be at most 1" (Groq), "n: must be 1".
	if sent.N > 1 && nField.MatchString(msg) {
		return "n"
	}
	// "Unsupported parameter: 'max_tokens' is not supported with this
	// model. Use 'max_completion_tokens' instead." (a model newer than the
	// names reasoningModel knows).
	if sent.MaxTokens > 0 && strings.Contains(msg, "max_tokens") && strings.Contains(msg, "max_completion_tokens") && strings.Contains(msg, "not supported") {
		return "max_tokens"
	}
	if sent.ChatTemplateKwargs != nil && (strings.Contains(msg, "chat_template_kwargs") || strings.Contains(msg, "enable_thinking")) {
		return "chat_template_kwargs"
	}
	if e := sent.ReasoningEffort; e != "" && (strings.Contains(msg, "reasoning_effort") || strings.Contains(msg, "reasoning effort")) {
		if strings.Contains(msg, "'"+e+"'") || strings.Contains(msg, `"`+e+`"`) || strings.Contains(msg, "value") {
			return "reasoning_effort=" + e
		}
		return "reasoning_effort"
	}
	return ""
}

// nField finds n named as a field in a refusal: quoted, or a word of its
// own before what it must be ("n must be exactly 1", "n: ...").
var nField = regexp.MustCompile("['\"`]n['\"`]" + `|(?:^|[\s(.,;])n(?:\s*[:=]|\s+(?:must|should|is|parameter|only|not)\b)`)

// chatBody is the body of a chat completion request. Temperature is sent
// even when 0, which is not the servers' default, unless the endpoint
// refused it (OpenAI's reasoning models take only their own).
type chatBody struct {
	Model               string            `json:"model"`
	Messages            []eval.Message    `json:"messages"`
	MaxTokens           int               `json:"max_tokens,omitempty"`
	MaxCompletionTokens int               `json:"max_completion_tokens,omitempty"`
	Temperature         *float32          `json:"temperature,omitempty"`
	TopP                float32           `json:"top_p,omitempty"`
	N                   int               `json:"n,omitempty"`
	ResponseFormat      map[string]any    `json:"response_format,omitempty"`
	Seed                *int              `json:"seed,omitempty"`
	ReasoningEffort     string            `json:"reasoning_effort,omitempty"`
	ChatTemplateKwargs  map[string]bool   `json:"chat_template_kwargs,omitempty"`
	EnableThinking      *bool             `json:"enable_thinking,omitempty"`
	Thinking            map[string]string `json:"thinking,omitempty"`
	Stream              bool              `json:"stream,omitempty"`
	StreamOptions       *streamOptions    `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatReply is what is read of a chat completion. The reasoning comes in
// reasoning_content (DeepSeek, vLLM) or reasoning (Ollama, OpenRouter).
type chatReply struct {
	Choices []chatChoice `json:"choices"`
	Usage   chatUsage    `json:"usage"`
}

type chatUsage struct {
	PromptTokens            int `json:"prompt_tokens"`
	CompletionTokens        int `json:"completion_tokens"`
	CompletionTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

type chatChoice struct {
	Index        int         `json:"index"`
	FinishReason string      `json:"finish_reason"`
	Message      chatMessage `json:"message"`
}

// chatMessage is a choice's message, or a streamed choice's delta of it.
type chatMessage struct {
	Content          replyText `json:"content"`
	ReasoningContent string    `json:"reasoning_content"`
	Reasoning        looseText `json:"reasoning"`
}

// looseText is a string field that reads as "" when it is not a string.
type looseText string

func (t *looseText) UnmarshalJSON(data []byte) error {
	var s string
	if json.Unmarshal(data, &s) == nil {
		*t = looseText(s)
	}
	return nil
}

// replyText is a message's content: a string, or a list of parts, as
// Mistral's Magistral sends it: [{"type": "thinking", "thinking": [{"type":
// "text", "text": …}]}, {"type": "text", "text": …}]. The text parts are
// the answer; the thinking parts are reasoning, never the answer, for the
// same reason a <think> block is not. Other parts and shapes read as "".
type replyText struct{ text, thinking string }

func (t *replyText) UnmarshalJSON(data []byte) error {
	*t = replyText{}
	var s string
	if json.Unmarshal(data, &s) == nil {
		t.text = s
		return nil
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
	}
	if json.Unmarshal(data, &parts) != nil {
		return nil
	}
	var text, thinking strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "text":
			text.WriteString(p.Text)
		case "thinking":
			var th replyText // a string, or text parts again
			_ = th.UnmarshalJSON(p.Thinking)
			thinking.WriteString(th.text)
		}
	}
	t.text, t.thinking = text.String(), thinking.String()
	return nil
}

// chatOnce is one call with retries at a completion budget; cut is set
// when the reply ended at the token limit.
func (c *Client) chatOnce(ctx context.Context, req eval.ChatRequest, budget int) (eval.ChatResponse, *cutReply, chatBody, error) {
	body := chatBody{Model: req.Model, Messages: req.Messages, TopP: req.TopP, Seed: req.Seed}
	if !c.cfg.Abilities.Refused("temperature") {
		body.Temperature = &req.Temperature
	}
	if !c.cfg.Abilities.Refused("n") && c.cfg.Abilities.NHonoured() {
		// Without it, the one choice tells the caller to draw the rest.
		body.N = req.N
	}
	if reasoningModel(req.Model) || c.cfg.Abilities.Refused("max_tokens") {
		body.MaxCompletionTokens = budget
	} else {
		body.MaxTokens = budget
	}
	switch req.ResponseFormat.Type {
	case "json_schema":
		body.ResponseFormat = map[string]any{"type": "json_schema",
			"json_schema": map[string]any{"name": req.ResponseFormat.Name, "schema": req.ResponseFormat.Schema, "strict": true}}
	case "json_object":
		body.ResponseFormat = map[string]any{"type": "json_object"}
	}
	c.switches(&body, req.Reasoning)
	if c.cfg.Abilities.Refused("non_streaming") {
		body.Stream = true
		if !c.cfg.Abilities.Refused("stream_options") {
			body.StreamOptions = &streamOptions{IncludeUsage: true}
		}
	}
	var out eval.ChatResponse
	var cut *cutReply
	var paid eval.Usage // every attempt's: a malformed reply asked again is billed too
	err := c.retry(ctx, req.Task, req.Model, estimateChat(req, budget), func(actx context.Context, a *attempt) (int, error) {
		a.maxReply = c.cfg.MaxReplyBytes
		start := time.Now()
		var resp chatReply
		var into any = &resp
		if body.Stream {
			into = (*streamedReply)(&resp)
		}
		if err := c.post(actx, a, "/chat/completions", req.Model, body, into); err != nil {
			return 0, err
		}
		used := resp.Usage.PromptTokens + resp.Usage.CompletionTokens
		paid.PromptTokens += resp.Usage.PromptTokens
		paid.CompletionTokens += resp.Usage.CompletionTokens
		paid.ReasoningTokens += resp.Usage.CompletionTokensDetails.ReasoningTokens
		out = eval.ChatResponse{Usage: paid, LatencyMS: time.Since(start).Milliseconds()}
		slices.SortStableFunc(resp.Choices, func(x, y chatChoice) int { return cmp.Compare(x.Index, y.Index) })
		var reasoned bool
		for _, ch := range resp.Choices {
			answer, reasoning, open := SplitReasoning(ch.Message.Content.text)
			// One field or the other: a server that fills both with the
			// same text must not count it twice.
			r := cmp.Or(strings.TrimSpace(ch.Message.ReasoningContent), strings.TrimSpace(string(ch.Message.Reasoning)),
				strings.TrimSpace(ch.Message.Content.thinking))
			if r != "" {
				reasoning = strings.TrimSpace(r + "\n\n" + reasoning)
			}
			reasoned = reasoned || reasoning != ""
			if ch.FinishReason == "content_filter" || ch.FinishReason == "sensitive" {
				// Azure, and OpenAI, withhold a reply their filter flags,
				// Zhipu's GLM ends it with "sensitive" (promptfoo/promptfoo#9905):
				// what came, if anything, is no verdict, and the same
				// prompt is flagged again, so it is not asked again.
				return used, &contentError{status: eval.StatusJudgeError, msg: contentFiltered}
			}
			if ch.FinishReason == "length" {
				// Asked again with a larger budget: the limiter counts
				// the tokens, the caller pays them, nothing is validated.
				cut = &cutReply{completion: resp.Usage.CompletionTokens / max(len(resp.Choices), 1), reasoning: open || answer == ""}
				if reasoned && c.cfg.Abilities.SawReasoning() {
					eval.ReportNotice(ctx, c.cfg.Abilities.Notice())
				}
				return used, nil
			}
			if open || (answer == "" && reasoning != "") {
				return used, &contentError{status: eval.StatusParseError, msg: "the reply is all reasoning: no answer follows it"}
			}
			if req.Validate != nil {
				if verr := req.Validate(answer); verr != nil {
					return used, &contentError{status: eval.StatusParseError, msg: "malformed reply: " + verr.Error()}
				}
			}
			out.Choices = append(out.Choices, answer)
			out.Reasoning = append(out.Reasoning, reasoning)
			out.FinishReasons = append(out.FinishReasons, ch.FinishReason)
		}
		if len(out.Choices) == 0 {
			return used, &contentError{status: eval.StatusParseError, msg: "the reply has no choices"}
		}
		if !reasoned {
			out.Reasoning = nil
		} else if c.cfg.Abilities.SawReasoning() {
			eval.ReportNotice(ctx, c.cfg.Abilities.Notice())
		}
		c.measureReasoning(out)
		return used, nil
	})
	return out, cut, body, err
}

// embedBody is the body of an embeddings request.
type embedBody struct {
	Input          []string `json:"input"`
	Model          string   `json:"model"`
	EncodingFormat string   `json:"encoding_format,omitempty"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type embedReply struct {
	Data []struct {
		Index     int    `json:"index"`
		Embedding vector `json:"embedding"`
	} `json:"data"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
	} `json:"usage"`
}

// vector is an embedding given as floats, or as base64 of little-endian
// float32s, whichever was asked.
type vector []float64

func (v *vector) UnmarshalJSON(data []byte) error {
	var fs []float32
	var s string
	if json.Unmarshal(data, &s) == nil {
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(raw)%4 != 0 {
			return &json.UnmarshalTypeError{Value: "string (not base64 of float32s)", Type: reflect.TypeFor[[]float32]()}
		}
		fs = make([]float32, len(raw)/4)
		_, _ = binary.Decode(raw, binary.LittleEndian, fs) // cannot fail: raw is exactly fs's size
	} else if err := json.Unmarshal(data, &fs); err != nil {
		return err
	}
	*v = make(vector, len(fs))
	for i, f := range fs {
		(*v)[i] = float64(f)
	}
	return nil
}

// Embed implements eval.ChatClient.
func (c *Client) Embed(ctx context.Context, req eval.EmbedRequest) (eval.EmbedResponse, error) {
	if len(req.Texts) == 0 {
		return eval.EmbedResponse{}, nil
	}
	body := embedBody{Input: req.Texts, Model: req.Model, EncodingFormat: "float", Dimensions: req.Dimensions}
	if c.cfg.EmbeddingFormat == "base64" {
		body.EncodingFormat = "base64"
	}
	tokens := 0
	for _, t := range req.Texts {
		tokens += len(t)/4 + 1
	}
	var out eval.EmbedResponse
	err := c.retry(ctx, "embeddings", req.Model, tokens, func(actx context.Context, a *attempt) (int, error) {
		a.maxReply = c.cfg.MaxReplyBytes + EmbedReplyBytesPerText*int64(len(req.Texts))
		a.maxReplyNote = fmt.Sprintf("--max-reply-bytes %d plus %d for each of the %d texts", c.cfg.MaxReplyBytes, EmbedReplyBytesPerText, len(req.Texts))
		start := time.Now()
		var resp embedReply
		if err := c.post(actx, a, "/embeddings", req.Model, body, &resp); err != nil {
			return 0, err
		}
		used := resp.Usage.PromptTokens
		if len(resp.Data) != len(req.Texts) {
			return used, &contentError{status: eval.StatusJudgeError, msg: fmt.Sprintf("the embeddings endpoint returned %d vectors for %d texts", len(resp.Data), len(req.Texts))}
		}
		vecs := make([][]float64, len(req.Texts))
		for i, d := range resp.Data {
			if len(d.Embedding) == 0 || len(d.Embedding) != len(resp.Data[0].Embedding) {
				return used, &contentError{status: eval.StatusJudgeError, msg: "the embeddings endpoint returned empty or differently sized vectors"}
			}
			idx := d.Index
			if idx < 0 || idx >= len(vecs) || vecs[idx] != nil {
				idx = i // servers that omit index: trust the order
			}
			vecs[idx] = d.Embedding
		}
		out = eval.EmbedResponse{Vectors: vecs, Usage: eval.Usage{PromptTokens: resp.Usage.PromptTokens}, LatencyMS: time.Since(start).Milliseconds()}
		return used, nil
	})
	return out, err
}

// contentFiltered is what a call ends with when the server's content
// filter stopped the reply (finish_reason content_filter, or a 400 coded
// content_filter): the sample's text, not the judge, tripped it.
const contentFiltered = "the endpoint's content filter stopped the call (content_filter): the prompt or the reply tripped the server's content policy; not asked again: judge this sample with another endpoint or filter policy"

// contentError is a reply that arrived but cannot be used; it is retried
// like a transport error and ends with its status when retries run out.
type contentError struct {
	status eval.Status
	msg    string
}

func (e *contentError) Error() string { return e.msg }

// undecodable marks a 2xx reply whose body is not the JSON expected (a
// body cut mid-value, text that is not JSON) as a malformed reply. The
// body was read whole before it was decoded, so an unexpected EOF is the
// JSON ending early, not the connection.
func undecodable(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) || errors.As(err, &typ):
		return &contentError{status: eval.StatusParseError, msg: "the reply body is not valid JSON: " + err.Error()}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &contentError{status: eval.StatusParseError, msg: "the reply body is not valid JSON: it ends in the middle of a value"}
	}
	return err
}

// retry runs one call under the endpoint's limiter, with a per-attempt
// timeout, retrying what may succeed later: after a throttle the limiter's
// pause is the wait, otherwise exponential backoff with full jitter. No slot
// is held while waiting. tokens is the call's estimate for --tpm; call
// returns the tokens the reply reported.
func (c *Client) retry(ctx context.Context, task, model string, tokens int, call func(context.Context, *attempt) (int, error)) error {
	for n := 0; ; n++ {
		tk, err := c.lim.acquire(ctx, tokens)
		if err != nil {
			if ctx.Err() != nil {
				return cancelled(task)
			}
			return c.final(task, classify(err, facts{}), n)
		}
		a := &attempt{}
		actx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
		used, err := call(actx, a)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
		cancel()
		if err == nil {
			c.lim.done(tk, used)
			return nil
		}
		if ctx.Err() != nil {
			c.lim.cancelled(tk)
			return cancelled(task)
		}
		f := c.failure(err, a, model, timedOut)
		if f.throttle {
			var tooLong *Failure
			if !f.retry {
				tooLong = f
			}
			c.lim.throttle(tk, f.retryAfter, tooLong)
		} else {
			c.lim.failed(tk, used)
		}
		if !f.retry || n >= c.cfg.MaxRetries {
			return c.final(task, f, n)
		}
		if f.throttle {
			// The wait is the limiter's pause, shared by every call.
			eval.ReportRetry(ctx, task, f, c.lim.state().Paused)
			continue
		}
		wait := c.backoff(n)
		eval.ReportRetry(ctx, task, f, wait)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return cancelled(task)
		}
	}
}

func (c *Client) backoff(n int) time.Duration {
	d := c.cfg.BackoffBase << min(n, 20)
	if d <= 0 || d > c.cfg.BackoffMax {
		d = c.cfg.BackoffMax
	}
	// Full jitter spreads a burst of 429s from many workers.
	return time.Duration(rand.Int64N(int64(d)) + 1)
}

func cancelled(task string) error {
	return &eval.StepError{Status: eval.StatusCancelled, Err: fmt.Errorf("%s: cancelled", task)}
}

// failure classifies an attempt's error, with every text in it redacted.
func (c *Client) failure(err error, a *attempt, model string, timedOut bool) *Failure {
	return classify(err, facts{
		model: model, host: a.host, endpoint: a.endpoint, modelsPath: c.modelsPath, keySet: c.cfg.APIKey != "", keyFrom: c.cfg.KeyFrom,
		timeout: c.cfg.RequestTimeout, timedOut: timedOut, maxRetryAfter: c.cfg.MaxRetryAfter, redact: c.redact,
	})
}

// final turns the last failure into a step error with a status; n is the
// retries made.
func (c *Client) final(task string, f *Failure, n int) error {
	out := *f
	if out.Kind == KindRateLimited && out.Hint == "" {
		tries := "one attempt"
		if n > 0 {
			tries = fmt.Sprintf("%d attempts", n+1)
		}
		out.Hint = fmt.Sprintf("still refused for load after %s: lower --concurrency, or set --rpm/--tpm under the endpoint's limits", tries)
	}
	return &eval.StepError{Status: out.step, Err: fmt.Errorf("%s: %w", task, &out)}
}
