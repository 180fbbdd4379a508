// Package estimate says what a run will cost before it starts: the real
// runner drives the real judge over the cache in dry-run mode, and every
// miss reaches a planner instead of the network, which counts it and answers
// with a valid placeholder so the run takes the path a real one takes.
package estimate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/cost"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/prompts"
)

// Config is what the estimate needs of a run's settings.
type Config struct {
	// Judge builds the run's LLM judge over another client (llm.Judge.With);
	// nil for the offline judge, which makes no paid call.
	Judge          func(eval.ChatClient) eval.Judge
	Model          string // the chat model priced and counted
	EmbeddingModel string
	Metrics        []eval.Metric
	// Criteria are the team's own criteria the run scores beside Metrics
	// (nil: none); those the LLM judges are planned and priced under their
	// names, the exact checks cost nothing.
	Criteria   *criteria.Set
	Strictness int
	ACWeights  [2]float64 // answer correctness's; zero is the default
	// FCMode and NSMode are factual correctness's and noise sensitivity's
	// modes ("" the defaults): precision mode plans no reference claims.
	FCMode, NSMode string
	// Store is the run's cache; nil with --no-cache (every call is sent,
	// repeats too). CacheOnly: the run sends nothing; misses are cache_miss.
	Store     cache.Store
	CacheOnly bool
	// Done gives the results a resumed run will not evaluate again.
	Done func(index int) *eval.Result
	// Prices prices the tokens; PricesPath is the prices.json named in
	// the hint for a model without a price.
	Prices     cost.Table
	PricesPath string
	// Prompts are the hashes of the prompts in use (task.lang -> sha256):
	// past runs with the same ones tell how long the replies are.
	Prompts map[string]string
	// Workers evaluates this many samples at once (default: 4 per CPU;
	// the planner is CPU-bound).
	Workers int
	// ReasoningShare is the share of a reply's completion tokens the judge
	// model spends reasoning, as earlier runs of the endpoint measured it
	// (endpoint.EndpointProfile); a default guess, which is the JSON alone,
	// is grown by it. 0: the model does not reason, or nothing is known.
	ReasoningShare float64
	// OneChoice: the endpoint is known to answer one choice whatever n
	// asks (endpoint.Abilities), so the judge draws the rest one by one.
	OneChoice bool
}

// Calls counts calls sent.
type Calls struct {
	Chat       int `json:"chat"`
	Embeddings int `json:"embeddings"`
}

// Tokens counts tokens.
type Tokens struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
}

// Metric is the estimate of one metric's calls.
type Metric struct {
	Calls     Calls    `json:"calls"`
	Tokens    Tokens   `json:"tokens"`
	CostUSD   *float64 `json:"cost_usd"` // null when a model it calls has no price
	CacheHits int      `json:"cache_hits"`
}

// Estimate is what a run will cost. Its JSON form is a public contract.
type Estimate struct {
	Calls     Calls                  `json:"calls"`
	Tokens    Tokens                 `json:"tokens"`
	CostUSD   *float64               `json:"cost_usd"`
	ByMetric  map[eval.Metric]Metric `json:"by_metric"`
	CacheHits int                    `json:"cache_hits"`
	Samples   int                    `json:"samples"`
	Judge     string                 `json:"judge"` // "llm" or "offline"
	Model     string                 `json:"model,omitempty"`
	Embedding string                 `json:"embedding_model,omitempty"`
	// Tokenizer says how prompt tokens were counted, per model: a real
	// tokenizer, or "estimated (...)".
	Tokenizer map[string]string `json:"tokenizer,omitempty"`
	// Completion says where each task's completion tokens come from:
	// "history (N replies)" or "default guess".
	Completion map[string]string `json:"completion,omitempty"`
	Prices     PriceInfo         `json:"prices"`
	Notes      []string          `json:"notes"`

	// order is the metrics then criteria in the run's order, for the table.
	order []eval.Metric
}

// PriceInfo says which price table priced the estimate.
type PriceInfo struct {
	Source string `json:"source"`
	Date   string `json:"date,omitempty"`
	// Per model: USD per million prompt and completion tokens; absent
	// for a model without a price.
	Models map[string]cost.Price `json:"models,omitempty"`
}

// Notes of every estimate of an LLM judge.
const (
	NoteRetries = "retries (429, 5xx, timeouts, malformed replies) and the verdict recount (a judge that returns the wrong number of verdicts is asked once more) are not predicted: each adds a call"
	NoteNoStmts = "a judge that extracts no statement from an answer skips its verdict call; the estimate plans one for every answer with text"
	NoteOffline = "the offline judge makes no paid calls"
)

