package offline

import "sync"

// memo is a bounded cache of values computed from a text, safe for
// concurrent use. The judge computes the same things from the same texts
// many times (a sample's question, answer and reference statements by
// every metric, a chunk by every statement), and each of those is a pure
// function of its text. Bounding is crude but cheap: when full, the memo
// is emptied, which only costs recomputation, never a different value.
// Values are shared: a caller must not modify one.
type memo[V any] struct {
	mu  sync.Mutex
	m   map[string]V
	max int
}

func newMemo[V any](max int) *memo[V] { return &memo[V]{m: map[string]V{}, max: max} }

// get returns the value of key, computed by build when the memo does not
// hold it. build runs outside the lock: two goroutines may both compute a
// missing value, and either result is the same.
func (c *memo[V]) get(key string, build func(string) V) V {
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = build(key)
	c.mu.Lock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[key] = v
	c.mu.Unlock()
	return v
}
