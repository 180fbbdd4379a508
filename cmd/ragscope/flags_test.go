package main

import (
	"strings"
	"testing"
)

func TestByteSizeFlag(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1 << 20, "512KiB": 512 << 10, "8MiB": 8 << 20, "8 MB": 8 << 20, "1g": 1 << 30, "100B": 100} {
		var n int64
		if err := (byteSize{&n}).Set(in); err != nil || n != want {
			t.Errorf("%q: %d, %v; want %d", in, n, err, want)
		}
	}
	for _, bad := range []string{"", "MiB", "-1", "0", "8XB", "1.5MiB"} {
		var n int64
		if err := (byteSize{&n}).Set(bad); err == nil {
			t.Errorf("%q accepted as %d", bad, n)
		}
	}
}

// Settings that a default would quietly replace are refused with the flag named.
func TestNonsenseSettingsAreRefused(t *testing.T) {
	for _, args := range [][]string{
		{"--concurrency", "0"}, {"--concurrency", "-3"}, {"--strictness", "0"}, {"--max-retries", "-1"},
		{"--request-timeout", "0s"}, {"--rpm", "-5"},
	} {
		r := runBin(t, cleanEnv(t), append(append([]string{"run", "--headless"}, args...), repoFile("testdata/demo.jsonl"))...)
		if r.code != exitUsage || !strings.Contains(r.stderr, args[0]) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming the flag", args, r.code, r.stderr)
		}
	}
}