// Run estimates the run of total samples from src.
func Run(ctx context.Context, cfg Config, src eval.Source, total int) (*Estimate, error) {
	metrics := cfg.Metrics
	if len(metrics) == 0 && len(cfg.Criteria.Names()) == 0 {
		metrics = eval.DefaultMetrics
	}
	// The criteria are billed under their names after the metrics, as a
	// run reports them.
	scored := eval.Scored(metrics, cfg.Criteria.Names())
	est := &Estimate{Samples: total, ByMetric: map[eval.Metric]Metric{}, Notes: []string{}, order: scored,
		Prices: PriceInfo{Source: cfg.Prices.Source, Date: cfg.Prices.Date}}
	for _, m := range scored {
		est.ByMetric[m] = Metric{CostUSD: new(float64)}
	}
	est.CostUSD = new(float64)
	if cfg.Judge == nil {
		est.Judge = "offline"
		est.Notes = append(est.Notes, NoteOffline)
		return est, nil
	}
	est.Judge, est.Model, est.Embedding = "llm", cfg.Model, cfg.EmbeddingModel

	p := newPlanner(cfg.Model, cfg.EmbeddingModel)
	p.oneChoice = cfg.OneChoice
	var inner eval.ChatClient = p
	if cfg.Store != nil {
		mode := cache.DryRun
		if cfg.CacheOnly {
			mode = cache.CacheOnly
		}
		inner = cache.NewClient(cfg.Store, p, mode)
	}
	tp := &tap{inner: inner, tasks: map[string]observed{}}
	workers := cfg.Workers
	if workers <= 0 {
		workers = 4 * runtime.GOMAXPROCS(0)
	}
	var failMu sync.Mutex
	failed, firstErr := 0, "" // metric results that failed, and the first's error
	r := &eval.Runner{
		Judge:  planJudge{cfg.Judge(eval.Instrument(tp))},
		Config: eval.RunnerConfig{Metrics: metrics, Criteria: cfg.Criteria, Strictness: cfg.Strictness, ACWeights: cfg.ACWeights, FCMode: cfg.FCMode, NSMode: cfg.NSMode, Workers: workers},
		Done:   cfg.Done,
		OnResults: func(rs []*eval.Result) error {
			// A metric that fails in the dry run (not a cache_miss of
			// --cache-only) means the plan stopped short: say so rather
			// than print a number too low.
			failMu.Lock()
			defer failMu.Unlock()
			for _, res := range rs {
				for m, st := range res.Status {
					if st.Failed() && st != eval.StatusCacheMiss {
						failed++
						firstErr = cmp.Or(firstErr, fmt.Sprintf("sample %d %s: %s", res.Index, m, res.Errors[m]))
					}
				}
			}
			return nil
		},
	}
	r.Stream(ctx, src, total)
	if err := cmp.Or(r.Err(), ctx.Err()); err != nil {
		return nil, err
	}

	hist := tp.tasks // the run has ended: nothing writes to the tap any more
	if cfg.Store != nil {
		past, err := FromRuns(cfg.Store, cfg.Model, cfg.Prompts, 3, 200)
		if err != nil {
			return nil, fmt.Errorf("reading past runs for the completion estimate: %w", err)
		}
		// The dry run's hits are replies to the very prompts the run will
		// send, and past runs hold those same replies again: past runs
		// speak only for tasks the cache had nothing of.
		for task, o := range past {
			if hist[task].replies == 0 {
				hist[task] = o
			}
		}
	}

	est.Prices.Models = map[string]cost.Price{}
	for _, model := range []string{cfg.Model, cfg.EmbeddingModel} {
		if p, ok := cfg.Prices.Lookup(model); ok {
			est.Prices.Models[model] = p
		}
	}
	est.Completion = map[string]string{}
	unpriced := map[string]bool{}
	// Calls, hits and prompt tokens are the run's own accounting (each call
	// billed to the metric whose step made it, as a run bills them); a
	// task's completion tokens, known per task, are shared among the
	// metrics that sent its calls in proportion to their calls.
	for m, mu := range r.Usage() {
		me, ok := est.ByMetric[m]
		if !ok {
			continue // a task of no metric of the run: none today
		}
		for name, tu := range mu.Tasks {
			// A task's calls are all chat or all embeddings: the runner
			// counts them by the task.
			me.Calls.Chat += tu.Chat
			me.Calls.Embeddings += tu.Embeddings
			me.CacheHits += tu.CacheHits
			u := eval.Usage{PromptTokens: tu.PromptTokens}
			model := cfg.Model
			if name == eval.TaskEmbeddings {
				model = cfg.EmbeddingModel
			} else {
				t := p.task(name)
				share := 0.0
				if all := t.calls.Load(); all > 0 {
					share = float64(tu.Chat) / float64(all)
				}
				switch h := hist[name]; {
				case tu.Chat == 0:
				case h.replies > 0:
					u.CompletionTokens = int(float64(h.tokens)/float64(h.replies)*float64(t.choices.Load())*share + 0.5)
					est.Completion[name] = fmt.Sprintf("history (%d replies)", h.replies)
				case cfg.ReasoningShare > 0:
					// The guess is the reply's JSON; a reasoning model
					// writes its thinking before it.
					rs := min(cfg.ReasoningShare, 0.95)
					u.CompletionTokens = int(float64(t.guess.Load())*share/(1-rs) + 0.5)
					est.Completion[name] = fmt.Sprintf("default guess, with %.0f%% reasoning as earlier runs of the endpoint measured", 100*rs)
				default:
					u.CompletionTokens = int(float64(t.guess.Load())*share + 0.5)
					est.Completion[name] = "default guess"
				}
			}
			me.Tokens.Prompt += u.PromptTokens
			me.Tokens.Completion += u.CompletionTokens
			price, ok := est.Prices.Models[model]
			switch {
			case u.PromptTokens+u.CompletionTokens == 0:
			case !ok:
				me.CostUSD = nil
				unpriced[model] = true
			case me.CostUSD != nil:
				*me.CostUSD += price.Of(u) // each metric's own, from Run's start
			}
		}
		est.ByMetric[m] = me
	}
	for _, m := range scored {
		me := est.ByMetric[m]
		est.Calls.Chat += me.Calls.Chat
		est.Calls.Embeddings += me.Calls.Embeddings
		est.Tokens.Prompt += me.Tokens.Prompt
		est.Tokens.Completion += me.Tokens.Completion
		est.CacheHits += me.CacheHits
		if me.CostUSD == nil {
			est.CostUSD = nil
		} else if est.CostUSD != nil {
			*est.CostUSD += *me.CostUSD
		}
	}
	// Sums of prices carry float noise; a billionth of a dollar is below
	// any price.
	for _, me := range est.ByMetric {
		round(me.CostUSD)
	}
	round(est.CostUSD)
	est.Tokenizer = map[string]string{cfg.Model: p.chat.Label()}
	if slices.Contains(metrics, eval.AnswerRelevancy) {
		est.Tokenizer[cfg.EmbeddingModel] = p.embed.Label()
	}

	if cfg.CacheOnly {
		if n := tp.misses; n > 0 {
			est.Notes = append(est.Notes, fmt.Sprintf("--cache-only: nothing is sent; %d call(s) are not cached and will end as cache_miss (more may follow them once they are cached)", n))
		} else {
			est.Notes = append(est.Notes, "--cache-only: nothing is sent; the cache answers every call")
		}
	}
	if cfg.Store == nil {
		est.Notes = append(est.Notes, "--no-cache: every call is sent, a repeated one too")
	}
	for _, model := range slices.Sorted(maps.Keys(unpriced)) {
		path := cmp.Or(cfg.PricesPath, "prices.json in the config directory")
		est.Notes = append(est.Notes, fmt.Sprintf(`no price for model %q: add it to %s as {"models": {%q: {"prompt": USD_PER_1M_TOKENS, "completion": USD_PER_1M_TOKENS}}} (or pass --prices FILE)`, model, path, model))
	}
	for _, label := range slices.Sorted(maps.Values(est.Tokenizer)) {
		if strings.HasPrefix(label, "estimated") {
			est.Notes = append(est.Notes, "prompt tokens "+label+": about 4 bytes or one CJK character per token")
			break
		}
	}
	est.Notes = append(est.Notes, NoteRetries, NoteNoStmts)
	if failed > 0 {
		est.Notes = append(est.Notes, fmt.Sprintf("the plan of %d metric result(s) stopped short, so the estimate is too low: %s", failed, firstErr))
	}
	return est, nil
}

