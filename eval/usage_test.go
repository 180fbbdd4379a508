package eval

import "testing"

// usageOfCall counts a call the way the run-wide counters always have.
func TestUsageOfCall(t *testing.T) {
	tok := Usage{PromptTokens: 7, CompletionTokens: 3}
	tests := []struct {
		name  string
		cr    CallRecord
		embed bool
		want  TaskUsage
	}{
		{"sent", CallRecord{Tokens: tok}, false, TaskUsage{Chat: 1, Usage: tok}},
		{"embedding sent", CallRecord{Tokens: tok}, true, TaskUsage{Embeddings: 1, Usage: tok}},
		{"cached: the tokens were paid before", CallRecord{Cached: true, Tokens: tok}, false, TaskUsage{CacheHits: 1}},
		{"failed: no call sent", CallRecord{Error: "HTTP 500", Tokens: tok}, false, TaskUsage{Usage: tok}},
	}
	for _, tt := range tests {
		if got := usageOfCall(tt.cr, tt.embed); got.Chat != tt.want.Chat || got.Embeddings != tt.want.Embeddings ||
			got.CacheHits != tt.want.CacheHits || got.Usage != tt.want.Usage {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
