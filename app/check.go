package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/prompts"
)

// checkQuestion is what `ragscope check` asks: tiny, and a reply any judge
// model can give, so that a failure is the endpoint's, not the model's.
const checkQuestion = "Write one question that this answer would answer, as JSON " +
	`{"question": "...", "noncommittal": 0}. Answer: The office opens at 9 am.`

// Check sends one tiny chat call with a task's schema and one embedding
// call to the configured endpoint and says, line by line, whether it is
// reachable, whether the key is accepted, whether json_schema and n work,
// and the embedding dimension, with the flag to use when something does
// not. It returns ExitOK when a run with these settings would work and
// ExitFatal otherwise. Nothing is cached or stored.
func Check(ctx context.Context, cfg *Config, w io.Writer) int {
	if cfg.UseOffline() {
		fmt.Fprintln(w, "judge: offline (lexical): no endpoint to check; set OPENAI_BASE_URL/--base-url or OPENAI_API_KEY")
		return ExitOK
	}
	baseURL := cfg.BaseURL
	if baseURL == "" {
		baseURL = "https://api.openai.com/v1"
	}
	c := *cfg
	c.MaxRetries = min(c.MaxRetries, 1)
	client, err := c.endpoint(baseURL)
	if err != nil {
		fmt.Fprintf(w, "endpoint     %s: %v\n", Redact(baseURL), err)
		return ExitFatal
	}
	ok := true
	line := func(what, verdict string, args ...any) {
		fmt.Fprintf(w, "%-12s %s\n", what, fmt.Sprintf(verdict, args...))
	}
	line("endpoint", "%s, model %s", Redact(baseURL), cfg.Model)

	task := prompts.TaskAnswerRelevancyQuestion
	schema, _ := prompts.Schema(task)
	seed := 1
	req := eval.ChatRequest{
		Endpoint: eval.EndpointOf(baseURL), Model: cfg.Model, Task: task,
		Messages:    []eval.Message{{Role: "user", Content: checkQuestion}},
		Temperature: 0.7, N: 2, Seed: &seed, MaxTokens: 200,
		ResponseFormat: eval.ResponseFormat{Type: "json_schema", Name: task, Schema: schema},
	}
	call := func(format string) (eval.ChatResponse, time.Duration, error) {
		r := req
		if format != "json_schema" {
			r.ResponseFormat = eval.ResponseFormat{Type: format}
		}
		cctx, cancel := context.WithTimeout(ctx, max(cfg.Timeout, 5*time.Second))
		defer cancel()
		start := time.Now()
		resp, err := client.Chat(cctx, r)
		return resp, time.Since(start), err
	}
	resp, took, err := call("json_schema")
	format := "json_schema"
	if err != nil && refusedFormat(err) {
		line("json_schema", "refused: %s", oneLineErr(err))
		for _, f := range []string{"json_object", "text"} {
			if resp, took, err = call(f); err == nil {
				format = f
				line("", "works with --response-format %s: use it (or response_format in the settings file)", f)
				ok = false
				break
			}
		}
	}
	if err != nil {
		line("reachable", "%s", verdictOf(err))
		return ExitFatal
	}
	line("reachable", "yes (%s)", took.Round(time.Millisecond))
	line("authorised", "yes")
	valid := 0
	for _, ch := range resp.Choices {
		if j, err := llm.ExtractJSON(ch); err == nil && prompts.ValidateReply(task, j) == nil {
			valid++
		}
	}
	switch {
	case format == "json_schema" && valid == len(resp.Choices) && valid > 0:
		line("json_schema", "supported: the reply follows the task's schema")
	case format == "json_schema":
		line("json_schema", "accepted, but %d of %d replies do not follow the schema: try --response-format json_object", len(resp.Choices)-valid, len(resp.Choices))
		ok = false
	}
	if len(resp.Choices) >= 2 {
		line("n", "honoured (%d choices for n=2)", len(resp.Choices))
	} else {
		line("n", "not honoured (%d choice for n=2): use --no-n so that each draw is its own request", len(resp.Choices))
		ok = ok && cfg.NoN
	}

	embedURL := baseURL
	if cfg.EmbeddingURL != "" {
		embedURL = cfg.EmbeddingURL
		if client, err = c.endpoint(embedURL); err != nil {
			line("embeddings", "%s: %v", Redact(embedURL), err)
			return ExitFatal
		}
	}
	ectx, cancel := context.WithTimeout(ctx, max(cfg.Timeout, 5*time.Second))
	defer cancel()
	er, err := client.Embed(ectx, eval.EmbedRequest{Endpoint: eval.EndpointOf(embedURL), Model: cfg.EmbeddingModel, Dimensions: cfg.Dimensions,
		Texts: []string{"When does the office open?", "办公室几点开门？"}})
	if err == nil {
		err = eval.CheckVectors(er.Vectors, cfg.Dimensions)
	}
	if err != nil {
		line("embeddings", "%s at %s: %s; answer_relevancy needs them: set --embedding-model, or --embedding-base-url for another endpoint (--metrics without answer_relevancy otherwise)",
			cfg.EmbeddingModel, Redact(embedURL), verdictOf(err))
		return ExitFatal
	}
	line("embeddings", "%s at %s: %d dimensions", cfg.EmbeddingModel, Redact(embedURL), len(er.Vectors[0]))
	if !ok {
		return ExitFatal
	}
	fmt.Fprintln(w, "ready: a run with these settings will work")
	return ExitOK
}

// refusedFormat tells an endpoint that does not take json_schema: a 400
// or 422 that names the response format.
func refusedFormat(err error) bool {
	msg := strings.ToLower(err.Error())
	return (strings.Contains(msg, "400") || strings.Contains(msg, "422")) &&
		(strings.Contains(msg, "response_format") || strings.Contains(msg, "json_schema") || strings.Contains(msg, "schema"))
}

func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// verdictOf is what a failed call says to the user: the hint for an
// unrecoverable failure, the error otherwise.
func verdictOf(err error) string {
	var f *endpoint.Failure
	if errors.As(err, &f) && f.Hint != "" {
		return "no: " + f.Hint
	}
	return "no: " + oneLineErr(err)
}
