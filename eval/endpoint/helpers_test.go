package endpoint

import (
	"encoding/json"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
)

// newTestClient is a client of baseURL with fast backoff, so that tests
// which expect retries do not wait for them.
func newTestClient(t testing.TB, baseURL string, cfg Config) *Client {
	t.Helper()
	cfg.BaseURL = baseURL
	if cfg.BackoffBase == 0 {
		cfg.BackoffBase, cfg.BackoffMax = time.Millisecond, 5*time.Millisecond
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 20 * time.Second
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func chatReq(task string) eval.ChatRequest {
	return eval.ChatRequest{
		Model: "judge-model", Task: task,
		Messages:       []eval.Message{{Role: "user", Content: "Is the sky blue? Answer in JSON."}},
		ResponseFormat: eval.ResponseFormat{Type: "json_schema", Name: task, Schema: json.RawMessage(`{"type":"object"}`)},
	}
}

// failureOf finds the Failure an error of this package wraps, failing the
// test when there is none.
func failureOf(t testing.TB, err error) *Failure {
	t.Helper()
	var f *Failure
	if !errors.As(err, &f) {
		t.Fatalf("no *Failure in %T %v", err, err)
	}
	return f
}

// countingTransport counts the requests that reach the wire (or the dial),
// for faults with no server to count them.
type countingTransport struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.base.RoundTrip(r)
}
