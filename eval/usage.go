package eval

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// TaskEmbeddings is the task of embedding calls; every other task is a
// chat call named after its prompt.
const TaskEmbeddings = "embeddings"

// TaskUsage is what the calls of one judge task, or of one metric, used in
// a run: the calls that reached the judge, those the cache answered, and
// the tokens the endpoint reported for the calls sent. A cached call costs
// nothing and its tokens are not counted again.
type TaskUsage struct {
	Chat       int `json:"chat"`
	Embeddings int `json:"embeddings"`
	CacheHits  int `json:"cache_hits"`
	Usage
	// CostUSD is what the tokens cost at the run's prices; null when the
	// model they were sent to has no price (or the run recorded no prices).
	CostUSD *float64 `json:"cost_usd"`
}

// Sent is the number of calls that reached the judge.
func (u TaskUsage) Sent() int { return u.Chat + u.Embeddings }

func (u *TaskUsage) add(o TaskUsage) {
	u.Chat += o.Chat
	u.Embeddings += o.Embeddings
	u.CacheHits += o.CacheHits
	u.PromptTokens += o.PromptTokens
	u.CompletionTokens += o.CompletionTokens
}

// MetricUsage is a metric's usage: its tasks' sums, and each task's.
type MetricUsage struct {
	TaskUsage
	Tasks map[string]TaskUsage `json:"tasks"`
}

// usageOfCall is the one rule for what a finished call adds to a run's
// usage, the run-wide CallCounts and Usage included: a call that failed is
// no call sent (it is an error), a cached one is a hit, and only calls not
// answered by the cache bring tokens — a cached reply keeps the usage of
// the call that paid for it, and counting it again would overstate what
// this run spent.
func usageOfCall(cr CallRecord, embedding bool) TaskUsage {
	var u TaskUsage
	switch {
	case cr.Error != "":
	case cr.Cached:
		u.CacheHits = 1
	case embedding:
		u.Embeddings = 1
	default:
		u.Chat = 1
	}
	if !cr.Cached {
		u.Usage = cr.Tokens
	}
	return u
}

// taskCounters are one task's counters in a run, updated atomically.
type taskCounters struct {
	chat, embeddings, hits atomic.Int64
	prompt, completion     atomic.Int64
}

func (c *taskCounters) add(u TaskUsage) {
	c.chat.Add(int64(u.Chat))
	c.embeddings.Add(int64(u.Embeddings))
	c.hits.Add(int64(u.CacheHits))
	c.prompt.Add(int64(u.PromptTokens))
	c.completion.Add(int64(u.CompletionTokens))
}

// taskStats counts usage per metric and task; the pairs are few and known
// after the first sample, so lookups are lock-free reads of a sync.Map.
type taskStats struct{ m sync.Map } // usageKey -> *taskCounters

type usageKey struct {
	metric Metric
	task   string
}

func (s *taskStats) add(m Metric, task string, u TaskUsage) {
	k := usageKey{m, task}
	c, ok := s.m.Load(k)
	if !ok {
		c, _ = s.m.LoadOrStore(k, &taskCounters{})
	}
	c.(*taskCounters).add(u)
}

func (s *taskStats) snapshot() map[Metric]MetricUsage {
	out := map[Metric]MetricUsage{}
	s.m.Range(func(k, v any) bool {
		c, key := v.(*taskCounters), k.(usageKey)
		m := key.metric
		if m == "" {
			m = OtherTasks
		}
		out[m] = out[m].with(key.task, TaskUsage{Chat: int(c.chat.Load()), Embeddings: int(c.embeddings.Load()), CacheHits: int(c.hits.Load()),
			Usage: Usage{PromptTokens: int(c.prompt.Load()), CompletionTokens: int(c.completion.Load())}})
		return true
	})
	return out
}

// with is mu with u added to its task's usage and its sums.
func (mu MetricUsage) with(task string, u TaskUsage) MetricUsage {
	tasks := make(map[string]TaskUsage, len(mu.Tasks)+1)
	for t, v := range mu.Tasks {
		tasks[t] = v
	}
	t := tasks[task]
	t.add(u)
	tasks[task] = t
	mu.Tasks = tasks
	mu.add(u)
	return mu
}

// OtherTasks is the usage key of calls whose task serves no metric.
const OtherTasks Metric = "other"

// AddUsage adds what a part of the run used (the whole of it, or the part
// a --resume evaluated) to the record's calls, tokens and usage per metric.
func (r *RunInfo) AddUsage(calls CallCounts, tokens Usage, usage map[Metric]MetricUsage) {
	r.Calls.Chat += calls.Chat
	r.Calls.Embeddings += calls.Embeddings
	r.Calls.Retries += calls.Retries
	r.Calls.CacheHits += calls.CacheHits
	r.Calls.Errors += calls.Errors
	r.Tokens.PromptTokens += tokens.PromptTokens
	r.Tokens.CompletionTokens += tokens.CompletionTokens
	if len(usage) > 0 && r.Usage == nil {
		r.Usage = map[Metric]MetricUsage{}
	}
	for m, mu := range usage {
		for task, u := range mu.Tasks {
			r.Usage[m] = r.Usage[m].with(task, u)
		}
	}
}

// ResetUsage clears what the record says was used, for a new run made
// from it (a re-run).
func (r *RunInfo) ResetUsage() {
	r.Calls, r.Tokens, r.Usage, r.CostUSD, r.UsagePartial = CallCounts{}, Usage{}, nil, nil, false
}

