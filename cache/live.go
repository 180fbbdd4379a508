package cache

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// hub is the log of run-store writes since the database was opened, so that
// viewers learn of new results without rereading the run. It keeps
// positions; the values are read from the file when a viewer asks.
type hub struct {
	mu   sync.Mutex
	base int64 // the position before log[0]
	log  []hubEntry
	wake chan struct{} // closed and replaced when viewers are woken
	// armed: a wake-up is scheduled. Watchers are woken at most every
	// hubTick, not on every write, which would take the run's cores.
	armed bool
}

const hubTick = 100 * time.Millisecond

type hubEntry struct {
	run   string
	index int // -1: the run record
}

// hubKeep bounds the log; a viewer that falls further behind reloads.
const hubKeep = 1 << 16

func newHub() *hub {
	// Positions start at the clock, so that one handed out by an earlier
	// holder is below our base and its viewer is told to reload.
	return &hub{base: time.Now().UnixNano(), wake: make(chan struct{})}
}

func (h *hub) add(run string, indexes ...int) {
	h.mu.Lock()
	for _, i := range indexes {
		h.log = append(h.log, hubEntry{run, i})
	}
	if len(h.log) > hubKeep {
		drop := len(h.log) - hubKeep/2
		h.base += int64(drop)
		h.log = append(h.log[:0:0], h.log[drop:]...)
	}
	if !h.armed {
		h.armed = true
		time.AfterFunc(hubTick, h.wakeAll)
	}
	h.mu.Unlock()
}

func (h *hub) wakeAll() {
	h.mu.Lock()
	h.armed = false
	close(h.wake)
	h.wake = make(chan struct{})
	h.mu.Unlock()
}

// maxLiveBatch bounds one answer so that a viewer of a fast run gets its
// results in slices.
const maxLiveBatch = 1000

// LiveUpdates implements Store.
func (db *DB) LiveUpdates(ctx context.Context, runID string, after int64, wait time.Duration) (LiveBatch, error) {
	raw, err := db.LiveUpdatesRaw(ctx, runID, after, wait)
	b := LiveBatch{Seq: raw.Seq, Reset: raw.Reset}
	if err != nil {
		return b, err
	}
	if raw.Run != nil {
		var info report.RunInfo
		if err := json.Unmarshal(raw.Run, &info); err != nil {
			return b, damaged(db.path, "run %s is unreadable: %v", runID, err)
		}
		b.Run = &info
	}
	for _, v := range raw.Results {
		var r eval.Result
		if err := json.Unmarshal(v, &r); err != nil {
			return b, damaged(db.path, "run %s: unreadable result: %v", runID, err)
		}
		b.Results = append(b.Results, &r)
	}
	return b, nil
}

// RawLiveBatch is a LiveBatch with the values as stored (JSON), for the
// holder to pass to its clients without decoding and encoding every result
// once per viewer. Its JSON is that of a LiveBatch.
type RawLiveBatch struct {
	Seq     int64             `json:"seq"`
	Reset   bool              `json:"reset,omitempty"`
	Results []json.RawMessage `json:"results,omitempty"`
	Run     json.RawMessage   `json:"run,omitempty"`
}

// LiveUpdatesRaw is LiveUpdates with the stored values left encoded.
func (db *DB) LiveUpdatesRaw(ctx context.Context, runID string, after int64, wait time.Duration) (RawLiveBatch, error) {
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	for {
		h := db.hub
		h.mu.Lock()
		seq := h.base + int64(len(h.log))
		switch {
		case after < 0:
			h.mu.Unlock()
			return RawLiveBatch{Seq: seq}, nil
		case after < h.base || after > seq:
			h.mu.Unlock()
			return RawLiveBatch{Seq: seq, Reset: true}, nil
		case after < seq:
			var idx []int
			record := false
			last := after
			for i := after - h.base; i < int64(len(h.log)) && len(idx) < maxLiveBatch; i++ {
				e := h.log[i]
				last = h.base + i + 1
				if e.run != runID {
					continue
				}
				if e.index < 0 {
					record = true
				} else {
					idx = append(idx, e.index)
				}
			}
			h.mu.Unlock()
			if len(idx) == 0 && !record {
				after = last
				continue
			}
			b, err := db.readLive(runID, idx, record)
			b.Seq = last
			return b, err
		}
		wake := h.wake
		h.mu.Unlock()
		select {
		case <-wake:
		case <-timeout:
			return RawLiveBatch{Seq: seq}, nil
		case <-ctx.Done():
			return RawLiveBatch{Seq: seq}, ctx.Err()
		}
	}
}

// readLive copies the newest stored value of each index out of the
// transaction, in storing order.
func (db *DB) readLive(runID string, idx []int, record bool) (RawLiveBatch, error) {
	var b RawLiveBatch
	err := db.view(func(tx *bolt.Tx) error {
		if record {
			if v := tx.Bucket(bucketRuns).Get([]byte(runID)); v != nil {
				b.Run = append(json.RawMessage(nil), v...)
			}
		}
		bk := tx.Bucket(bucketResults)
		seen := map[int]bool{}
		// The newest write of an index wins: walk backwards, keep the first.
		for i := len(idx) - 1; i >= 0; i-- {
			if seen[idx[i]] {
				continue
			}
			seen[idx[i]] = true
			if v := bk.Get(resultKey(runID, idx[i])); v != nil {
				b.Results = append(b.Results, append(json.RawMessage(nil), v...))
			}
		}
		slices.Reverse(b.Results)
		return nil
	})
	return b, err
}

// claims are the keys of calls being paid for in this process, by this
// process's runs or by the clients it serves.
type claims struct {
	mu   sync.Mutex
	busy map[string]chan struct{}
}

// Claim implements Store.
func (db *DB) Claim(ctx context.Context, key string) (func(), bool, error) {
	return db.claims.claim(ctx, key)
}

// TryClaim is Claim granted at once or not at all: its release, nil when
// another caller holds the key.
func (db *DB) TryClaim(key string) func() {
	release, _ := db.claims.try(key)
	return release
}

func (c *claims) claim(ctx context.Context, key string) (func(), bool, error) {
	release, wait := c.try(key)
	if release != nil {
		return release, true, nil
	}
	select {
	case <-wait:
		return nil, false, nil
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

// try claims key when nobody holds it; otherwise wait is closed when the
// holder releases it.
func (c *claims) try(key string) (release func(), wait chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy == nil {
		c.busy = map[string]chan struct{}{}
	}
	if wait, held := c.busy[key]; held {
		return nil, wait
	}
	done := make(chan struct{})
	c.busy[key] = done
	return sync.OnceFunc(func() {
		c.mu.Lock()
		delete(c.busy, key)
		c.mu.Unlock()
		close(done)
	}), nil
}
