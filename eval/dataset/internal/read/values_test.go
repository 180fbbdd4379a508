package read

import (
	"reflect"
	"testing"
)

func TestPyStringList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{`['a', 'b']`, []string{"a", "b"}, true},
		{`[]`, []string{}, true},
		{`["it's", 'say "hi"',]`, []string{"it's", `say "hi"`}, true},
		{`['line\nbreak', 'tab\t', 'back\\slash', '\x41\u4e2d', 'odd\q']`, []string{"line\nbreak", "tab\t", `back\slash`, "A中", `odd\q`}, true},
		{`['unterminated]`, nil, false},
		{`['a' 'b']`, nil, false},
		{`[1, 2]`, nil, false},
		{`['a'] trailing`, nil, false},
		{`['\u12']`, nil, false},
	}
	for _, tt := range tests {
		got, ok := pyStringList(tt.in)
		if ok != tt.ok || (ok && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("pyStringList(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCellContexts(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{`["a", "b"]`, []string{"a", "b"}, false},
		{`['a', 'b']`, []string{"a", "b"}, false},
		{`[1] 年休假5天。`, []string{"[1] 年休假5天。"}, false},
		{`[注] 年休假5天。`, []string{"[注] 年休假5天。"}, false},
		{`plain chunk`, []string{"plain chunk"}, false},
		{`["年休假5天。", "病假`, nil, true}, // cut short
		{` [ 'a', 'b'`, nil, true},
		{`["a" "b"]`, nil, true},
	}
	for _, tt := range tests {
		got, err := cellContexts(tt.in)
		if (err != nil) != tt.wantErr || !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("cellContexts(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
