// Package check is `ragscope check` (also run by judge add): one call of
// each kind the judge makes, to say whether a run with these settings works.
package check

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/internal/app"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/prompts"
)

// checkAnswer is the answer `ragscope check` asks a question of, with the
// embedded answer_relevancy_question prompt: a run's own request, on a
// reply any judge model can give, so that a failure is the endpoint's.
const checkAnswer = "The office opens at 9 am."

// Run sends one tiny chat call with a task's schema and one embedding call
// and says, line by line, what works: reachability, the key, the response
// format and n (stepping down as a run does), reasoning, the embeddings.
// The profile found is remembered as a run's would be. It returns exit.OK
// when a run with these settings gives exact scores, else exit.Fatal.
func Run(ctx context.Context, cfg *app.Config, w io.Writer) int {
	if cfg.UseOffline() {
		fmt.Fprintln(w, "judge: offline (lexical): no endpoint to check; set OPENAI_BASE_URL/--base-url or OPENAI_API_KEY")
		return exit.OK
	}
	baseURL := cfg.JudgeURL()
	c := *cfg
	c.MaxRetries = min(c.MaxRetries, 1)
	ab := endpoint.NewAbilities(endpoint.EndpointProfile{}, cfg.ResponseFormat)
	client, err := c.Endpoint(baseURL, ab)
	if err != nil {
		fmt.Fprintf(w, "endpoint     %s: %v\n", eval.EndpointOf(baseURL), err)
		return exit.Fatal
	}
	ok := true
	line := func(what, verdict string, args ...any) {
		fmt.Fprintf(w, "%-12s %s\n", what, fmt.Sprintf(verdict, args...))
	}
	line("endpoint", "%s, model %s", eval.EndpointOf(baseURL), cfg.Model)

	task := prompts.TaskAnswerRelevancyQuestion
	schema, _ := prompts.Schema(task)
	seed := 1
	prompt, err := prompts.Embedded().Render(task, "en", prompts.Data{Question: "When does the office open?", Answer: checkAnswer})
	if err != nil {
		fmt.Fprintf(w, "prompt       %v\n", err)
		return exit.Fatal
	}
	req := eval.ChatRequest{
		Endpoint: eval.EndpointOf(baseURL), Model: cfg.Model, Task: task,
		Messages:    []eval.Message{{Role: "user", Content: prompt}},
		Temperature: 0.7, N: 2, Seed: &seed,
	}
	call := func(format, reasoning string) (eval.ChatResponse, time.Duration, error) {
		r := req
		r.Reasoning = reasoning
		r.ResponseFormat = eval.ResponseFormat{Type: format}
		if format == "json_schema" {
			r.ResponseFormat = eval.ResponseFormat{Type: format, Name: task, Schema: schema}
		}
		cctx, cancel := context.WithTimeout(ctx, max(cfg.Timeout, 5*time.Second))
		defer cancel()
		start := time.Now()
		resp, err := client.Chat(cctx, r)
		return resp, time.Since(start), err
	}
	reasoning := cfg.Reasoning
	if reasoning == "auto" {
		reasoning = ""
	}
	format := ab.Format()
	resp, took, err := call(format, reasoning)
	for err != nil && llm.RefusedFormat(err) {
		next, stepped, _ := ab.Downgrade(format, oneLineErr(err))
		if !stepped {
			if cfg.ResponseFormat != "" {
				line(format, "refused: %s; the format is fixed by --response-format: leave it out and a run steps down by itself", oneLineErr(err))
			} else {
				line(format, "refused: %s; no format is left to step down to: the endpoint takes none of json_schema, json_object, text", oneLineErr(err))
			}
			return exit.Fatal
		}
		line(format, "refused: %s", oneLineErr(err))
		format = next
		resp, took, err = call(format, reasoning)
		if err == nil {
			line("", "%s works: a run steps down to it by itself, and remembers it", format)
		}
	}
	if err != nil {
		// Reached, the endpoint may refuse the key or answer what no run
		// can read: saying "reachable no" would send the user to the network.
		var f *endpoint.Failure
		switch st := eval.StatusOf(err); {
		case st == eval.StatusTruncated || st == eval.StatusParseError:
			line("reachable", "yes")
			line("reply", "%s", oneLineErr(err))
		case errors.As(err, &f) && (f.Status == 401 || f.Status == 403):
			line("reachable", "yes (HTTP %d)", f.Status)
			line("authorised", "%s", verdictOf(err))
		case errors.As(err, &f) && f.Status != 0:
			line("reachable", "yes, but it answered HTTP %d", f.Status)
			line("reply", "%s", verdictOf(err))
		default:
			line("reachable", "%s", verdictOf(err))
		}
		return exit.Fatal
	}
	line("reachable", "yes (%s)", took.Round(time.Millisecond))
	line("authorised", "yes")
	valid := 0
	for _, ch := range resp.Choices {
		if llm.ReadsQuestionReply(ch) == nil {
			valid++
		}
	}
	if valid == len(resp.Choices) && valid > 0 {
		line("replies", "follow the task's schema (%s)", format)
	} else {
		line("replies", "%d of %d do not follow the task's schema, even with reasoning removed and the JSON repaired: scores would be parse errors; try another --response-format or model", len(resp.Choices)-valid, len(resp.Choices))
		ok = false
	}
	if len(resp.Choices) >= 2 {
		line("n", "honoured (%d choices for n=2)", len(resp.Choices))
	} else {
		ab.IgnoredN()
		line("n", "not honoured (%d choice for n=2): a run sends the draws one by one by itself", len(resp.Choices))
	}
	checkReasoning(resp, reasoning, ab, func(r string) (eval.ChatResponse, error) {
		resp, _, err := call(format, r)
		return resp, err
	}, line)
	if n := ab.Profile().Notice(); n != "" {
		line("profile", "%s", n)
	} else {
		line("profile", "json_schema, n honoured, no reasoning")
	}
	if err := app.RememberEndpoint(cfg.DB, baseURL, cfg.Model, ab.ToRemember()); err != nil {
		line("", "could not remember the profile: %v", err)
	}

	embedURL := baseURL
	if cfg.EmbeddingURL != "" {
		embedURL = cfg.EmbeddingURL
		if client, err = c.Endpoint(embedURL, nil); err != nil {
			line("embeddings", "%s: %v", eval.EndpointOf(embedURL), err)
			return exit.Fatal
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
			cfg.EmbeddingModel, eval.EndpointOf(embedURL), verdictOf(err))
		return exit.Fatal
	}
	line("embeddings", "%s at %s: %d dimensions", cfg.EmbeddingModel, eval.EndpointOf(embedURL), len(er.Vectors[0]))
	if !ok {
		return exit.Fatal
	}
	fmt.Fprintln(w, "ready: a run with these settings will work")
	return exit.OK
}

