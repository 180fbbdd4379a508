package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval/fakejudge"
)

func keysOf(t *testing.T, what string, v any) []string {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is %T, want an object", what, v)
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func hasKeys(t *testing.T, what string, v any, want ...string) {
	t.Helper()
	got := keysOf(t, what, v)
	for _, k := range want {
		if !slicesContains(got, k) {
			t.Errorf("%s lacks %q: has %v", what, k, got)
		}
	}
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// The JSON contract, the estimate sending nothing, and the run
// after it sending exactly the calls estimated.
func TestEstimateJSONAndTheRunAfterIt(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "r.db")
	env := cleanEnv(t, "OPENAI_API_KEY=sk-test-abcdef0123456789", "OPENAI_BASE_URL="+srv.BaseURL())
	demo := repoFile("testdata/demo.jsonl")
	r := runBin(t, env, "estimate", "--json", "--db", db, demo)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if n := srv.Count(""); n != 0 {
		t.Fatalf("estimate sent %d requests", n)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("estimate created the database")
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.stdout)
	}
	hasKeys(t, "estimate", raw, "calls", "tokens", "cost_usd", "by_metric")
	hasKeys(t, "calls", raw["calls"], "chat", "embeddings")
	hasKeys(t, "tokens", raw["tokens"], "prompt", "completion")
	if _, ok := raw["cost_usd"].(float64); !ok {
		t.Errorf("cost_usd of gpt-4o-mini is %v", raw["cost_usd"])
	}
	byMetric := raw["by_metric"].(map[string]any)
	if got := keysOf(t, "by_metric", byMetric); !reflect.DeepEqual(got, []string{"answer_relevancy", "context_precision", "context_recall", "faithfulness"}) {
		t.Errorf("by_metric: %v", got)
	}
	for m, v := range byMetric {
		hasKeys(t, m, v, "calls", "tokens", "cost_usd", "cache_hits")
		hasKeys(t, m+".calls", v.(map[string]any)["calls"], "chat", "embeddings")
		hasKeys(t, m+".tokens", v.(map[string]any)["tokens"], "prompt", "completion")
	}
	calls := raw["calls"].(map[string]any)
	run := runBin(t, env, "run", "--headless", "--db", db, "--out", filepath.Join(t.TempDir(), "r.json"), demo)
	if run.code != exitOK {
		t.Fatalf("run: exit %d\n%s", run.code, run.stderr)
	}
	chat := srv.Count("") - srv.Count("embeddings")
	if int(calls["chat"].(float64)) != chat || int(calls["embeddings"].(float64)) != srv.Count("embeddings") {
		t.Errorf("estimated %v calls, the run sent %d chat and %d embedding calls", calls, chat, srv.Count("embeddings"))
	}

	// Cached now: the text table says so, and nothing is sent.
	before := srv.Count("")
	text := runBin(t, env, "estimate", "--db", db, demo)
	if text.code != exitOK || srv.Count("") != before {
		t.Fatalf("exit %d, %d requests\n%s", text.code, srv.Count("")-before, text.stderr)
	}
	for _, want := range []string{"metric", "chat calls", "cache hits", "total", "o200k_base tokenizer", "built-in ("} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("the table lacks %q:\n%s", want, text.stdout)
		}
	}
	t.Logf("demo estimate, cached:\n%s", text.stdout)
}