func round(c *float64) {
	if c != nil {
		*c = math.Round(*c*1e9) / 1e9
	}
}

// Over says whether the estimate exceeds budget dollars; an estimate that
// cannot be priced (a model without a price, with calls to make) exceeds
// every budget, since nothing says it does not.
func (e *Estimate) Over(budget float64) bool {
	if e.CostUSD == nil {
		return e.Calls.Chat+e.Calls.Embeddings > 0
	}
	return *e.CostUSD > budget
}

// tap sits above the cache and counts the --cache-only misses, and the
// usage of the replies the cache served: they are replies to exactly the
// prompts the run will send, the best history of how long the judge
// writes. (Calls and hits per metric are the runner's own accounting.)
type tap struct {
	inner  eval.ChatClient
	mu     sync.Mutex
	misses int // cache_miss errors of --cache-only
	tasks  map[string]observed
}

type observed struct {
	replies, tokens int // choices with a known completion length, and their tokens
}

func (t *tap) Chat(ctx context.Context, req eval.ChatRequest) (eval.ChatResponse, error) {
	resp, err := t.inner.Chat(ctx, req)
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case errors.Is(err, eval.ErrCacheMiss):
		t.misses++
	case err == nil && resp.Cached:
		// A reply the dry run planned has no usage; a cached reply of an
		// endpoint that reports none says nothing either.
		if resp.Usage.CompletionTokens > 0 && len(resp.Choices) > 0 {
			o := t.tasks[req.Task]
			o.replies += len(resp.Choices)
			o.tokens += resp.Usage.CompletionTokens
			t.tasks[req.Task] = o
		}
	}
	return resp, err
}

