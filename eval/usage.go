package eval

import (
	"cmp"
	"maps"
	"sync"
	"sync/atomic"
)

// TaskEmbeddings is the task of embedding calls; every other task is a
// chat call named after its prompt.
const TaskEmbeddings = "embeddings"

// TaskUsage is what the calls of one judge task, or metric, used in a
// run; a cached call's tokens are not counted again.
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
// usage: a failed call is an error, not a call sent; a cached one is a hit
// and brings no tokens, which the call that paid for it counted already.
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

func (c *taskCounters) load() TaskUsage {
	return TaskUsage{Chat: int(c.chat.Load()), Embeddings: int(c.embeddings.Load()), CacheHits: int(c.hits.Load()),
		Usage: Usage{PromptTokens: int(c.prompt.Load()), CompletionTokens: int(c.completion.Load())}}
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
		m := cmp.Or(key.metric, otherTasks)
		out[m] = out[m].With(key.task, c.load())
		return true
	})
	return out
}

// With is mu with u added to its task's usage and its sums.
func (mu MetricUsage) With(task string, u TaskUsage) MetricUsage {
	tasks := make(map[string]TaskUsage, len(mu.Tasks)+1)
	maps.Copy(tasks, mu.Tasks)
	t := tasks[task]
	t.add(u)
	tasks[task] = t
	mu.Tasks = tasks
	mu.add(u)
	return mu
}

// otherTasks is the usage key of calls whose task serves no metric.
const otherTasks Metric = "other"

// CallCounts counts judge calls of a run.
type CallCounts struct {
	Chat       int `json:"chat"`
	Embeddings int `json:"embeddings"`
	Retries    int `json:"retries"`
	CacheHits  int `json:"cache_hits"`
	Errors     int `json:"errors"`
}

// Sent is the number of calls that reached the judge.
func (c CallCounts) Sent() int { return c.Chat + c.Embeddings }

// HitRate is the share of calls the cache answered, in percent.
func (c CallCounts) HitRate() float64 {
	if all := c.Sent() + c.CacheHits; all > 0 {
		return 100 * float64(c.CacheHits) / float64(all)
	}
	return 0
}
