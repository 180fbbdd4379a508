package app

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/store"
)

// y in the raw view copies the calls as the cache holds them: the request
// with its messages, the reply, and a call that is not cached by its key.
func TestRawCallsJSON(t *testing.T) {
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	req := eval.ChatRequest{Endpoint: "api.example/v1/chat/completions", Model: "judge", Task: "faithfulness_statements",
		Messages: []eval.Message{{Role: "user", Content: "split <this> & that"}}}
	if err := st.PutChat(req.Key(), req, eval.ChatResponse{Choices: []string{`{"statements":["a"]}`}}); err != nil {
		t.Fatal(err)
	}
	b, err := RawCallsJSON(st)([]string{req.Key(), "missing-key-0123"})
	if err != nil {
		t.Fatal(err)
	}
	var calls []struct {
		Key     string `json:"key"`
		Cached  bool   `json:"cached"`
		Model   string `json:"model"`
		Request struct {
			Messages []eval.Message `json:"messages"`
		} `json:"request"`
		Response eval.ChatResponse `json:"response"`
	}
	if err := json.Unmarshal(b, &calls); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	if len(calls) != 2 || !calls[0].Cached || calls[0].Key != req.Key() || calls[0].Model != "judge" ||
		len(calls[0].Request.Messages) != 1 || calls[0].Request.Messages[0].Content != "split <this> & that" ||
		len(calls[0].Response.Choices) != 1 || calls[1].Cached || calls[1].Key != "missing-key-0123" {
		t.Fatalf("calls:\n%s", b)
	}
}

// The raw view shows a reasoning model's reasoning apart from its reply,
// with the reasoning tokens, as the cache keeps them.
func TestRawCallsShowReasoning(t *testing.T) {
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	req := eval.ChatRequest{Endpoint: "api.example/v1", Model: "qwen3", Task: "faithfulness_verdicts",
		Messages: []eval.Message{{Role: "user", Content: "judge"}}}
	resp := eval.ChatResponse{Choices: []string{`{"statements":[]}`}, Reasoning: []string{"the context says the number stays"},
		Usage: eval.Usage{PromptTokens: 10, CompletionTokens: 40, ReasoningTokens: 30}}
	if err := st.PutChat(req.Key(), req, resp); err != nil {
		t.Fatal(err)
	}
	out, err := RawCalls(st)([]string{req.Key()})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[reasoning 1, never parsed]", "the context says the number stays", "[reply 1]", "40 completion (30 reasoning)"} {
		if !strings.Contains(out, want) {
			t.Errorf("raw view lacks %q:\n%s", want, out)
		}
	}
}
