package report

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// AddUsage adds what a part of the run used (the whole of it, or the part
// a --resume evaluated) to the record's calls, tokens and usage per metric.
func (r *RunInfo) AddUsage(calls eval.CallCounts, tokens eval.Usage, usage map[eval.Metric]eval.MetricUsage) {
	r.Calls.Chat += calls.Chat
	r.Calls.Embeddings += calls.Embeddings
	r.Calls.Retries += calls.Retries
	r.Calls.CacheHits += calls.CacheHits
	r.Calls.Errors += calls.Errors
	r.Tokens.PromptTokens += tokens.PromptTokens
	r.Tokens.CompletionTokens += tokens.CompletionTokens
	if len(usage) > 0 && r.Usage == nil {
		r.Usage = map[eval.Metric]eval.MetricUsage{}
	}
	for m, mu := range usage {
		for task, u := range mu.Tasks {
			r.Usage[m] = r.Usage[m].With(task, u)
		}
	}
}

// ResetUsage clears the usage recorded, for a re-run made from the record.
func (r *RunInfo) ResetUsage() {
	r.Calls, r.Tokens, r.Usage, r.CostUSD, r.UsagePartial = eval.CallCounts{}, eval.Usage{}, nil, nil, false
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
func (p *ModelPrice) usd(u eval.TaskUsage) *float64 {
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
func (p *Pricing) price(task string, u eval.TaskUsage) *float64 {
	switch {
	case p == nil:
		return nil
	case p.Offline:
		return usdOf(0)
	case task == eval.TaskEmbeddings:
		return p.Embeddings.usd(u)
	}
	return p.Chat.usd(u)
}

// Cost prices chat and embedding tokens (the TUI's live count); nil when
// there is no price for tokens that were used.
func (p *Pricing) Cost(chat, embeddings eval.Usage) *float64 {
	return addCost(p.price("", eval.TaskUsage{Usage: chat}), p.price(eval.TaskEmbeddings, eval.TaskUsage{Usage: embeddings}))
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
	for _, m := range slices.Sorted(maps.Keys(r.Usage)) {
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
	if r.UsagePartial && !r.Pricing.Offline { // the offline judge costs nothing, however interrupted
		s += "+"
	}
	return s
}

// MetricCostText is one metric's cost as the summaries show it.
func (r RunInfo) MetricCostText(m eval.Metric) string {
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
	case r.UsagePartial && !r.Pricing.Offline:
		c += " at least (an interrupted attempt of this run recorded no usage)"
	}
	return c + " (" + r.Pricing.Note() + ")"
}
