package endpoint

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"absent", nil, 0},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"negative", map[string]string{"Retry-After": "-3"}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"milliseconds variant", map[string]string{"Retry-After-Ms": "250"}, 250 * time.Millisecond},
		// Azure sends both, the seconds rounded up.
		{"milliseconds first", map[string]string{"Retry-After": "1", "Retry-After-Ms": "250"}, 250 * time.Millisecond},
	}
	for _, tc := range cases {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		if got := parseRetryAfter(h, now); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestParseRateLimitReset: OpenAI's x-ratelimit-reset-* are Go durations
// ("1s", "6m0s", "12ms": community.openai.com/t/1268905); the limit that
// is spent decides, and a reset over --max-retry-after is waited up to the
// cap, not refused: it is when the limit is whole again, not a wait asked.
func TestParseRateLimitReset(t *testing.T) {
	cases := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"absent", nil, 0},
		{"requests spent", map[string]string{"X-Ratelimit-Reset-Requests": "1s", "X-Ratelimit-Remaining-Requests": "0", "X-Ratelimit-Reset-Tokens": "6m0s", "X-Ratelimit-Remaining-Tokens": "1200"}, time.Second},
		{"tokens spent", map[string]string{"X-Ratelimit-Reset-Requests": "12ms", "X-Ratelimit-Remaining-Requests": "4999", "X-Ratelimit-Reset-Tokens": "6m0s", "X-Ratelimit-Remaining-Tokens": "0"}, 6 * time.Minute},
		{"none said spent: the shorter", map[string]string{"X-Ratelimit-Reset-Requests": "1s", "X-Ratelimit-Reset-Tokens": "6m0s"}, time.Second},
		{"whole seconds (Azure)", map[string]string{"X-Ratelimit-Reset-Tokens": "7"}, 7 * time.Second},
		{"zero and garbage", map[string]string{"X-Ratelimit-Reset-Requests": "0", "X-Ratelimit-Reset-Tokens": "soon"}, 0},
	}
	for _, tc := range cases {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		if got := parseRateLimitReset(h); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	f := classify(&httpError{status: 429, resetAfter: 6 * time.Minute}, facts{maxRetryAfter: 2 * time.Minute})
	if f.Kind != KindRateLimited || !f.retry || f.retryAfter != 2*time.Minute {
		t.Errorf("a reset beyond the cap: %+v", f)
	}
	f = classify(&httpError{status: 429, retryAfter: 3 * time.Second, resetAfter: time.Minute}, facts{maxRetryAfter: 2 * time.Minute})
	if f.retryAfter != 3*time.Second {
		t.Errorf("Retry-After given, the reset used: %+v", f)
	}
}

// retryable reports whether an attempt that failed with err is worth
// another: 408, 409, 429 and 5xx, timeouts, broken connections, malformed
// or truncated replies. Not other 4xx (bad request, auth, unknown model), a
// refused connection or an unknown host: asking again will not help.
func retryable(err error, timedOut bool) bool {
	return classify(err, facts{timedOut: timedOut}).retry
}

func TestRetryable(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"429", &httpError{status: 429}, true},
		{"500", &httpError{status: 500}, true},
		{"503", &httpError{status: 503}, true},
		{"408", &httpError{status: 408}, true},
		{"400", &httpError{status: 400}, false},
		{"401", &httpError{status: 401}, false},
		{"404 model", &httpError{status: 404}, false},
		{"truncated reply", &contentError{status: eval.StatusParseError, msg: "cut"}, true},
		{"wrong vector count", &contentError{status: eval.StatusJudgeError, msg: "n"}, false},
		{"connection reset", fmt.Errorf("read: %w", errors.New("connection reset by peer")), true},
		{"unexpected EOF", fmt.Errorf("reading body: %w", io.ErrUnexpectedEOF), true},
		{"something else", errors.New("boom"), false},
		// Retried six times these cost 29 s and changed nothing.
		{"connection refused", &url.Error{Op: "Post", URL: "http://127.0.0.1:9/v1/chat/completions",
			Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}, false},
		{"unknown host", &url.Error{Op: "Post", URL: "http://judge.invalid/v1", Err: &net.DNSError{Err: "no such host", Name: "judge.invalid", IsNotFound: true}}, false},
		{"DNS timeout", &net.DNSError{Err: "i/o timeout", Name: "judge.example", IsTimeout: true}, true},
		{"403", &httpError{status: 403}, false},
		{"429 out of quota", &httpError{status: 429, body: []byte(`{"error":{"type":"insufficient_quota","message":"no"}}`)}, false},
		{"503 HTML", &httpError{status: 503, html: true, body: []byte("<html>down</html>")}, true},
		{"200 HTML", &httpError{status: 200, html: true, body: []byte("<html>web UI</html>")}, false},
		{"200 error object", &httpError{status: 200, body: []byte(`{"error":{"message":"upstream failed"}}`)}, true},
		{"reply too large", &replyTooLarge{read: 9, limit: 8}, false},
	}
	for _, tc := range cases {
		if got := retryable(tc.err, false); got != tc.want {
			t.Errorf("%s: retryable %v, want %v", tc.name, got, tc.want)
		}
	}
	if !retryable(errors.New("boom"), true) {
		t.Error("a timed-out attempt must be retried")
	}
}

func TestBackoffStaysWithinBounds(t *testing.T) {
	c, err := New(Config{BackoffBase: 10 * time.Millisecond, BackoffMax: 80 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < 40; n++ {
		ceiling := min(10*time.Millisecond<<min(n, 20), 80*time.Millisecond)
		for i := 0; i < 50; i++ {
			if d := c.backoff(n); d <= 0 || d > ceiling {
				t.Fatalf("attempt %d: backoff %s outside (0, %s]", n, d, ceiling)
			}
		}
	}
}

func TestConfigErrors(t *testing.T) {
	if _, err := New(Config{APIType: "bedrock"}); err == nil {
		t.Error("unknown --api-type accepted")
	}
	if _, err := New(Config{APIType: "azure"}); err == nil {
		t.Error("azure without a base URL accepted")
	}
}
