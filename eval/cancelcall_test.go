package eval

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// failingClient fails every call with err.
type failingClient struct{ err error }

func (c failingClient) Chat(context.Context, ChatRequest) (ChatResponse, error) {
	return ChatResponse{}, c.err
}

func (c failingClient) Embed(context.Context, EmbedRequest) (EmbedResponse, error) {
	return EmbedResponse{}, c.err
}

// TestCancelledCallIsNoError: a call the run's stop cut short (Ctrl-C) is
// recorded as cancelled and not counted among the run's errors; a call the
// judge failed is.
func TestCancelledCallIsNoError(t *testing.T) {
	tests := []struct {
		name      string
		stop      bool // the run's context is cancelled
		err       error
		cancelled bool
	}{
		{"the run stopped", true, fmt.Errorf("post: %w", context.Canceled), true},
		{"the run stopped, the client says so its way", true, errors.New("faithfulness_statements: cancelled"), true},
		{"a cancelled step", false, NewStepError(StatusCancelled, "faithfulness_statements: cancelled"), true},
		{"the judge failed", false, errors.New("HTTP 500"), false},
	}
	for _, tt := range tests {
		for _, embed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/embed=%v", tt.name, embed), func(t *testing.T) {
				stats := &runStats{}
				rec := &recorder{run: stats}
				ctx, cancel := context.WithCancel(withRecorder(context.Background(), rec))
				defer cancel()
				if tt.stop {
					cancel()
				}
				c := Instrument(failingClient{tt.err})
				if embed {
					_, _ = c.Embed(ctx, EmbedRequest{Texts: []string{"q"}})
				} else {
					_, _ = c.Chat(ctx, ChatRequest{Task: "faithfulness_statements"})
				}
				calls, _ := stats.counts()
				wantErrors := 1
				if tt.cancelled {
					wantErrors = 0
				}
				if calls.Errors != wantErrors || len(rec.calls) != 1 || rec.calls[0].Cancelled != tt.cancelled || rec.calls[0].Error == "" {
					t.Fatalf("errors %d (want %d), calls %+v", calls.Errors, wantErrors, rec.calls)
				}
			})
		}
	}
}
