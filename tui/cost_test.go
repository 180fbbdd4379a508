package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// The header prices the tokens it counts: chat tokens at the chat model's
// price, embedding tokens at the embedding model's; a cached call costs
// nothing, a model without a price makes the cost unknown, the offline
// judge costs nothing.
func TestHeaderCost(t *testing.T) {
	call := func(task string, cached bool, in, out int) eval.Event {
		return eval.Event{Kind: eval.EventCall,
			Call: &eval.CallRecord{Task: task, Cached: cached, Tokens: eval.Usage{PromptTokens: in, CompletionTokens: out}}}
	}
	events := []eval.Event{
		call("faithfulness_statements", false, 1_000_000, 100_000),
		call(eval.TaskEmbeddings, false, 2_000_000, 0),
		call("faithfulness_verdicts", true, 5_000_000, 5_000_000), // the cache's: free
	}
	chat := &report.ModelPrice{Model: "c", Prompt: 1, Completion: 10}
	emb := &report.ModelPrice{Model: "e", Prompt: 0.5}
	tests := []struct {
		name    string
		pricing *report.Pricing
		ascii   bool
		want    string // after "tokens 3.1M"; "" for no cost
	}{
		{"priced", &report.Pricing{Chat: chat, Embeddings: emb}, false, " $3.00"}, // 1 + 1 + 1
		{"embedding model unpriced", &report.Pricing{Chat: chat, Unpriced: []string{"e"}}, false, " $—"},
		{"unpriced, ascii", &report.Pricing{Embeddings: emb, Unpriced: []string{"c"}}, true, " $-"},
		{"offline", &report.Pricing{Offline: true}, false, " $0"},
		{"recorded before costs were", nil, false, ""},
	}
	for _, tt := range tests {
		for _, w := range []int{80, 120} {
			m := newTestModel(t, Options{Dataset: "d.jsonl", Live: true, Total: 2, Started: fixedStart, Pricing: tt.pricing, ASCII: tt.ascii}, w, 30)
			m.Update(EventsMsg{Events: events})
			line := ansi.Strip(m.progressLine())
			i := strings.Index(line, "tokens 3.1M")
			if i < 0 || line[i+len("tokens 3.1M"):] != tt.want || len(line) > 0 && ansi.StringWidth(line) > w {
				t.Errorf("%s at %d columns: %q, want it to end in %q", tt.name, w, line, "tokens 3.1M"+tt.want)
			}
		}
	}
}
