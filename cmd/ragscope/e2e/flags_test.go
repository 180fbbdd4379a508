package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval/fakejudge"
)

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

// A number that is not one (NaN, Inf) or out of range is refused as a
// usage error naming the flag, for every float flag and from the settings
// file too; before, --temperature NaN started a run whose every call failed.
func TestBadNumbersAreUsageErrors(t *testing.T) {
	data := repoFile("testdata/demo.jsonl")
	for _, c := range []struct {
		args     []string
		settings string
		says     string
	}{
		{args: []string{"run", "--headless", "--temperature", "NaN", data}, says: "--temperature"},
		{args: []string{"run", "--headless", "--temperature", "nan", data}, says: "--temperature"},
		{args: []string{"run", "--headless", "--temperature", "Inf", data}, says: "--temperature"},
		{args: []string{"run", "--headless", "--temperature", "-Infinity", data}, says: "--temperature"},
		{args: []string{"run", "--headless", "--temperature", "-0.5", data}, says: "--temperature"},
		{args: []string{"run", "--headless", "--confirm-over", "+Inf", data}, says: "--confirm-over"},
		{args: []string{"estimate", "--temperature", "NaN", data}, says: "--temperature"},
		{args: []string{"watch", "--headless", "--once", "--sample", "NaN", data}, says: "--sample"},
		{args: []string{"watch", "--headless", "--once", "--max-rps", "NaN", data}, says: "--max-rps"},
		{args: []string{"watch", "--headless", "--once", "--max-rps", "Inf", data}, says: "--max-rps"},
		{args: []string{"watch", "--headless", "--once", "--temperature", "Inf", data}, says: "--temperature"},
		{args: []string{"run", "--headless", data}, settings: `{"temperature": "NaN"}`, says: `"temperature"`},
	} {
		dir := t.TempDir()
		args := append([]string{}, c.args...)
		args = append(args[:len(args)-1], "--offline", "--db", filepath.Join(dir, "x.db"), args[len(args)-1])
		if c.settings != "" {
			p := filepath.Join(dir, "settings.json")
			if err := os.WriteFile(p, []byte(c.settings), 0o644); err != nil {
				t.Fatal(err)
			}
			args = append([]string{args[0], "--config", p}, args[1:]...)
		}
		r := runBin(t, cleanEnv(t), args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%v %s: exit %d, stderr %q; want exit 2 naming %s", c.args, c.settings, r.code, r.stderr, c.says)
		}
	}
}

// A settings file saved with a UTF-8 BOM (Windows editors) is read as
// datasets are; one with a key twice is refused naming the key and the
// file, instead of the last one winning silently.
func TestSettingsFileBOMAndDuplicateKeys(t *testing.T) {
	data := smallDataset(t, 1)
	for _, c := range []struct {
		name, body string
		code       int
		says       []string
	}{
		{"a BOM", "\ufeff" + `{"concurrency": 3}`, exitOK, nil},
		{"a BOM and whitespace", "\ufeff\n  {\"lang\": \"en\"}\n", exitOK, nil},
		{"a key twice", `{"concurrency": 3, "model": "m", "concurrency": 5}`, exitUsage, []string{`"concurrency"`, "twice", "settings.json"}},
		{"a key twice after a BOM", "\ufeff" + `{"lang": "en", "lang": "zh"}`, exitUsage, []string{`"lang"`, "twice"}},
		{"not an object", `{"lang": "en"} {"lang": "zh"}`, exitUsage, []string{"settings.json"}},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, "settings.json")
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runBin(t, cleanEnv(t), "run", "--headless", "--offline", "--config", p, "--db", filepath.Join(dir, "x.db"), data)
		if r.code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s", c.name, r.code, c.code, r.stderr)
		}
		for _, s := range c.says {
			if !strings.Contains(r.stderr, s) {
				t.Errorf("%s: stderr does not say %s:\n%s", c.name, s, r.stderr)
			}
		}
		if strings.Contains(r.stderr, "ï") {
			t.Errorf("%s: the BOM shows in the message:\n%s", c.name, r.stderr)
		}
	}
}

// --offline-lexicon reaches the offline judge: a team's evasion marks an
// answer noncommittal, a file that cannot be read is refused naming the
// flag, and the settings key is the flag's.
func TestOfflineLexiconFlag(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.jsonl")
	if err := os.WriteFile(data, []byte(`{"id":"a","question":"年假怎么算？","answer":"这个问题请您找部门助理确认。","contexts":["年假按工龄计算。"]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lex := filepath.Join(dir, "team.txt")
	if err := os.WriteFile(lex, []byte("# team\nnoncommittal: 请您找部门助理确认\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, cleanEnv(t), "run", "--headless", "--offline", "--offline-lexicon", filepath.Join(dir, "none.txt"), "--db", filepath.Join(dir, "r.db"), data)
	if r.code != exitUsage || !strings.Contains(r.stderr, "--offline-lexicon") {
		t.Fatalf("a missing lexicon: exit %d\n%s", r.code, r.stderr)
	}
	for _, args := range [][]string{{"--offline-lexicon", lex}, {"--config", writeSettings(t, dir, `{"offline_lexicon": "`+lex+`"}`)}} {
		r = runBin(t, cleanEnv(t), append(append([]string{"run", "--headless", "--offline", "--metrics", "answer_relevancy", "--db", filepath.Join(dir, "r.db")}, args...), data)...)
		if r.code != exitOK || !strings.Contains(r.stdout, `"noncommittal_hint": "请您找部门助理确认"`) {
			t.Errorf("%v: exit %d, the report does not name the team's phrase\n%s", args, r.code, r.stdout+r.stderr)
		}
	}
}

func writeSettings(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
