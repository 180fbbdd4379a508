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
