package fold

import "testing"

func TestQuote(t *testing.T) {
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
		start, end, ok := Quote(tt.chunk, tt.quote)
		got := ""
		if ok {
			got = tt.chunk[start:end]
		}
		if got != tt.match {
			t.Errorf("Quote(%q, %q) = %q, want %q", tt.chunk, tt.quote, got, tt.match)
		}
	}
}
