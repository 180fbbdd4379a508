package termtext

import "testing"

func TestWrapWords(t *testing.T) {
	tests := []struct {
		s      string
		width  int
		indent string
		want   string
	}{
		{"aaa bbb ccc", 7, "  ", "aaa bbb\n  ccc"},
		{"aaa bbb ccc", 0, "  ", "aaa bbb ccc"},
		{"  x: aaa bbb", 9, "    ", "  x: aaa\n    bbb"},
		{"a /a/very/long/path/name b", 8, " ", "a\n /a/very/long/path/name\n b"},
		{"纳税人 识别号 不变", 10, "", "纳税人\n识别号\n不变"},
	}
	for _, tt := range tests {
		if got := WrapWords(tt.s, tt.width, tt.indent); got != tt.want {
			t.Errorf("WrapWords(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}
