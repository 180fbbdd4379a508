// Package endpoint is the client of OpenAI-compatible endpoints (OpenAI,
// Azure, Ollama, vLLM, llama.cpp, DeepSeek) over go-openai, with the retries,
// timeouts and request-level concurrency limit that go-openai does not have.
package endpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/ragscope/ragscope/eval"
)

// Config configures the client.
type Config struct {
	BaseURL string
	APIKey  string
	// APIType is "openai" (default) or "azure"; Azure also needs APIVersion
	// and uses the model name as the deployment name.
	APIType    string
	APIVersion string
	// Concurrency bounds the requests in flight (default 16).
	Concurrency int
	// RequestTimeout bounds one attempt (default 60s).
	RequestTimeout time.Duration
	// MaxRetries is the number of retries after the first attempt (default 6).
	MaxRetries int
	// BackoffBase and BackoffMax shape exponential backoff with full jitter
	// (defaults 500ms and 30s). A Retry-After from the server wins, capped
	// at MaxRetryAfter (default 2m).
	BackoffBase, BackoffMax, MaxRetryAfter time.Duration
	// EmbeddingFormat is "float" (default) or "base64".
	EmbeddingFormat string
	// HTTPClient overrides the base HTTP client (tests).
	HTTPClient *http.Client
}

// Client implements eval.ChatClient.
type Client struct {
	cfg Config
	oa  *openai.Client
	sem chan struct{}
}

// New returns a client for the endpoint.
func New(cfg Config) (*Client, error) {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 16
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 60 * time.Second
	}
	if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.BackoffBase <= 0 {
		cfg.BackoffBase = 500 * time.Millisecond
	}
	if cfg.BackoffMax <= 0 {
		cfg.BackoffMax = 30 * time.Second
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = 2 * time.Minute
	}
	var oc openai.ClientConfig
	switch cfg.APIType {
	case "", "openai":
		oc = openai.DefaultConfig(cfg.APIKey)
	case "azure":
		if cfg.BaseURL == "" {
			return nil, errors.New("--api-type azure needs --base-url (https://RESOURCE.openai.azure.com)")
		}
		oc = openai.DefaultAzureConfig(cfg.APIKey, cfg.BaseURL)
		if cfg.APIVersion != "" {
			oc.APIVersion = cfg.APIVersion
		}
	default:
		return nil, fmt.Errorf("--api-type: %q is not one of openai, azure", cfg.APIType)
	}
	if cfg.BaseURL != "" {
		oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	base := http.DefaultTransport
	if cfg.HTTPClient != nil && cfg.HTTPClient.Transport != nil {
		base = cfg.HTTPClient.Transport
	}
	// No client-wide timeout: each attempt has its own context deadline.
	oc.HTTPClient = &http.Client{Transport: transport{base: base}}
	return &Client{cfg: cfg, oa: openai.NewClientWithConfig(oc), sem: make(chan struct{}, cfg.Concurrency)}, nil
}

// InFlight is the number of requests on the wire now.
func (c *Client) InFlight() int { return len(c.sem) }

// Chat implements eval.ChatClient.
func (c *Client) Chat(ctx context.Context, req eval.ChatRequest) (eval.ChatResponse, error) {
	oreq := openai.ChatCompletionRequest{
		Model:       req.Model,
		Temperature: req.Temperature,
		TopP:        req.TopP,
		N:           req.N,
		Seed:        req.Seed,
		MaxTokens:   req.MaxTokens,
	}
	for _, m := range req.Messages {
		oreq.Messages = append(oreq.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	switch req.ResponseFormat.Type {
	case "json_schema":
		oreq.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name: req.ResponseFormat.Name, Schema: req.ResponseFormat.Schema, Strict: true,
			},
		}
	case "json_object":
		oreq.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	var out eval.ChatResponse
	err := c.retry(ctx, req.Task, func(actx context.Context, a *attempt) error {
		temp := req.Temperature
		a.temperature = &temp
		start := time.Now()
		resp, err := c.oa.CreateChatCompletion(actx, oreq)
		if err != nil {
			return undecodable(err)
		}
		out = eval.ChatResponse{
			Usage:     eval.Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens},
			LatencyMS: time.Since(start).Milliseconds(),
		}
		sort.SliceStable(resp.Choices, func(i, j int) bool { return resp.Choices[i].Index < resp.Choices[j].Index })
		for _, ch := range resp.Choices {
			if ch.FinishReason == openai.FinishReasonLength {
				return &contentError{status: eval.StatusParseError, msg: "the reply was cut off at the token limit (finish_reason length)"}
			}
			if req.Validate != nil {
				if verr := req.Validate(ch.Message.Content); verr != nil {
					return &contentError{status: eval.StatusParseError, msg: "malformed reply: " + verr.Error()}
				}
			}
			out.Choices = append(out.Choices, ch.Message.Content)
			out.FinishReasons = append(out.FinishReasons, string(ch.FinishReason))
		}
		if len(out.Choices) == 0 {
			return &contentError{status: eval.StatusParseError, msg: "the reply has no choices"}
		}
		return nil
	})
	return out, err
}

