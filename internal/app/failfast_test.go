package app

import (
	"bytes"
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/store"
)

// endpointConfig is a judge at baseURL, with a key and small limits.
func endpointConfig(baseURL string) *Config {
	return &Config{BaseURL: baseURL, APIKey: "sk-check-0123456789", APIType: "openai", Model: "judge", EmbeddingModel: "emb",
		EmbedFormat: "float", Strictness: 3, Concurrency: 2,
		Timeout: 5 * time.Second, MaxRetries: 1, Metrics: "all", Lang: "auto"}
}

// A run against an endpoint that refuses every call the same way stops
// within seconds with the reason, instead of failing every sample.
func TestRunStopsFastWhenTheJudgeIsUnusable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	unauthorised := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		return fakejudge.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: sk-te...","type":"invalid_request_error","code":"invalid_api_key"}}`}
	})
	defer unauthorised.Close()
	for name, tc := range map[string]struct{ url, want string }{
		"nothing listening": {refused, ln.Addr().String()},
		"key refused":       {unauthorised.BaseURL(), "check OPENAI_API_KEY (the endpoint answered 401: Incorrect API key provided"},
	} {
		t.Run(name, func(t *testing.T) {
			st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
			cfg := endpointConfig(tc.url)
			cfg.Dataset = smallDataset(t, 40)
			cfg.MaxRetries = 6
			s, err := Prepare(parsed(t, cfg), st, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var stderr bytes.Buffer
			start := time.Now()
			code, err := Headless(context.Background(), s, io.Discard, &stderr)
			took := time.Since(start)
			host := strings.TrimPrefix(strings.TrimPrefix(tc.url, "http://"), "https://")
			if code != exit.Fatal || err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "the run stopped") ||
				!strings.Contains(err.Error(), strings.Split(host, "/")[0]) {
				t.Fatalf("exit %d, err %v; want exit 1 naming %q", code, err, tc.want)
			}
			if took > 5*time.Second {
				t.Errorf("took %s to stop", took)
			}
			if runs, _ := st.Runs(); len(runs) != 1 || !runs[0].Cancelled {
				t.Fatalf("the stopped run is not recorded as interrupted: %+v", runs)
			}
			t.Logf("%s: stopped in %s: %v", name, took.Round(time.Millisecond), err)
		})
	}
}

// Credit that runs out mid-run (DeepSeek's 402) fails every later call: the
// run stops on the streak with the reason and how to go on, rather than
// ending every remaining sample as a judge_error.
func TestRunStopsWhenCreditRunsOutMidRun(t *testing.T) {
	const spent = `{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}`
	var mu sync.Mutex
	answered, refused := 0, 0
	out := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if answered < 20 {
			answered++
			return false
		}
		refused++
		return true
	}
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		if out() {
			return fakejudge.Reply{Status: 402, Body: spent}
		}
		return fakejudge.Generic(r)
	})
	defer srv.Close()
	srv.Set(func(s *fakejudge.Server) {
		s.EmbedFault = func([]string) (fakejudge.Reply, bool) {
			if out() {
				return fakejudge.Reply{Status: 402, Body: spent}, true
			}
			return fakejudge.Reply{}, false
		}
	})
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	cfg := endpointConfig(srv.BaseURL())
	cfg.Dataset = smallDataset(t, 200)
	s, err := Prepare(parsed(t, cfg), st, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	code, err := Headless(context.Background(), s, io.Discard, io.Discard)
	if code != exit.Fatal || err == nil || !strings.Contains(err.Error(), "the run stopped") || !strings.Contains(err.Error(), "Insufficient Balance") ||
		!strings.Contains(err.Error(), "--resume") {
		t.Fatalf("exit %d, err %v; want exit 1 saying the credit is spent and how to resume", code, err)
	}
	mu.Lock()
	defer mu.Unlock()
	// The streak and the calls in flight with it, not a call per remaining sample.
	if refused > 20 {
		t.Errorf("%d calls refused for credit before the run stopped", refused)
	}
	t.Logf("stopped after %d calls refused: %v", refused, err)
}
