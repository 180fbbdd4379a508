package eval

import "testing"

func TestFindQuote(t *testing.T) {
	tests := []struct {
		chunk, quote, match string // match "" means not found
	}{
		{"The refund is paid within 3 days.", "paid within 3 days", "paid within 3 days"},
		{"The refund is paid within 3 days.", "“Paid  within\n3 DAYS.”", "paid within 3 days"},
		{"纳税人识别号不变，无需重新办理税务登记。", "无需重新办理 税务登记。", "无需重新办理税务登记"},
		{"纳税人识别号不变", "纳税人识别号保持不变", ""},
		{"ＡＰＩ限额为６０次", "API限额为60次", "ＡＰＩ限额为６０次"},
		{"Par\x1b[31mis is big", "Paris is", "Par\x1b[31mis is"},
		{"one two three", "one … three", ""},
		{"one two three", "…", ""},
		{"one two three", "onetwo", ""},
	}
	for _, tt := range tests {
		start, end, ok := FindQuote(tt.chunk, tt.quote)
		got := ""
		if ok {
			got = tt.chunk[start:end]
		}
		if got != tt.match {
			t.Errorf("FindQuote(%q, %q) = %q, want %q", tt.chunk, tt.quote, got, tt.match)
		}
	}
}

func TestCitationCheck(t *testing.T) {
	ctx := []string{"alpha beta", "gamma delta"}
	tests := []struct {
		c    Citation
		flag string
	}{
		{Citation{Chunk: 2, Quote: "gamma"}, ""},
		{Citation{Chunk: 1, Quote: "gamma"}, "quote not found in chunk 1"},
		{Citation{Chunk: 3, Quote: "gamma"}, "quote not found in chunk 3"},
		{Citation{Chunk: 0, Quote: "delta"}, ""},
		{Citation{Chunk: 0, Quote: "epsilon"}, "quote not found in any chunk"},
		{Citation{Chunk: 2, Quote: ""}, ""}, // nothing to verify
		{Citation{}, ""},
	}
	for _, tt := range tests {
		c := tt.c
		c.Check(ctx)
		if c.Flag != tt.flag || c.QuoteNotFound != (tt.flag != "") {
			t.Errorf("%+v: flag %q (%v), want %q", tt.c, c.Flag, c.QuoteNotFound, tt.flag)
		}
	}
	var none *Citation
	none.Check(ctx) // no evidence given: nothing to check, no panic
}
