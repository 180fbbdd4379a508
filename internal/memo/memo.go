// Package memo is a bounded cache of values computed from texts, safe for
// concurrent use; a value being computed is computed once.
package memo

import (
	"hash/maphash"
	"sync"
)

// Memo is a bounded cache of values computed from a text, safe for
// concurrent use. The offline judge computes the same things from the
// same texts many times (a sample's question, answer and reference
// statements by every metric, a chunk by every statement), and each of
// those is a pure function of its text. Bounding is crude but cheap: when full, the memo
// is emptied, which only costs recomputation, never a different value.
// Values are shared: a caller must not modify one.
//
// A value being computed is computed once: the metrics of a sample run at
// once and all ask for its chunks first, and a big chunk analysed by each
// of them at the same time would take that many times its analysis in
// memory (a 15 MiB chunk: 3.1 GB against 1-1.2 GB, scripts/bigrecord.sh).
//
// What a memo keeps of big texts is bounded in bytes as well as in count:
// the analysis of a text takes up to about 80 times its size, so 4096
// analyses of records of a few MiB would be hundreds of GB. The values of
// texts of BigText bytes or more take at most maxBigText bytes of keys,
// the oldest let go first.
//
// The memos are shared by every worker of a run, so one lock would make
// every lookup of every worker wait in line: texts are spread over shards
// by a hash of their text, each with its own lock and its share of the
// count bound; big texts all go to one shard, which keeps the byte bound
// whole.
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
