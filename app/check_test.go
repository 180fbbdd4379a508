package app

import (
	"bytes"
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval/fakejudge"
)

func checkConfig(baseURL string) *Config {
	return &Config{BaseURL: baseURL, APIKey: "sk-check-0123456789", APIType: "openai", Model: "judge", EmbeddingModel: "emb",
		ResponseFormat: "json_schema", EmbedFormat: "float", Strictness: 3, Concurrency: 2,
		Timeout: 5 * time.Second, MaxRetries: 1, Metrics: "all", Lang: "auto"}
}

func TestCheckTellsWhatWorks(t *testing.T) {
	oneChoice := func(r *fakejudge.Request) fakejudge.Reply {
		rep := fakejudge.Generic(r)
		rep.Choices = rep.Choices[:1]
		return rep
	}
	noSchema := func(r *fakejudge.Request) fakejudge.Reply {
		if r.Format == "json_schema" {
			return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"response_format json_schema is not supported by this server","type":"invalid_request_error"}}`}
		}
		return fakejudge.Reply{Choices: []string{`Sure: {"question": "When does the office open?", "noncommittal": 0}`}}
	}
	unauthorised := func(r *fakejudge.Request) fakejudge.Reply {
		return fakejudge.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`}
	}
	tests := []struct {
		name  string
		chat  func(*fakejudge.Request) fakejudge.Reply
		code  int
		wants []string
	}{
		{"everything works", fakejudge.Generic, ExitOK, []string{"reachable    yes", "authorised   yes", "json_schema  supported", "n            honoured (2 choices", "emb at", "dimensions", "ready"}},
		{"n ignored", oneChoice, ExitFatal, []string{"not honoured (1 choice for n=2): use --no-n"}},
		{"no json_schema", noSchema, ExitFatal, []string{"json_schema  refused", "works with --response-format json_object"}},
		{"key refused", unauthorised, ExitFatal, []string{"reachable    no", "OPENAI_API_KEY", "Incorrect API key provided"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakejudge.New(tt.chat)
			defer srv.Close()
			var out bytes.Buffer
			code := Check(context.Background(), checkConfig(srv.BaseURL()), &out)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			for _, w := range tt.wants {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			if strings.Contains(out.String(), "sk-check-0123456789") {
				t.Error("the key is printed")
			}
		})
	}
}

func TestCheckUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	var out bytes.Buffer
	start := time.Now()
	if code := Check(context.Background(), checkConfig("http://"+addr+"/v1"), &out); code != ExitFatal {
		t.Fatalf("exit %d", code)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("took %s to find nothing listening", el)
	}
	if !strings.Contains(out.String(), "reachable    no") || !strings.Contains(out.String(), addr) {
		t.Fatalf("output:\n%s", out.String())
	}
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
			st := openShared(t, filepath.Join(t.TempDir(), "r.db"), Hold)
			cfg := checkConfig(tc.url)
			cfg.Dataset = smallDataset(t, 40)
			cfg.MaxRetries = 6
			s, err := Prepare(cfg, st, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var stderr bytes.Buffer
			start := time.Now()
			code, err := Headless(context.Background(), s, io.Discard, &stderr)
			took := time.Since(start)
			host := strings.TrimPrefix(strings.TrimPrefix(tc.url, "http://"), "https://")
			if code != ExitFatal || err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "the run stopped") ||
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