// Pricing is how a run's tokens were priced: the price table and the two
// models' prices from it. Chat tokens are priced at the chat model's
// price, embedding tokens at the embedding model's.
type Pricing struct {
	// Table names the price table: "built-in (DATE)", or the prices.json
	// that overrode part of it, with its date.
	Table string `json:"table,omitempty"`
	// Offline: the offline judge sends nothing, and costs nothing.
	Offline    bool        `json:"offline,omitempty"`
	Chat       *ModelPrice `json:"chat,omitempty"`       // nil: the chat model has no price
	Embeddings *ModelPrice `json:"embeddings,omitempty"` // nil: the embedding model has no price
	// Unpriced lists the judge's models the table has no price for; the
	// tokens sent to them make the cost null.
	Unpriced []string `json:"unpriced,omitempty"`
}

// ModelPrice is one model's price, US dollars per million tokens.
type ModelPrice struct {
	Model      string  `json:"model"`
	Prompt     float64 `json:"prompt"`
	Completion float64 `json:"completion"`
}

// usd prices a usage at p; nil p (no price) is a null cost unless nothing
// was sent, which costs nothing whatever the price.
func (p *ModelPrice) usd(u TaskUsage) *float64 {
	if u.Sent() == 0 && u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return usdOf(0)
	}
	if p == nil {
		return nil
	}
	return usdOf((float64(u.PromptTokens)*p.Prompt + float64(u.CompletionTokens)*p.Completion) / 1e6)
}

// usdOf rounds away the float noise of summing prices (1e-10 dollars).
func usdOf(v float64) *float64 {
	v = math.Round(v*1e10) / 1e10
	return &v
}

func addCost(a, b *float64) *float64 {
	if a == nil || b == nil {
		return nil
	}
	return usdOf(*a + *b)
}

// price is the cost of one task's usage.
func (p *Pricing) price(task string, u TaskUsage) *float64 {
	switch {
	case p == nil:
		return nil
	case p.Offline:
		return usdOf(0)
	case task == TaskEmbeddings:
		return p.Embeddings.usd(u)
	}
	return p.Chat.usd(u)
}

// Cost prices chat and embedding tokens (the TUI's live count); nil when
// there is no price for tokens that were used.
func (p *Pricing) Cost(chat, embeddings Usage) *float64 {
	if p == nil {
		return nil
	}
	return addCost(p.price("", TaskUsage{Usage: chat}), p.price(TaskEmbeddings, TaskUsage{Usage: embeddings}))
}

// Note says how the cost was arrived at, for the summaries: the offline
// judge's zero, the models without a price, or the price table.
func (p *Pricing) Note() string {
	switch {
	case p == nil:
		return "no prices recorded"
	case p.Offline:
		return "offline judge: no cost"
	case len(p.Unpriced) == 1:
		return "no price for " + p.Unpriced[0] + " (add it to prices.json)"
	case len(p.Unpriced) > 1:
		return "no price for " + strings.Join(p.Unpriced, ", ") + " (add them to prices.json)"
	}
	return "prices " + p.Table
}

// PriceUsage prices the record's usage at its Pricing: each task, each
// metric and the run. A cost is null when tokens went to a model with no
// price; a run without Pricing (recorded before prices were) stays null.
func (r *RunInfo) PriceUsage() {
	r.CostUSD = nil
	if r.Pricing == nil {
		return
	}
	total := usdOf(0)
	for _, m := range sortedMetrics(r.Usage) {
		mu := r.Usage[m]
		mc := usdOf(0)
		for task, u := range mu.Tasks {
			u.CostUSD = r.Pricing.price(task, u)
			mu.Tasks[task] = u
			mc = addCost(mc, u.CostUSD)
		}
		mu.CostUSD = mc
		r.Usage[m] = mu
		total = addCost(total, mc)
	}
	r.CostUSD = total
}

func sortedMetrics(u map[Metric]MetricUsage) []Metric {
	ms := make([]Metric, 0, len(u))
	for m := range u {
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i] < ms[j] })
	return ms
}

// FormatUSD writes a cost for people: "$0" for nothing, cents for a dollar
// or more, else three significant digits ("$0.0123", "$0.000041").
func FormatUSD(v float64) string {
	switch {
	case v == 0:
		return "$0"
	case v >= 1:
		return "$" + strconv.FormatFloat(v, 'f', 2, 64)
	}
	dec := min(int(-math.Floor(math.Log10(v)))+2, 10)
	s := strings.TrimRight(strconv.FormatFloat(v, 'f', dec, 64), "0")
	return "$" + strings.TrimSuffix(s, ".")
}

// CostText is the run's cost as the runs listing and the summaries show it:
// "" when the run recorded none (it has not ended, or an older ragscope
// recorded it), "—" when a model had no price, else the dollars, with a
// "+" when the usage is partial (UsagePartial).
func (r RunInfo) CostText() string {
	switch {
	case r.Pricing == nil || r.FinishedAt == nil:
		return ""
	case r.CostUSD == nil:
		return "—"
	}
	s := FormatUSD(*r.CostUSD)
	if r.UsagePartial {
		s += "+"
	}
	return s
}

// MetricCostText is one metric's cost as the summaries show it.
func (r RunInfo) MetricCostText(m Metric) string {
	if r.CostText() == "" {
		return ""
	}
	mu, ok := r.Usage[m]
	switch {
	case !ok:
		return FormatUSD(0)
	case mu.CostUSD == nil:
		return "—"
	}
	return FormatUSD(*mu.CostUSD)
}

// CostSentence is the cost with how it was arrived at: "$0.0123 (prices
// built-in (2025-09-30))", "unknown (no price for m (add it to
// prices.json))", "$0 (offline judge: no cost)".
func (r RunInfo) CostSentence() string {
	c := r.CostText()
	switch {
	case c == "":
		return "not recorded"
	case c == "—":
		c = "unknown"
	case r.UsagePartial:
		c += " at least (an interrupted attempt of this run recorded no usage)"
	}
	return c + " (" + r.Pricing.Note() + ")"
}
