package llm_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/prompts"
)

// brain scripts a fake judge: replies are chosen by finding the sample's
// marker text in the rendered prompt, so tests do not depend on template
// wording.
type brain struct {
	mu sync.Mutex
	// statements: answer -> statements the judge extracts.
	statements map[string][]string
	// verdicts: first statement -> verdict per statement (len may differ to
	// test the count check); verdictsRetry is the reply to the re-ask.
	verdicts      map[string][]int
	verdictsRetry map[string][]int
	// questions: answer -> noncommittal flag per draw; the question text is
	// "Q<i> about <answer>".
	questions map[string][]int
	// chunks: chunk text -> verdict.
	chunks map[string]int
	// used: chunk text -> context utilization's verdict; the prompt must
	// show the answer and not the reference.
	used map[string]int
	// recall: reference -> attribution per statement (statements are the
	// reference split on "; ").
	recall map[string][]int
	// fence wraps every reply in a Markdown code fence with prose.
	fence bool
	// ignoreN answers one choice whatever n asked (endpoints without n).
	ignoreN bool
	// override, when it returns ok, answers instead of the script.
	override func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool)

	calls map[string]int // task -> count, for override's nth
}

func newBrain() *brain {
	return &brain{
		statements: map[string][]string{}, verdicts: map[string][]int{}, verdictsRetry: map[string][]int{},
		questions: map[string][]int{}, chunks: map[string]int{}, used: map[string]int{}, recall: map[string][]int{}, calls: map[string]int{},
	}
}

// find returns the longest key of m that occurs in the prompt.
func find[V any](m map[string]V, prompt string) (string, V, bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		if strings.Contains(prompt, k) {
			return k, m[k], true
		}
	}
	var zero V
	return "", zero, false
}