// checkReasoning says whether the model reasons and how much of its reply
// is reasoning, and, when it does, whether --reasoning off turns it off and
// with which switch. Reasoning is removed before parsing either way, so it
// never makes a setup not ready.
func checkReasoning(resp eval.ChatResponse, mode string, ab *endpoint.Abilities, call func(reasoning string) (eval.ChatResponse, error), line func(string, string, ...any)) {
	share := func(r eval.ChatResponse) (chars, total int) {
		for i, c := range r.Choices {
			total += len(c)
			if i < len(r.Reasoning) {
				chars += len(r.Reasoning[i])
				total += len(r.Reasoning[i])
			}
		}
		return
	}
	rc, total := share(resp)
	if rc == 0 {
		if mode == "off" {
			line("reasoning", "none in the reply (--reasoning off)")
		} else {
			line("reasoning", "none: the model answers without thinking")
		}
		return
	}
	tokens := ""
	if u := resp.Usage; u.ReasoningTokens > 0 {
		tokens = fmt.Sprintf(", %d of %d completion tokens", u.ReasoningTokens, u.CompletionTokens)
	}
	line("reasoning", "yes: %d%% of the reply is reasoning%s; kept apart from the answer (shown with each verdict), never parsed", 100*rc/max(total, 1), tokens)
	if mode == "off" {
		line("", "--reasoning off had no effect on this server: the reasoning is still removed before parsing, and costs tokens")
		return
	}
	off, err := call("off")
	if err != nil {
		line("", "--reasoning off: %s", oneLineErr(err))
		return
	}
	sent := slices.DeleteFunc(slices.Clone(endpoint.ReasoningSwitches), ab.Refused)
	refused := listOrNone(ab.Profile().RefusedFields())
	if rc2, _ := share(off); rc2 == 0 {
		line("", "--reasoning off works (switches sent: %s; refused: %s): cheaper and faster judging", strings.Join(sent, ", "), refused)
	} else {
		line("", "--reasoning off has no effect on this server (refused: %s)", refused)
	}
}

func listOrNone(s []string) string { return cmp.Or(strings.Join(s, ", "), "none") }

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
