// Package memo is a bounded cache of values computed from texts, safe for
// concurrent use; a value being computed is computed once.
package memo

import (
	"hash/maphash"
	"sync"
)

// Memo is a bounded cache of values computed from a text, safe for
// concurrent use: the offline judge computes the same pure functions of
// the same texts many times. When full it is emptied, which only costs
// recomputation. Values are shared: a caller must not modify one.
//
// A value being computed is computed once: the metrics of a sample all
// ask for its chunks at once, and a big chunk analysed by each of them at
// the same time would take that many times its memory. For the same
// reason the values of texts of BigText bytes or more are bounded to
// maxBigText bytes of keys, the oldest let go first: an analysis takes
// up to about 80 times its text.
//
// Texts are spread over shards, each with its own lock, so that the
// workers of a run do not wait in line for one; big texts all go to one
// shard, which keeps the byte bound whole.
type Memo[V any] struct {
	small [shards]shard[V]
	big   shard[V]
	seed  maphash.Seed
}

// shards is how many locks the small texts are spread over: enough that
// workers on many cores seldom ask the same one at once.
const shards = 32

// shard is a part of a memo under one lock.
type shard[V any] struct {
	mu       sync.Mutex
	m        map[string]V
	pending  map[string]*pendingValue[V]
	max      int
	big      []string // keys of BigText bytes or more held, oldest first
	bigBytes int
	waiting  int // goroutines waiting for a value being computed (for the tests)
}

// BigText is the size of a text from which its value counts against the
// byte bound.
const (
	BigText    = 256 << 10
	maxBigText = 16 << 20
)

// pendingValue is a value one goroutine is computing; done is done when
// it is there (ok) or its computation panicked (not ok).
type pendingValue[V any] struct {
	done sync.WaitGroup
	v    V
	ok   bool
}

// New returns a memo of at most n values.
func New[V any](n int) *Memo[V] {
	c := &Memo[V]{seed: maphash.MakeSeed()}
	for i := range c.small {
		c.small[i].init(max(1, n/shards))
	}
	c.big.init(n)
	return c
}

func (c *shard[V]) init(max int) {
	c.m, c.pending, c.max = map[string]V{}, map[string]*pendingValue[V]{}, max
}

// shardOf is the shard that holds key.
func (c *Memo[V]) shardOf(key string) *shard[V] {
	if len(key) >= BigText {
		return &c.big
	}
	return &c.small[maphash.String(c.seed, key)%shards]
}

// Get returns the value of key, computed by build when the memo does not
// hold it. A goroutine that asks for a value another is computing waits
// for it; build runs outside the lock.
func (c *Memo[V]) Get(key string, build func(string) V) V {
	return c.shardOf(key).get(key, build)
}

func (c *shard[V]) get(key string, build func(string) V) V {
	c.mu.Lock()
	if v, ok := c.m[key]; ok {
		c.mu.Unlock()
		return v
	}
	if p, ok := c.pending[key]; ok {
		c.waiting++
		c.mu.Unlock()
		p.done.Wait()
		c.mu.Lock()
		c.waiting--
		c.mu.Unlock()
		if p.ok {
			return p.v
		}
		return build(key) // the other one panicked: its panic is reported there
	}
	p := &pendingValue[V]{}
	p.done.Add(1)
	c.pending[key] = p
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, key)
		if p.ok {
			c.put(key, p.v)
		}
		c.mu.Unlock()
		p.done.Done()
	}()
	p.v = build(key)
	p.ok = true
	return p.v
}

// put holds v for key; the caller holds the lock.
func (c *shard[V]) put(key string, v V) {
	if len(c.m) >= c.max {
		clear(c.m)
		c.big, c.bigBytes = nil, 0
	}
	if _, held := c.m[key]; !held && len(key) >= BigText {
		for len(c.big) > 0 && c.bigBytes+len(key) > maxBigText {
			delete(c.m, c.big[0])
			c.bigBytes -= len(c.big[0])
			c.big = c.big[1:]
		}
		c.big = append(c.big, key)
		c.bigBytes += len(key)
	}
	c.m[key] = v
}
