package endpoint

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// The limiter makes all the calls to one endpoint behave as one client, so
// that a storm of 429s does not come back as one request per caller:
//
//   - a throttle (429, or 503 with Retry-After) pauses the whole endpoint for
//     the time asked plus jitter; when it ends one probe goes alone, and the
//     others follow only once it succeeds;
//   - the calls allowed in flight adapt AIMD-style: halved on a throttle
//     (once per window: the 429s of requests sent before the last halving
//     are the same signal), raised by one every increaseEvery successes;
//   - optional budgets per minute (RPM, TPM) pace sending before the server
//     has to refuse anything;
//   - callers are admitted first come, first served.

// increaseEvery is how many successes, among requests sent at the current
// limit, raise the limit by one: about a quarter more per round trip, slow
// enough not to walk straight back into the server's limit.
const increaseEvery = 4

// maxJitter bounds the jitter added to a pause: a quarter of the Retry-After,
// at most this, so that clients paused by one 429 storm do not all come back
// at the same instant.
const maxJitter = 10 * time.Second

// LimitState is a snapshot of an endpoint's limiter, for display.
type LimitState struct {
	InFlight  int           // requests on the wire
	Waiting   int           // calls queued for a slot, a pause or a budget
	Allowed   int           // the adaptive limit on requests in flight
	Max       int           // the configured limit (Config.Concurrency)
	Paused    time.Duration // what was left of the server's pause at the snapshot
	Throttled int64         // throttle replies so far (429, 503 with Retry-After)
}

// String is the status line a UI shows while the endpoint is held back
// (paused, or allowed fewer requests in flight than configured),
// "rate limited: 12 in flight of 64, paused 1.0s"; "" when it is not.
func (s LimitState) String() string {
	if s.Paused <= 0 && s.Allowed >= s.Max {
		return ""
	}
	out := fmt.Sprintf("rate limited: %d in flight of %d", s.InFlight, s.Allowed)
	if s.Allowed < s.Max {
		out += fmt.Sprintf(" (max %d)", s.Max)
	}
	if s.Paused > 0 {
		out += fmt.Sprintf(", paused %.1fs", s.Paused.Seconds())
	}
	return out
}

type limiter struct {
	max int
	// maxWait is Config.MaxRetryAfter: no call waits longer for a pause.
	maxWait time.Duration
	// backoff sizes a pause after a 429 that asked for no time.
	backoff func(n int) time.Duration

	mu          sync.Mutex
	allowed     int
	inFlight    int
	epoch       uint64 // bumped at every halving
	successes   int    // at the current epoch, since the last raise
	streak      int    // throttles since the last success
	pausedUntil time.Time
	// tooLong is the failure of a throttle that asked for more than
	// maxWait; while its pause lasts longer than maxWait, calls fail with it
	// at once rather than queue for a pause they would not wait out.
	tooLong   *Failure
	probing   bool // after a pause: one request alone until it succeeds
	probeOut  bool
	throttled int64
	queue     []*waiter
	timer     *time.Timer
	timerAt   time.Time
	rpm, tpm  *bucket
}

type waiter struct {
	tokens int
	ready  chan struct{}
	tk     ticket
	err    error
}

// ticket is an admitted request: its slot, what it was charged and when.
type ticket struct {
	epoch  uint64
	probe  bool
	tokens int
}

func newLimiter(max, rpm, tpm int, maxWait time.Duration, backoff func(int) time.Duration) *limiter {
	now := time.Now()
	return &limiter{max: max, allowed: max, maxWait: maxWait, backoff: backoff,
		rpm: newBucket(rpm, now), tpm: newBucket(tpm, now)}
}

// acquire waits for the right to send a request estimated at tokens, in
// arrival order. It fails with ctx's error, or with a *Failure when the
// endpoint is paused for longer than the caller would wait.
func (l *limiter) acquire(ctx context.Context, tokens int) (ticket, error) {
	w := &waiter{tokens: tokens, ready: make(chan struct{})}
	l.mu.Lock()
	l.queue = append(l.queue, w)
	l.dispatch(time.Now())
	l.mu.Unlock()
	select {
	case <-w.ready:
		return w.tk, w.err
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-w.ready:
		// Admitted as the caller gave up: hand the slot on.
		if w.err == nil {
			l.release(w.tk)
		}
	default:
		if i := slices.Index(l.queue, w); i >= 0 {
			l.queue = slices.Delete(l.queue, i, i+1)
		}
		// The head may have changed.
		l.dispatch(time.Now())
	}
	return ticket{}, ctx.Err()
}

// dispatch admits queued callers while nothing holds them back, and arms
// the timer for the next moment something might change. Called with mu held.
func (l *limiter) dispatch(now time.Time) {
	for len(l.queue) > 0 {
		if now.Before(l.pausedUntil) {
			if l.tooLong != nil && l.pausedUntil.Sub(now) > l.maxWait {
				l.failQueue(now)
				return
			}
			l.wakeAt(now, l.pausedUntil)
			return
		}
		l.tooLong = nil
		if l.inFlight >= l.allowed || (l.probing && l.probeOut) {
			return // a release dispatches again
		}
		w := l.queue[0]
		if d := max(l.rpm.wait(now, 1), l.tpm.wait(now, w.tokens)); d > 0 {
			l.wakeAt(now, now.Add(d))
			return
		}
		l.rpm.take(now, 1)
		l.tpm.take(now, w.tokens)
		l.inFlight++
		w.tk = ticket{epoch: l.epoch, probe: l.probing, tokens: w.tokens}
		l.probeOut = l.probeOut || l.probing
		l.queue[0] = nil
		l.queue = l.queue[1:]
		close(w.ready)
	}
}

