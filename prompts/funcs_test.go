package prompts

import "testing"

func TestListHelpers(t *testing.T) {
	tests := []struct {
		name           string
		in             []string
		numbered, chks string
	}{
		{"empty", nil, "", ""},
		{"one", []string{"a"}, "1. a", "[1] a"},
		{"trimmed", []string{"  a \n", "b"}, "1. a\n2. b", "[1] a\n\n[2] b"},
		{"multi-line items stay under their number",
			[]string{"a\nb", "c\r\n\r\nd"},
			"1. a\n   b\n2. c\n\n   d",
			"[1] a\n    b\n\n[2] c\n\n    d"},
		{"a line that looks like a number is indented", []string{"x\n2. y"}, "1. x\n   2. y", "[1] x\n    2. y"},
		{"ten items widen the prefix", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "ten\nmore"},
			"1. 1\n2. 2\n3. 3\n4. 4\n5. 5\n6. 6\n7. 7\n8. 8\n9. 9\n10. ten\n    more", ""},
	}
	for _, tt := range tests {
		if got := numbered(tt.in); got != tt.numbered {
			t.Errorf("%s: numbered = %q, want %q", tt.name, got, tt.numbered)
		}
		if tt.chks != "" || len(tt.in) == 0 {
			if got := chunks(tt.in); got != tt.chks {
				t.Errorf("%s: chunks = %q, want %q", tt.name, got, tt.chks)
			}
		}
	}
}