func TestEstimateOfflineAndUnpriced(t *testing.T) {
	data := smallDataset(t, 3)
	off := runBin(t, cleanEnv(t), "estimate", "--json", "--db", filepath.Join(t.TempDir(), "r.db"), data)
	if off.code != exitOK {
		t.Fatalf("exit %d\n%s", off.code, off.stderr)
	}
	var est struct {
		Calls   struct{ Chat, Embeddings int }
		CostUSD *float64 `json:"cost_usd"`
		Notes   []string
	}
	if err := json.Unmarshal([]byte(off.stdout), &est); err != nil {
		t.Fatal(err)
	}
	if est.Calls.Chat+est.Calls.Embeddings != 0 || est.CostUSD == nil || *est.CostUSD != 0 || !strings.Contains(strings.Join(est.Notes, " "), "offline judge makes no paid calls") {
		t.Errorf("offline: %s", off.stdout)
	}

	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	env := cleanEnv(t, "OPENAI_API_KEY=sk-test-abcdef0123456789", "OPENAI_BASE_URL="+srv.BaseURL())
	prices := filepath.Join(t.TempDir(), "mine.json")
	un := runBin(t, env, "estimate", "--json", "--model", "my-local-model", "--prices", prices, "--db", filepath.Join(t.TempDir(), "r.db"), data)
	if un.code != exitUsage || !strings.Contains(un.stderr, prices) {
		t.Errorf("a --prices file that does not exist: exit %d\n%s", un.code, un.stderr)
	}
	if err := os.WriteFile(prices, []byte(`{"date": "2026-01-31", "models": {"other-model": {"prompt": 1, "completion": 2}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	un = runBin(t, env, "estimate", "--json", "--model", "my-local-model", "--prices", prices, "--db", filepath.Join(t.TempDir(), "r.db"), data)
	if un.code != exitOK {
		t.Fatalf("exit %d\n%s", un.code, un.stderr)
	}
	if err := json.Unmarshal([]byte(un.stdout), &est); err != nil {
		t.Fatal(err)
	}
	if est.CostUSD != nil || !strings.Contains(strings.Join(est.Notes, "\n"), `no price for model "my-local-model": add it to `+prices) {
		t.Errorf("unpriced model: %s", un.stdout)
	}
	if srv.Count("") != 0 {
		t.Errorf("estimates sent %d requests", srv.Count(""))
	}
}

// A dataset with bad lines: estimate refuses it with run's own words.
func TestEstimateRefusesWhatRunRefuses(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	body := `{"user_input":"q?","response":"a.","retrieved_contexts":["c"]}` + "\n" + `{"user_input": 3}` + "\n" + "not json\n"
	if err := os.WriteFile(bad, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	env := cleanEnv(t)
	for _, extra := range [][]string{nil, {"--skip-invalid"}, {"--map", "bogus"}} {
		run := runBin(t, env, append(append([]string{"run", "--headless", "--db", filepath.Join(dir, "r.db")}, extra...), bad)...)
		est := runBin(t, env, append(append([]string{"estimate", "--db", filepath.Join(dir, "e.db")}, extra...), bad)...)
		if run.code != est.code {
			t.Errorf("%v: run exit %d, estimate exit %d\nrun: %s\nestimate: %s", extra, run.code, est.code, run.stderr, est.stderr)
		}
		if run.code == exitUsage {
			want := strings.TrimPrefix(strings.SplitN(run.stderr, "\n", 2)[0], "ragscope: ")
			if !strings.Contains(est.stderr, want) {
				t.Errorf("%v: estimate says\n%s\nrun says\n%s", extra, est.stderr, run.stderr)
			}
		} else if !strings.Contains(est.stderr, "skipped 2 invalid record") {
			t.Errorf("%v: estimate does not list the skipped records:\n%s", extra, est.stderr)
		}
	}
}

// Headless, over budget: refused before anything is sent, unless --yes.
func TestConfirmOverHeadless(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "r.db")
	env := cleanEnv(t, "OPENAI_API_KEY=sk-test-abcdef0123456789", "OPENAI_BASE_URL="+srv.BaseURL())
	demo := repoFile("testdata/demo.jsonl")
	over := runBin(t, env, "run", "--headless", "--db", db, "--confirm-over", "0.000001", demo)
	if over.code != exitUsage || !strings.Contains(over.stderr, "over --confirm-over $1e-06") || !strings.Contains(over.stderr, "--yes") {
		t.Fatalf("over budget: exit %d\n%s", over.code, over.stderr)
	}
	if srv.Count("") != 0 {
		t.Fatalf("a refused run sent %d requests", srv.Count(""))
	}
	yes := runBin(t, env, "run", "--headless", "--db", db, "--confirm-over", "0.000001", "--yes", "--out", filepath.Join(t.TempDir(), "r.json"), demo)
	if yes.code != exitOK || srv.Count("") == 0 || !strings.Contains(yes.stderr, "starting anyway (--yes)") {
		t.Fatalf("--yes: exit %d, %d requests\n%s", yes.code, srv.Count(""), yes.stderr)
	}
	within := runBin(t, env, "run", "--headless", "--db", db, "--confirm-over", "5", "--out", filepath.Join(t.TempDir(), "r.json"), demo)
	if within.code != exitOK || !strings.Contains(within.stderr, "within --confirm-over $5") {
		t.Fatalf("within budget: exit %d\n%s", within.code, within.stderr)
	}
	unpriced := runBin(t, env, "run", "--headless", "--db", filepath.Join(t.TempDir(), "u.db"), "--model", "my-local-model", "--confirm-over", "5", smallDataset(t, 2))
	if unpriced.code != exitUsage || !strings.Contains(unpriced.stderr, "has no price") {
		t.Fatalf("unpriced model with --confirm-over: exit %d\n%s", unpriced.code, unpriced.stderr)
	}
}
