package eval

import "testing"

func TestCitationCheck(t *testing.T) {
	ctx := []string{"alpha beta", "gamma delta"}
	tests := []struct {
		c        Citation
		contexts []string
		flag     string
		noChunk  bool // the flag is NoSuchChunk, not QuoteNotFound
	}{
		{Citation{Chunk: 2, Quote: "gamma"}, ctx, "", false},
		{Citation{Chunk: 1, Quote: "gamma"}, ctx, "quote not found in chunk 1", false},
		{Citation{Chunk: 3, Quote: "gamma"}, ctx, "cites chunk 3, but the sample has 2 chunks", true},
		{Citation{Chunk: 3, Quote: ""}, ctx, "cites chunk 3, but the sample has 2 chunks", true},
		{Citation{Chunk: -1, Quote: "gamma"}, ctx, "cites a chunk number that is no rank, but the sample has 2 chunks", true},
		{Citation{Chunk: 1, Quote: "x"}, nil, "cites chunk 1, but the sample has no chunks", true},
		{Citation{Chunk: 2, Quote: "x"}, ctx[:1], "cites chunk 2, but the sample has 1 chunk", true},
		{Citation{Chunk: 0, Quote: "delta"}, ctx, "", false},
		{Citation{Chunk: 0, Quote: "epsilon"}, ctx, "quote not found in any chunk", false},
		{Citation{Chunk: 2, Quote: ""}, ctx, "", false}, // nothing to verify
		{Citation{}, ctx, "", false},
	}
	for _, tt := range tests {
		c := tt.c
		c.Check(tt.contexts)
		flagged := tt.flag != ""
		if c.Flag != tt.flag || c.QuoteNotFound != (flagged && !tt.noChunk) || c.NoSuchChunk != tt.noChunk || c.Flagged() != flagged {
			t.Errorf("%+v: flag %q (quote %v, chunk %v), want %q", tt.c, c.Flag, c.QuoteNotFound, c.NoSuchChunk, tt.flag)
		}
	}
	var none *Citation
	none.Check(ctx) // no evidence given: nothing to check, no panic
}
