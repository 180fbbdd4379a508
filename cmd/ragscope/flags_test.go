package main

import (
	"testing"
)

func TestByteSizeFlag(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1 << 20, "512KiB": 512 << 10, "8MiB": 8 << 20, "8 MB": 8 << 20, "1g": 1 << 30, "100B": 100} {
		var n int64
		if err := byteSize(&n).Set(in); err != nil || n != want {
			t.Errorf("%q: %d, %v; want %d", in, n, err, want)
		}
	}
	for _, bad := range []string{"", "MiB", "-1", "0", "8XB", "1.5MiB"} {
		var n int64
		if err := byteSize(&n).Set(bad); err == nil {
			t.Errorf("%q accepted as %d", bad, n)
		}
	}
}
