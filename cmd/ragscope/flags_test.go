package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval/fakejudge"
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

// --config FILE is read (it was parsed before the flags and ignored): an
// unknown key in it is an error naming it, and its base_url takes effect.
func TestConfigFlagIsRead(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"no_such_key": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, cleanEnv(t), "run", "--headless", "--config", bad, repoFile("testdata/demo.jsonl"))
	if r.code != exitUsage || !strings.Contains(r.stderr, `unknown key "no_such_key"`) {
		t.Fatalf("--config with an unknown key: exit %d\n%s", r.code, r.stderr)
	}
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"base_url": "`+srv.BaseURL()+`", "concurrency": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runBin(t, cleanEnv(t, "OPENAI_API_KEY=sk-config-0123456789"), "run", "--headless", "--config", good, "--db", filepath.Join(dir, "r.db"), repoFile("testdata/demo.jsonl"))
	if r.code != exitOK || srv.Count("") == 0 {
		t.Fatalf("--config base_url: exit %d, %d calls at the configured endpoint\n%s", r.code, srv.Count(""), r.stderr)
	}
}