func (l *limiter) failQueue(now time.Time) {
	left := l.pausedUntil.Sub(now).Round(time.Second)
	for _, w := range l.queue {
		f := *l.tooLong
		f.detail = fmt.Sprintf("the endpoint is paused for another %s: %s", left, f.detail)
		w.err = &f
		close(w.ready)
	}
	l.queue = nil
}

func (l *limiter) wakeAt(now, t time.Time) {
	if l.timer != nil {
		if l.timerAt.Equal(t) {
			return
		}
		l.timer.Stop()
	}
	l.timerAt = t
	var tm *time.Timer
	tm = time.AfterFunc(t.Sub(now), func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.timer == tm {
			l.timer = nil
		}
		l.dispatch(time.Now())
	})
	l.timer = tm
}

// done releases a request that got a usable reply; used is the tokens the
// server counted (0 when it did not say).
func (l *limiter) done(tk ticket, used int) { l.answered(tk, used, true) }

// failed releases a request that failed otherwise than by a throttle: the
// server answered, so a probe has done its job. used is as for done (a
// malformed reply was paid for).
func (l *limiter) failed(tk ticket, used int) { l.answered(tk, used, false) }

func (l *limiter) answered(tk ticket, used int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if tk.probe {
		l.probing = false
	}
	if ok {
		l.streak = 0
		if tk.epoch == l.epoch && l.allowed < l.max {
			l.successes++
			if l.successes >= increaseEvery {
				l.allowed++
				l.successes = 0
			}
		}
	}
	if used > 0 {
		// The estimate was a guess; charge what was counted.
		l.tpm.give(time.Now(), float64(tk.tokens-used))
	}
	l.release(tk)
}

// throttle releases a request the server refused for load, and pauses the
// endpoint: for retryAfter plus jitter when the server said, else for a
// backoff that grows with the throttles in a row. f, when the server asked
// for more than maxWait, is what the callers queued meanwhile fail with.
func (l *limiter) throttle(tk ticket, retryAfter time.Duration, tooLong *Failure) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	l.throttled++
	// A refused request consumed nothing of the token budget.
	l.tpm.give(now, float64(tk.tokens))
	fresh := tk.epoch == l.epoch || !now.Before(l.pausedUntil)
	if tk.epoch == l.epoch {
		l.allowed = max(1, l.allowed/2)
		l.epoch++
		l.successes = 0
	}
	var until time.Time
	switch {
	case tooLong != nil:
		until = now.Add(retryAfter)
		l.tooLong = tooLong
	case !fresh:
		// A request sent before the pause began: its 429 is the same
		// signal, but may ask for longer.
		until = now.Add(retryAfter)
	case retryAfter > 0:
		d := retryAfter
		if j := min(retryAfter/4, maxJitter); j > 0 {
			d += rand.N(j) + 1
		}
		until = now.Add(min(d, max(retryAfter, l.maxWait)))
	default:
		until = now.Add(min(l.backoff(l.streak), l.maxWait))
	}
	if fresh {
		l.streak++
		l.probing = true
	}
	if until.After(l.pausedUntil) {
		l.pausedUntil = until
	}
	l.release(tk)
}

// cancelled releases a request given up by its caller: its answer says
// nothing about the server, so a probe's turn passes to the next caller.
func (l *limiter) cancelled(tk ticket) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.release(tk)
}

// release frees a request's slot, and a probe's turn, and admits who may
// go now. Called with mu held.
func (l *limiter) release(tk ticket) {
	l.inFlight--
	if tk.probe {
		l.probeOut = false
	}
	l.dispatch(time.Now())
}

func (l *limiter) state() LimitState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return LimitState{InFlight: l.inFlight, Waiting: len(l.queue), Allowed: l.allowed, Max: l.max,
		Throttled: l.throttled, Paused: max(time.Until(l.pausedUntil), 0)}
}

// bucket paces a budget per minute. It holds at most one second's worth, so
// a run does not open with a minute's budget in one burst (servers enforce
// their per-minute limits over shorter windows too). A request costing more
// than the bucket holds is let through when the bucket is full and leaves it
// in debt: it then waits for its own cost to refill, but never deadlocks.
type bucket struct {
	rate  float64 // per second
	cap   float64
	level float64
	last  time.Time
}

func newBucket(perMinute int, now time.Time) *bucket {
	if perMinute <= 0 {
		return nil
	}
	rate := float64(perMinute) / 60
	c := max(1, rate)
	return &bucket{rate: rate, cap: c, level: c, last: now}
}

func (b *bucket) refill(now time.Time) {
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.level = min(b.cap, b.level+dt*b.rate)
		b.last = now
	}
}

// wait is how long until cost may be spent; 0 now.
func (b *bucket) wait(now time.Time, cost int) time.Duration {
	if b == nil {
		return 0
	}
	b.refill(now)
	need := min(float64(cost), b.cap)
	if b.level >= need {
		return 0
	}
	return time.Duration(math.Ceil((need - b.level) / b.rate * float64(time.Second)))
}

func (b *bucket) take(now time.Time, cost int) {
	if b != nil {
		b.refill(now)
		b.level -= float64(cost)
	}
}

// give returns (or, negative, charges) budget after the fact.
func (b *bucket) give(now time.Time, n float64) {
	if b != nil {
		b.refill(now)
		b.level = min(b.cap, b.level+n)
	}
}
