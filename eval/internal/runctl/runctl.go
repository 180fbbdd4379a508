// Package runctl keeps a run within bounds: the text of its samples in
// flight, and fail-fast on a first run of unrecoverable call failures.
package runctl

import (
	"context"
	"errors"
	"sync"
)

// failFastAfter is how many calls must fail the same unrecoverable way,
// none succeeding, before the run stops: one could be a fluke.
const failFastAfter = 3

// streakAfter is how many calls in a row must fail the same lasting way
// after a success before the run stops: credit spent or a key revoked
// mid-run fails every later call, and the calls already in flight when it
// happened fail together, so the streak asked for is longer.
const streakAfter = 2 * failFastAfter

// FailFast stops a run whose first calls sent all fail with one
// unrecoverable kind of error, none succeeding, or whose calls, after
// some succeeded, fail streakAfter times in a row with one lasting kind.
type FailFast struct {
	// Kind names the unrecoverable kind of a call error, "" for any other.
	Kind func(error) string
	// Lasting says which kinds stop the run on a streak after a success;
	// nil: none.
	Lasting func(kind string) bool
	// Abort stops the run with the error.
	Abort func(error)
	mu    sync.Mutex
	sent  bool   // a call reached the endpoint and succeeded
	mixed bool   // a call failed some other way before any succeeded
	kind  string // the kind every failure so far had
	count int
	// The failures in a row since the last call sent that succeeded.
	streakKind string
	streak     int
}

// Outcome feeds fail-fast with a finished call: a success sent proves the
// endpoint works; failures of one unrecoverable kind stop the run.
func (s *FailFast) Outcome(err error, cached bool) {
	if s.Kind == nil || s.Abort == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err == nil:
		if !cached {
			s.sent, s.streak = true, 0
		}
		return
	case errors.Is(err, context.Canceled):
		return
	}
	kind := s.Kind(err)
	if kind != "" && kind == s.streakKind {
		s.streak++
	} else {
		s.streakKind, s.streak = kind, 1
	}
	if kind != "" && s.streak >= streakAfter && s.Lasting != nil && s.Lasting(kind) {
		s.Abort(err)
		return
	}
	if s.sent || s.mixed {
		return
	}
	if kind == "" || (s.kind != "" && kind != s.kind) {
		s.mixed = true
		return
	}
	s.kind = kind
	s.count++
	if s.count >= failFastAfter {
		s.Abort(err)
	}
}

// Budget bounds the bytes of text taken by the samples being evaluated
// (eval.RunnerConfig.MaxTextInFlight). A zero budget never waits.
type Budget struct {
	mu   sync.Mutex
	cond *sync.Cond
	max  int64
	used int64
	// waiting counts the acquirers waiting for room (for the tests).
	waiting int
}

// NewBudget is a budget of max bytes; 0 or less is none.
func NewBudget(max int64) *Budget {
	b := &Budget{max: max}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *Budget) weight(n int64) int64 { return min(n, b.max) }

// Acquire waits until n bytes fit beside the samples being evaluated (or
// none is), or ctx is done: a cancelled run still hands its samples on.
func (b *Budget) Acquire(ctx context.Context, n int64) {
	if b.max <= 0 {
		return
	}
	stop := context.AfterFunc(ctx, func() {
		b.mu.Lock()
		b.cond.Broadcast()
		b.mu.Unlock()
	})
	defer stop()
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.used > 0 && b.used+b.weight(n) > b.max && ctx.Err() == nil {
		b.waiting++
		b.cond.Wait()
		b.waiting--
	}
	b.used += b.weight(n)
}

// Release gives back the n bytes of a sample acquired.
func (b *Budget) Release(n int64) {
	if b.max <= 0 {
		return
	}
	b.mu.Lock()
	b.used -= b.weight(n)
	b.cond.Broadcast()
	b.mu.Unlock()
}