// Embed implements eval.ChatClient.
func (c *Client) Embed(ctx context.Context, req eval.EmbedRequest) (eval.EmbedResponse, error) {
	if len(req.Texts) == 0 {
		return eval.EmbedResponse{}, nil
	}
	format := openai.EmbeddingEncodingFormatFloat
	if c.cfg.EmbeddingFormat == "base64" {
		format = openai.EmbeddingEncodingFormatBase64
	}
	var out eval.EmbedResponse
	err := c.retry(ctx, "embeddings", func(actx context.Context, a *attempt) error {
		a.floats = format == openai.EmbeddingEncodingFormatFloat
		start := time.Now()
		resp, err := c.oa.CreateEmbeddings(actx, openai.EmbeddingRequestStrings{
			Input: req.Texts, Model: openai.EmbeddingModel(req.Model), EncodingFormat: format, Dimensions: req.Dimensions,
		})
		if err != nil {
			return undecodable(err)
		}
		if len(resp.Data) != len(req.Texts) {
			return &contentError{status: eval.StatusJudgeError, msg: fmt.Sprintf("the embeddings endpoint returned %d vectors for %d texts", len(resp.Data), len(req.Texts))}
		}
		vecs := make([][]float64, len(req.Texts))
		dims := -1
		for i, d := range resp.Data {
			idx := d.Index
			if idx < 0 || idx >= len(vecs) || vecs[idx] != nil {
				idx = i // servers that omit index: trust the order
			}
			v := make([]float64, len(d.Embedding))
			for k, f := range d.Embedding {
				v[k] = float64(f)
			}
			if len(v) == 0 || (dims >= 0 && len(v) != dims) {
				return &contentError{status: eval.StatusJudgeError, msg: "the embeddings endpoint returned empty or differently sized vectors"}
			}
			dims = len(v)
			vecs[idx] = v
		}
		out = eval.EmbedResponse{Vectors: vecs, Usage: eval.Usage{PromptTokens: resp.Usage.PromptTokens}, LatencyMS: time.Since(start).Milliseconds()}
		return nil
	})
	return out, err
}

// contentError is a reply that arrived but cannot be used; it is retried
// like a transport error and ends with its status when retries run out.
type contentError struct {
	status eval.Status
	msg    string
}

func (e *contentError) Error() string { return e.msg }

// undecodable marks a 200 reply whose body is not the JSON go-openai
// expects (a proxy's HTML page, a body cut mid-stream) as a malformed reply.
func undecodable(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return &contentError{status: eval.StatusParseError, msg: "the reply body is not valid JSON: " + err.Error()}
	}
	return err
}

// retry runs one call with the concurrency limit, a per-attempt timeout, and
// exponential backoff with full jitter on retryable failures, honouring
// Retry-After. The concurrency slot is released while waiting.
func (c *Client) retry(ctx context.Context, task string, call func(context.Context, *attempt) error) error {
	var last error
	for n := 0; ; n++ {
		select {
		case c.sem <- struct{}{}:
		case <-ctx.Done():
			return c.final(ctx, task, last, ctx.Err())
		}
		a := &attempt{}
		actx, cancel := context.WithTimeout(withAttempt(ctx, a), c.cfg.RequestTimeout)
		err := call(actx, a)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
		cancel()
		<-c.sem
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return c.final(ctx, task, last, ctx.Err())
		}
		if timedOut {
			err = fmt.Errorf("no reply within %s (--request-timeout)", c.cfg.RequestTimeout)
		}
		last = err
		if !retryable(err, timedOut) || n >= c.cfg.MaxRetries {
			return c.final(ctx, task, last, nil)
		}
		wait := c.backoff(n)
		if a.retryAfter > 0 {
			wait = min(a.retryAfter, c.cfg.MaxRetryAfter)
		}
		eval.ReportRetry(ctx, task, errors.New(c.redact(err.Error())), wait)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return c.final(ctx, task, last, ctx.Err())
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

// final turns the last error into a step error with a status and a message
// that never contains the API key.
func (c *Client) final(ctx context.Context, task string, last, cancelErr error) error {
	if cancelErr != nil {
		return &eval.StepError{Status: eval.StatusCancelled, Err: fmt.Errorf("%s: cancelled", task)}
	}
	msg := c.redact(describe(last))
	var ce *contentError
	if errors.As(last, &ce) {
		return &eval.StepError{Status: ce.status, Err: fmt.Errorf("%s: %s", task, msg)}
	}
	return &eval.StepError{Status: eval.StatusJudgeError, Err: fmt.Errorf("%s: %s", task, msg)}
}

func (c *Client) redact(s string) string {
	if c.cfg.APIKey != "" {
		s = strings.ReplaceAll(s, c.cfg.APIKey, "***")
	}
	return s
}

func describe(err error) string {
	var api *openai.APIError
	var req *openai.RequestError
	switch {
	case errors.As(err, &api):
		return fmt.Sprintf("HTTP %d: %s", api.HTTPStatusCode, api.Message)
	case errors.As(err, &req):
		body := strings.TrimSpace(string(req.Body))
		if len(body) > 200 {
			body = body[:200] + "..."
		}
		if body != "" {
			return fmt.Sprintf("HTTP %d: %s", req.HTTPStatusCode, body)
		}
		return fmt.Sprintf("HTTP %d: %v", req.HTTPStatusCode, req.Err)
	}
	return err.Error()
}

// retryable: 408, 409, 429 and 5xx, timeouts, connection errors, and
// malformed or truncated replies. Other 4xx (bad request, auth, unknown
// model) will not get better by asking again.
func retryable(err error, timedOut bool) bool {
	if timedOut {
		return true
	}
	var ce *contentError
	if errors.As(err, &ce) {
		return ce.status == eval.StatusParseError
	}
	code := 0
	var api *openai.APIError
	var req *openai.RequestError
	switch {
	case errors.As(err, &api):
		code = api.HTTPStatusCode
	case errors.As(err, &req):
		code = req.HTTPStatusCode
	}
	if code != 0 {
		return code == 408 || code == 409 || code == 429 || code >= 500
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) || strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "connection refused")
}
