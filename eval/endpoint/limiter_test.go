package endpoint

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func testLimiter(max int) *limiter {
	return newLimiter(max, 0, 0, time.Minute, func(int) time.Duration { return time.Hour })
}

func mustAcquire(t *testing.T, l *limiter, tokens int) ticket {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tk, err := l.acquire(ctx, tokens)
	if err != nil {
		t.Fatalf("acquire: %v (state %+v)", err, l.state())
	}
	return tk
}

// blocked reports whether acquire is held back: it has not returned
// within d. The timeout is the assertion, nothing waits on it to order
// events.
func blocked(l *limiter, tokens int, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	tk, err := l.acquire(ctx, tokens)
	if err == nil {
		l.done(tk, 0)
		return false
	}
	return errors.Is(err, context.DeadlineExceeded)
}

func TestLimiterHalvesOncePerWindow(t *testing.T) {
	l := testLimiter(64)
	var tks []ticket
	for range 64 {
		tks = append(tks, mustAcquire(t, l, 0))
	}
	if s := l.state(); s.InFlight != 64 || s.Allowed != 64 || s.String() != "" {
		t.Fatalf("before any throttle: %+v %q", s, s.String())
	}
	// All 64 answered 429: one window, one halving, one pause.
	for _, tk := range tks {
		l.throttle(tk, time.Hour, nil)
	}
	s := l.state()
	if s.Allowed != 32 || s.Throttled != 64 || s.InFlight != 0 || s.Paused < time.Hour-time.Second || s.Paused > time.Hour+maxJitter {
		t.Fatalf("after a burst of 64 throttles: %+v", s)
	}
	if got := s.String(); !strings.HasPrefix(got, "rate limited: 0 in flight of 32 (max 64), paused 36") {
		t.Fatalf("String: %q", got)
	}
	// Nobody is let through during the pause.
	if !blocked(l, 0, 30*time.Millisecond) {
		t.Fatal("a call was admitted during the pause")
	}
}

func TestLimiterNeverBelowOne(t *testing.T) {
	l := testLimiter(8)
	for range 10 {
		l.mu.Lock()
		l.pausedUntil = time.Time{} // as if each pause had passed
		l.mu.Unlock()
		tk := mustAcquire(t, l, 0)
		l.throttle(tk, time.Millisecond, nil)
	}
	if s := l.state(); s.Allowed != 1 {
		t.Fatalf("after 10 throttles in a row: %+v", s)
	}
}

// TestLimiterProbe: when a pause ends, one request goes alone; the rest
// follow once it has succeeded.
func TestLimiterProbe(t *testing.T) {
	l := testLimiter(4)
	tk := mustAcquire(t, l, 0)
	l.throttle(tk, 20*time.Millisecond, nil)
	probe := mustAcquire(t, l, 0) // waits out the pause
	if !probe.probe {
		t.Fatal("the first request after the pause is not a probe")
	}
	if !blocked(l, 0, 30*time.Millisecond) {
		t.Fatal("a second request went out beside the probe")
	}
	l.done(probe, 0)
	a, b := mustAcquire(t, l, 0), mustAcquire(t, l, 0)
	if a.probe || b.probe {
		t.Fatal("still probing after the probe succeeded")
	}
	if s := l.state(); s.InFlight != 2 || s.Allowed != 2 {
		t.Fatalf("after the probe: %+v", s)
	}
}

// TestLimiterCreepsBack: +1 every increaseEvery successes at the current
// limit, up to the configured maximum and no further.
func TestLimiterCreepsBack(t *testing.T) {
	l := testLimiter(8)
	l.mu.Lock()
	l.allowed = 1
	l.mu.Unlock()
	for i := 1; i <= 40; i++ {
		l.done(mustAcquire(t, l, 0), 0)
		want := min(1+i/increaseEvery, 8)
		if got := l.state().Allowed; got != want {
			t.Fatalf("after %d successes: %d allowed, want %d", i, got, want)
		}
	}
}

// TestLimiterStaleSuccess: a request sent before a halving says nothing
// about the new limit, so its success does not count towards raising it.
func TestLimiterStaleSuccess(t *testing.T) {
	l := testLimiter(8)
	var old []ticket
	for range 5 {
		old = append(old, mustAcquire(t, l, 0))
	}
	l.throttle(old[0], time.Nanosecond, nil)
	for _, tk := range old[1:] {
		l.done(tk, 0)
	}
	l.mu.Lock()
	successes := l.successes
	l.mu.Unlock()
	if s := l.state(); s.Allowed != 4 || successes != 0 {
		t.Fatalf("stale successes counted: %+v, %d successes", s, successes)
	}
}

