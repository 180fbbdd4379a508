package check

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/internal/app"
	"github.com/ragscope/ragscope/internal/exit"
)

// checkConfig's database is the test's own: check remembers what it
// learns of the endpoint beside it.
func checkConfig(t *testing.T, baseURL string) *app.Config {
	return &app.Config{DB: filepath.Join(t.TempDir(), "r.db"), BaseURL: baseURL, APIKey: "sk-check-0123456789", APIType: "openai", Model: "judge", EmbeddingModel: "emb",
		EmbedFormat: "float", Strictness: 3, Concurrency: 2,
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
		{"everything works", fakejudge.Generic, exit.OK, []string{"reachable    yes", "authorised   yes", "replies      follow the task's schema (json_schema)", "n            honoured (2 choices", "reasoning    none", "emb at", "dimensions", "ready"}},
		{"n ignored", oneChoice, exit.OK, []string{"not honoured (1 choice for n=2): a run sends the draws one by one by itself", "profile      n not honoured", "ready"}},
		{"no json_schema", noSchema, exit.OK, []string{"json_schema  refused", "json_object works: a run steps down to it by itself", "profile      json_object (json_schema refused), n not honoured", "ready"}},
		{"replies that are not the schema", func(r *fakejudge.Request) fakejudge.Reply {
			return fakejudge.Reply{Choices: []string{`<think>{"question": "q?", "noncommittal": 0}</think> I would ask about the office.`, `{"question": "q?"}`}}
		}, exit.Fatal, []string{"2 of 2 do not follow the task's schema"}},
		{"qwen3", fakejudge.PersonaQwen3.Wrap(fakejudge.Generic), exit.OK, []string{"reasoning    yes", "% of the reply is reasoning", "--reasoning off has no effect", "profile      reasoning model", "ready"}},
		{"deepseek", fakejudge.PersonaDeepSeek.Wrap(fakejudge.Generic), exit.OK, []string{"json_schema  refused: answer_relevancy_question: HTTP 400: This response_format type is unavailable now", "json_object works", "completion tokens", "profile      json_object (json_schema refused), n not honoured, reasoning model", "ready"}},
		{"ollama-old", fakejudge.PersonaOllamaOld.Wrap(fakejudge.Generic), exit.OK, []string{"replies      follow the task's schema (json_schema)", "profile      n not honoured", "ready"}},
		{"budget", fakejudge.PersonaBudget.Wrap(fakejudge.Generic), exit.OK, []string{"reasoning    yes", "ready"}},
		{"qwq: answers only when streaming", fakejudge.PersonaQwQ.Wrap(fakejudge.Generic), exit.OK, []string{"reasoning    yes", "--reasoning off has no effect on this server (refused: none)", "profile      n not honoured, reasoning model (reasoning kept apart), streamed (the model answers only when streaming)", "ready"}},
		{"key refused", unauthorised, exit.Fatal, []string{"reachable    yes (HTTP 401)", "authorised   no", "OPENAI_API_KEY", "Incorrect API key provided"}},
		{"server error", func(*fakejudge.Request) fakejudge.Reply {
			return fakejudge.Reply{Status: 500, Body: `{"error":{"message":"CUDA out of memory"}}`}
		}, exit.Fatal, []string{"reachable    yes, but it answered HTTP 500", "CUDA out of memory"}},
		{"a reply all reasoning", func(*fakejudge.Request) fakejudge.Reply {
			return fakejudge.Reply{Choices: []string{"<think>The user wants a question about the office"}}
		}, exit.Fatal, []string{"reachable    yes", "reply        ", "reasoning"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakejudge.New(tt.chat)
			defer srv.Close()
			var out bytes.Buffer
			code := Run(context.Background(), checkConfig(t, srv.BaseURL()), &out)
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

// TestCheckFixedFormatRefused: a format the user fixed is never stepped
// down from; check says how to let a run do it.
func TestCheckFixedFormatRefused(t *testing.T) {
	srv := fakejudge.New(fakejudge.PersonaDeepSeek.Wrap(fakejudge.Generic))
	defer srv.Close()
	cfg := checkConfig(t, srv.BaseURL())
	cfg.ResponseFormat = "json_schema"
	var out bytes.Buffer
	if code := Run(context.Background(), cfg, &out); code != exit.Fatal || !strings.Contains(out.String(), "fixed by --response-format") {
		t.Fatalf("exit %d:\n%s", code, out.String())
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
	if code := Run(context.Background(), checkConfig(t, "http://"+addr+"/v1"), &out); code != exit.Fatal {
		t.Fatalf("exit %d", code)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("took %s to find nothing listening", el)
	}
	if !strings.Contains(out.String(), "reachable    no") || !strings.Contains(out.String(), addr) {
		t.Fatalf("output:\n%s", out.String())
	}
}