func (t *tap) Embed(ctx context.Context, req eval.EmbedRequest) (eval.EmbedResponse, error) {
	resp, err := t.inner.Embed(ctx, req)
	if errors.Is(err, eval.ErrCacheMiss) {
		t.mu.Lock()
		t.misses++
		t.mu.Unlock()
	}
	return resp, err
}

// FromRuns reads how long the judge's replies were in past runs with the
// same chat model and the same prompt of a task: from the newest maxRuns
// such runs, the calls of their first maxResults results. Only run records
// and a page of results are read, whatever the size of the database.
func FromRuns(st cache.Store, model string, hashes map[string]string, maxRuns, maxResults int) (map[string]observed, error) {
	runs, err := st.Runs()
	if err != nil {
		return nil, err
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].StartedAt.After(runs[j].StartedAt) })
	out := map[string]observed{}
	used := 0
	for _, run := range runs {
		if used >= maxRuns {
			break
		}
		if run.Judge.Kind != "llm" || run.Judge.Model == "" || run.Judge.Model != model {
			continue
		}
		same := map[string]bool{}
		for _, task := range prompts.Tasks {
			for _, lang := range prompts.Langs {
				k := task + "." + lang
				if h := hashes[k]; h != "" && run.Prompts[k] == h {
					same[task] = true
				}
			}
		}
		if len(same) == 0 {
			continue
		}
		// A question call asks for n replies at once unless n was off.
		perQuestionCall := 1
		if run.Config["n"] != "off" {
			fmt.Sscan(run.Config["strictness"], &perQuestionCall)
			perQuestionCall = max(perQuestionCall, 1)
		}
		_, page, _, err := st.RunPage(run.ID, 0, maxResults)
		if err != nil {
			continue // a run deleted meanwhile, or damaged: other runs will do
		}
		used++
		for _, res := range page {
			if res == nil {
				continue
			}
			yesNo := map[eval.Metric]int{} // a yes_no criterion's calls that answered
			for _, c := range res.Calls {
				if c.Task == prompts.TaskCriterionYesNo && c.Error == "" {
					yesNo[c.Metric]++
				}
			}
			for _, c := range res.Calls {
				if !same[c.Task] || c.Error != "" || c.Tokens.CompletionTokens <= 0 {
					continue
				}
				n := 1
				switch c.Task {
				case prompts.TaskAnswerRelevancyQuestion:
					n = perQuestionCall
				case prompts.TaskCriterionYesNo:
					// A call may have asked for every draw at once; the
					// criterion's trace holds the draws its calls brought.
					if tr := res.Criteria[string(c.Metric)]; tr != nil && yesNo[c.Metric] > 0 {
						n = max(1, len(tr.Draws)/yesNo[c.Metric])
					}
				}
				o := out[c.Task]
				o.replies += n
				o.tokens += c.Tokens.CompletionTokens
				out[c.Task] = o
			}
		}
	}
	return out, nil
}

// joinList is "a", "a and b", "a, b and c".
func joinList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