func TestLimiterCancelWhileQueued(t *testing.T) {
	l := testLimiter(1)
	tk := mustAcquire(t, l, 0)
	if !blocked(l, 0, 20*time.Millisecond) {
		t.Fatal("a second call went over the limit of 1")
	}
	if s := l.state(); s.Waiting != 0 || s.InFlight != 1 {
		t.Fatalf("a caller that gave up is still queued: %+v", s)
	}
	l.failed(tk, 0)
	l.done(mustAcquire(t, l, 0), 0)
}

// TestLimiterRetryAfterBeyondCap: a pause longer than the caller would
// wait fails the queued and the new callers at once.
func TestLimiterRetryAfterBeyondCap(t *testing.T) {
	l := testLimiter(4)
	tk := mustAcquire(t, l, 0)
	tooLong := &Failure{Kind: KindRateLimited, Status: 429, detail: "HTTP 429: slow down", step: "judge_error"}
	l.throttle(tk, time.Hour, tooLong)
	_, err := l.acquire(context.Background(), 0)
	f := failureOf(t, err)
	if f.Kind != KindRateLimited || !strings.Contains(f.Error(), "paused for another 1h0m0s") {
		t.Fatalf("got %v", f)
	}
}

func TestBucket(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name      string
		perMinute int
		spend     []int // spent one after the other at t0
		cost      int
		want      time.Duration
	}{
		{"full bucket", 60, nil, 1, 0},
		{"one a second", 60, []int{1}, 1, time.Second},
		{"a second's worth at once", 600, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 1, 100 * time.Millisecond},
		// A request larger than the bucket goes when it is full and
		// leaves a debt that the next one waits out.
		{"large request into debt", 600, []int{100}, 1, 9100 * time.Millisecond},
		{"large request waits for a full bucket only", 600, []int{5}, 100, 500 * time.Millisecond},
	}
	for _, tc := range cases {
		b := newBucket(tc.perMinute, t0)
		for _, c := range tc.spend {
			if d := b.wait(t0, c); d != 0 {
				t.Fatalf("%s: spending %d had to wait %s", tc.name, c, d)
			}
			b.take(t0, c)
		}
		if got := b.wait(t0, tc.cost); got < tc.want-time.Millisecond || got > tc.want+time.Millisecond {
			t.Errorf("%s: wait %s, want %s", tc.name, got, tc.want)
		}
		if got := b.wait(t0.Add(tc.want), tc.cost); got != 0 {
			t.Errorf("%s: still %s to wait once the wait is over", tc.name, got)
		}
	}
	if newBucket(0, t0) != nil || newBucket(0, t0).wait(t0, 1e9) != 0 {
		t.Error("no budget is no limit")
	}
}

// TestLimiterTokenBudget: a call's estimate is charged before it is sent
// and corrected by the usage after.
func TestLimiterTokenBudget(t *testing.T) {
	l := newLimiter(8, 0, 600, time.Minute, func(int) time.Duration { return time.Hour }) // 10 tokens a second
	tk := mustAcquire(t, l, 100)
	if !blocked(l, 1, 30*time.Millisecond) {
		t.Fatal("a call went out with the token budget 90 in debt")
	}
	l.done(tk, 2) // it cost 2, not 100: the debt is cancelled
	l.done(mustAcquire(t, l, 1), 0)
	rpm := newLimiter(8, 60, 0, time.Minute, nil)
	rpm.done(mustAcquire(t, rpm, 0), 0)
	if !blocked(rpm, 0, 30*time.Millisecond) {
		t.Fatal("--rpm 60 let a second request through at once")
	}
}

func TestLimitStateString(t *testing.T) {
	cases := []struct {
		s    LimitState
		want string
	}{
		{LimitState{InFlight: 64, Allowed: 64, Max: 64}, ""},
		{LimitState{InFlight: 12, Allowed: 64, Max: 64, Paused: time.Second}, "rate limited: 12 in flight of 64, paused 1.0s"},
		{LimitState{InFlight: 3, Allowed: 8, Max: 64}, "rate limited: 3 in flight of 8 (max 64)"},
		{LimitState{InFlight: 1, Allowed: 1, Max: 16, Paused: 2500 * time.Millisecond, Throttled: 9}, "rate limited: 1 in flight of 1 (max 16), paused 2.5s"},
	}
	for _, tc := range cases {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}