func (b *brain) reply(r *fakejudge.Request) fakejudge.Reply {
	b.mu.Lock()
	b.calls[r.Task]++
	nth := b.calls[r.Task]
	b.mu.Unlock()
	if b.override != nil {
		if rep, ok := b.override(r, nth); ok {
			return rep
		}
	}
	// The re-ask of a verdict count mismatch is the conversation's last user message.
	prompt := r.Messages[0].Content
	task := r.Task
	if task == "" {
		task = b.guessTask(prompt)
	}
	var body string
	switch task {
	case "faithfulness_statements":
		_, st, ok := find(b.statements, prompt)
		if !ok {
			return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"brain: unknown answer"}}`}
		}
		body = fakejudge.JSON(map[string]any{"statements": st})
	case "faithfulness_verdicts":
		first, vs, ok := find(b.verdicts, prompt)
		if !ok {
			return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"brain: unknown statements"}}`}
		}
		if len(r.Messages) > 1 {
			if again, ok := b.verdictsRetry[first]; ok {
				vs = again
			}
		}
		items := make([]map[string]any, len(vs))
		for i, v := range vs {
			items[i] = map[string]any{"statement": fmt.Sprintf("statement %d", i+1), "reason": fmt.Sprintf("reason %d", i+1), "verdict": v}
		}
		body = fakejudge.JSON(map[string]any{"statements": items})
	case "answer_relevancy_question":
		ans, flags, ok := find(b.questions, prompt)
		if !ok {
			return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"brain: unknown answer"}}`}
		}
		n := max(r.N, 1)
		if b.ignoreN {
			n = 1
		}
		draw := 0
		if r.Seed != nil {
			draw = *r.Seed - 1
		}
		var choices []string
		for i := 0; i < n; i++ {
			k := (draw + i) % len(flags)
			choices = append(choices, b.wrap(fakejudge.JSON(map[string]any{"question": fmt.Sprintf("Q%d about %s", draw+i, ans), "noncommittal": flags[k]})))
		}
		return fakejudge.Reply{Choices: choices}
	case "context_precision_verdict":
		_, v, ok := find(b.chunks, prompt)
		if !ok {
			return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"brain: unknown chunk"}}`}
		}
		body = fakejudge.JSON(map[string]any{"reason": "chunk reason", "verdict": v})
	case "context_utilization_verdict":
		_, v, ok := find(b.used, prompt)
		if !ok || !strings.Contains(prompt, "<answer>") || strings.Contains(prompt, "<reference>") {
			return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"brain: unknown chunk, or not judged against the answer"}}`}
		}
		body = fakejudge.JSON(map[string]any{"reason": "used reason", "verdict": v})
	case "context_recall_classifications":
		ref, vs, ok := find(b.recall, prompt)
		if !ok {
			return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"brain: unknown reference"}}`}
		}
		parts := strings.Split(ref, "; ")
		items := make([]map[string]any, len(vs))
		for i, v := range vs {
			items[i] = map[string]any{"statement": parts[i%len(parts)], "reason": "recall reason", "attributed": v}
		}
		body = fakejudge.JSON(map[string]any{"classifications": items})
	default:
		return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"brain: unknown task"}}`}
	}
	return fakejudge.Reply{Choices: []string{b.wrap(body)}}
}

// guessTask serves the json_object and text formats, whose requests carry
// no schema name: a verdicts prompt lists numbered statements we scripted.
func (b *brain) guessTask(prompt string) string {
	if _, _, ok := find(b.verdicts, prompt); ok {
		return "faithfulness_verdicts"
	}
	return "faithfulness_statements"
}

func (b *brain) wrap(body string) string {
	if !b.fence {
		return body
	}
	return "Sure! Here is my judgement:\n```json\n" + body + "\n```\nLet me know if you need more."
}

// stack is a judge wired to a fake server the way the CLI wires it.
type stack struct {
	srv    *fakejudge.Server
	client *endpoint.Client
	judge  *llm.Judge
}

type stackOpt struct {
	responseFormat string
	timeout        time.Duration
	maxRetries     int
	concurrency    int
	noN            bool
	apiKey         string
	embedFormat    string
}

func newStack(t testing.TB, b *brain, o stackOpt) *stack {
	t.Helper()
	srv := fakejudge.New(b.reply)
	t.Cleanup(srv.Close)
	if o.timeout == 0 {
		o.timeout = 5 * time.Second
	}
	if o.maxRetries == 0 {
		o.maxRetries = 3
	}
	if o.maxRetries < 0 {
		o.maxRetries = 0
	}
	client, err := endpoint.New(endpoint.Config{
		BaseURL: srv.BaseURL(), APIKey: o.apiKey, Concurrency: max(o.concurrency, 4), RequestTimeout: o.timeout,
		MaxRetries: o.maxRetries, BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond, EmbeddingFormat: o.embedFormat,
	})
	if err != nil {
		t.Fatal(err)
	}
	j := llm.New(llm.Config{
		BaseURL: srv.BaseURL(), Model: "judge-model", EmbeddingModel: "embed-model", ResponseFormat: o.responseFormat,
		QuestionTemperature: 0.7, NoN: o.noN, Lang: eval.LangEN,
	}, eval.Instrument(client), prompts.Embedded())
	return &stack{srv: srv, client: client, judge: j}
}

func (s *stack) run(t testing.TB, ctx context.Context, metrics []eval.Metric, samples ...eval.Sample) []*eval.Result {
	t.Helper()
	for i := range samples {
		samples[i].Index = i
	}
	r := &eval.Runner{Judge: s.judge, Config: eval.RunnerConfig{Metrics: metrics, Workers: 4}}
	return r.Run(ctx, samples)
}

func score(t testing.TB, r *eval.Result, m eval.Metric) float64 {
	t.Helper()
	v, ok := r.Score(m)
	if !ok {
		t.Fatalf("%s: no score, status %s: %s", m, r.Status[m], r.Errors[m])
	}
	return v
}

func near(a, b float64) bool { d := a - b; return d < 1e-9 && d > -1e-9 }
