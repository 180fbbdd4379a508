package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// brokenDefaultDir is a user whose TUI edit left a broken override in the
// default directory ($XDG_CONFIG_HOME/ragscope/prompts).
func brokenDefaultDir(t *testing.T) (env []string, file string) {
	t.Helper()
	cfg := t.TempDir()
	pdir := filepath.Join(cfg, "ragscope", "prompts")
	if err := os.MkdirAll(pdir, 0o700); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(pdir, "faithfulness_verdicts.en.tmpl")
	if err := os.WriteFile(file, []byte("line one\n{{if}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return cleanEnv(t, "XDG_CONFIG_HOME="+cfg), file
}

func TestBrokenDefaultOverrideSpareOfflineAndList(t *testing.T) {
	env, file := brokenDefaultDir(t)
	data := smallDataset(t, 2)
	db := filepath.Join(t.TempDir(), "r.db")
	for _, args := range [][]string{
		{"run", "--headless", "--offline", "--db", db, data},
		{"run", "--headless", "--db", db, data}, // no key: the offline demo
	} {
		if r := runBin(t, env, args...); r.code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}

	ls := runBin(t, env, "prompts", "list")
	if ls.code != exitOK || !strings.Contains(ls.stdout, "override (BROKEN: "+file+":2:") {
		t.Fatalf("list: exit %d\n%s%s", ls.code, ls.stdout, ls.stderr)
	}
	sh := runBin(t, env, "prompts", "show", "faithfulness_verdicts")
	if sh.code == exitOK || !strings.Contains(sh.stderr, file+":2:") || strings.Contains(sh.stderr, "--prompts") {
		t.Fatalf("show: exit %d\n%s", sh.code, sh.stderr)
	}
	if ok := runBin(t, env, "prompts", "show", "faithfulness_verdicts", "--lang", "zh"); ok.code != exitOK {
		t.Fatalf("show of a good one: exit %d\n%s", ok.code, ok.stderr)
	}

	// The LLM judge needs the prompts: it stops, naming the default dir.
	llm := runBin(t, append(env, "OPENAI_API_KEY=k", "OPENAI_BASE_URL=http://127.0.0.1:1/v1"), "run", "--headless", "--db", db, data)
	if llm.code != exitUsage || !strings.Contains(llm.stderr, "prompt override dir (default)") ||
		strings.Contains(llm.stderr, "--prompts:") || !strings.Contains(llm.stderr, "prompts reset") {
		t.Fatalf("run with a broken override: exit %d\n%s", llm.code, llm.stderr)
	}
}

func TestPromptsReset(t *testing.T) {
	env, file := brokenDefaultDir(t)
	draft := file + ".draft"
	os.WriteFile(draft, []byte("{{if}}"), 0o600)
	zh := filepath.Join(filepath.Dir(file), "faithfulness_verdicts.zh.tmpl")
	os.WriteFile(zh, []byte("x"), 0o600)

	r := runBin(t, env, "prompts", "reset", "faithfulness_verdicts", "--lang", "en")
	if r.code != exitOK || !strings.Contains(r.stdout, "removed "+file+"\n") || !strings.Contains(r.stdout, "removed "+draft+"\n") {
		t.Fatalf("reset: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, p := range []string{file, draft} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s still there", p)
		}
	}
	if _, err := os.Stat(zh); err != nil {
		t.Fatal("--lang en removed the zh override")
	}
	if r := runBin(t, env, "prompts", "reset", "faithfulness_verdicts"); r.code != exitOK || !strings.Contains(r.stdout, "removed "+zh) {
		t.Fatalf("reset (all languages): exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBin(t, env, "prompts", "reset", "faithfulness_verdicts"); r.code != exitOK || !strings.Contains(r.stdout, "no override") {
		t.Fatalf("reset again: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	ls := runBin(t, env, "prompts", "list")
	if ls.code != exitOK || strings.Contains(ls.stdout, "override") {
		t.Fatalf("list after reset: %s%s", ls.stdout, ls.stderr)
	}
	bad := runBin(t, env, "prompts", "reset", "faithfulnes")
	if bad.code != exitUsage || !strings.Contains(bad.stderr, "faithfulness_verdicts") {
		t.Fatalf("unknown task: exit %d\n%s", bad.code, bad.stderr)
	}
	if bad := runBin(t, env, "prompts", "reset", "faithfulness_verdicts", "--lang", "fr"); bad.code != exitUsage {
		t.Fatalf("unknown lang: exit %d\n%s", bad.code, bad.stderr)
	}
}
