package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/report"
)

// personaDataset has samples whose scores differ, the motivating taxpayer
// sample among them (its answer contradicts its context): a parse that
// takes the wrong object shows as a different score.
func personaDataset(t *testing.T) string {
	t.Helper()
	lines := []string{
		`{"id": "taxpayer", "question": "转为一般纳税人后，纳税人识别号会变吗？", "answer": "纳税人识别号会改变。需要重新办理税务登记。", "contexts": ["纳税人识别号不变。无需重新办理税务登记"], "reference": "纳税人识别号不变。无需重新办理税务登记"}`,
		`{"id": "office", "question": "When does the office open?", "answer": "The office opens at 9 am. It closes at 6 pm.", "contexts": ["The office opens at 9 am.", "Parking is free."], "reference": "The office opens at 9 am. It closes at 6 pm."}`,
		`{"id": "leave", "question": "How long is maternity leave?", "answer": "Maternity leave is 98 days. Fathers get 15 days. Leave is paid.", "contexts": ["Canteen menu.", "Maternity leave is 98 days. Leave is paid."], "reference": "Maternity leave is 98 days."}`,
		`{"id": "unknown", "question": "Who approves travel?", "answer": "I don't know.", "contexts": ["Travel is approved by the line manager."], "reference": "Travel is approved by the line manager."}`,
	}
	p := filepath.Join(t.TempDir(), "persona.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// scoresOf is every sample's score and status per metric, as text.
func scoresOf(t *testing.T, rep *report.Report) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range rep.Samples {
		for _, m := range eval.DefaultMetrics {
			sc := "none"
			if v := s.Scores[m]; v != nil {
				sc = fmt.Sprintf("%.6f", *v)
			}
			out[s.ID+" "+string(m)] = fmt.Sprintf("%s %s", sc, s.Status[m])
		}
	}
	return out
}

// personaRun runs the binary headless against a fake server answering as
// the persona, on a database of its own, and returns the report.
func personaRun(t *testing.T, p fakejudge.Persona, db string, args ...string) (*report.Report, result, *fakejudge.Server) {
	t.Helper()
	srv := fakejudge.New(p.Wrap(fakejudge.Oracle))
	t.Cleanup(srv.Close)
	rep, r := runOn(t, srv, db, args...)
	return rep, r, srv
}

// runOn runs the binary headless against srv and returns the report.
func runOn(t *testing.T, srv *fakejudge.Server, db string, args ...string) (*report.Report, result) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.json")
	argv := append([]string{"run", "--headless", "--db", db, "--out", out, "--model", "judge-model"}, args...)
	r := runBin(t, cleanEnv(t, "OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+srv.BaseURL()), argv...)
	if r.code != exitOK && r.code != exitFailures {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	body, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return decodeReport(t, string(body)), r
}

// TestJudgePersonasGiveTheCleanScores: every persona of a real server and
// model family gives, through the binary with no extra flags, exactly the
// scores of the clean judge with the same verdicts underneath.
func TestJudgePersonasGiveTheCleanScores(t *testing.T) {
	data := personaDataset(t)
	cleanRep, _, _ := personaRun(t, fakejudge.PersonaClean, filepath.Join(t.TempDir(), "r.db"), data)
	want := scoresOf(t, cleanRep)
	if got := want["taxpayer "+string(eval.Faithfulness)]; got != "0.000000 ok" {
		t.Fatalf("clean judge: taxpayer faithfulness %s, want 0.000000 ok", got)
	}
	notices := map[fakejudge.Persona][]string{
		fakejudge.PersonaQwen3:     {"reasoning model"},
		fakejudge.PersonaR1Distill: {"reasoning model"},
		fakejudge.PersonaDeepSeek:  {"json_object (json_schema refused)", "n not honoured", "reasoning model"},
		fakejudge.PersonaOllama:    {"n not honoured", "reasoning model"},
		fakejudge.PersonaOllamaOld: {"n not honoured"},
		fakejudge.PersonaBudget:    {"reasoning model"},
		fakejudge.PersonaQwQ:       {"streamed", "n not honoured", "reasoning model"},
	}
	for _, p := range fakejudge.Personas[1:] {
		t.Run(string(p), func(t *testing.T) {
			rep, r, _ := personaRun(t, p, filepath.Join(t.TempDir(), "r.db"), data)
			got := scoresOf(t, rep)
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: %s, clean judge %s", k, got[k], w)
				}
			}
			// A reasoning model's thinking is kept with the calls that
			// made the verdicts, for the detail page.
			if strings.Contains(strings.Join(notices[p], ","), "reasoning model") {
				kept, chunk := false, false
				for _, s := range rep.Samples {
					for _, c := range s.Calls {
						kept = kept || (c.Task == "faithfulness_verdicts" && strings.Contains(c.Reasoning, "Okay, the user wants"))
					}
					if cp := s.ContextPrecision; cp != nil {
						for _, c := range cp.Chunks {
							chunk = chunk || strings.Contains(c.Reasoning, "Okay, the user wants")
						}
					}
				}
				if !kept || !chunk {
					t.Errorf("reasoning kept: with the faithfulness_verdicts call %v, with a chunk verdict %v", kept, chunk)
				}
			}
			for _, n := range notices[p] {
				if !strings.Contains(r.stderr, n) {
					t.Errorf("stderr does not say %q:\n%s", n, r.stderr)
				}
			}
		})
	}
}

// TestEndpointProfileIsRemembered: a json_schema-refusing, n-ignoring
// endpoint costs the first run refused calls and a notice; the next run
// starts from the remembered profile and sends none.
func TestEndpointProfileIsRemembered(t *testing.T) {
	data := personaDataset(t)
	db := filepath.Join(t.TempDir(), "r.db")
	_, r1, srv1 := personaRun(t, fakejudge.PersonaDeepSeek, db, data)
	refusedAfter := func(srv *fakejudge.Server, from int) (schema, n int) {
		for _, q := range srv.Requests()[from:] {
			if q.Format == "json_schema" {
				schema++
			}
			if q.N > 1 {
				n++
			}
		}
		return
	}
	if s, n := refusedAfter(srv1, 0); s == 0 || n == 0 {
		t.Fatalf("first run sent %d json_schema and %d n>1 requests; the test needs it to learn", s, n)
	}
	if strings.Count(r1.stderr, "ragscope: endpoint:") > 3 {
		t.Errorf("the notice is said more than once per thing learned:\n%s", r1.stderr)
	}
	// What was learned is remembered, with the share of the completion
	// tokens the model spent reasoning (the estimate counts it).
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(db), "endpoints.json")); err != nil || !strings.Contains(string(b), "json_object") ||
		!strings.Contains(string(b), `"reasoning_share": 0.`) {
		t.Fatalf("endpoints.json: %s, %v", b, err)
	}
	// --no-cache: the calls are sent again, with what was learned.
	before := len(srv1.Requests())
	rep2, r2 := runOn(t, srv1, db, "--no-cache", data)
	if s, n := refusedAfter(srv1, before); s != 0 || n != 0 {
		t.Fatalf("second run sent %d json_schema and %d n>1 requests; want none", s, n)
	}
	if !strings.Contains(r2.stderr, "endpoint (remembered): json_object (json_schema refused), n not honoured") {
		t.Errorf("second run's banner does not say what was remembered:\n%s", r2.stderr)
	}
	if got := rep2.Run.Config["endpoint"]; !strings.Contains(got, "json_object") {
		t.Errorf("run record's endpoint %q", got)
	}
	// The first run's replies serve the next runs, answer relevancy's
	// draws included: the request that learned n is ignored is asked
	// again as it was (n left off the wire), so nothing is paid twice and
	// --cache-only replays it all.
	before = len(srv1.Requests())
	if rep3, r3 := runOn(t, srv1, db, data); len(srv1.Requests()) != before || r3.code != exitOK || rep3.Run.Calls.Chat != 0 {
		t.Fatalf("a third run sent %d requests (exit %d)\n%s", len(srv1.Requests())-before, r3.code, r3.stderr)
	}
	if _, r4 := runOn(t, srv1, db, "--cache-only", data); r4.code != exitOK {
		t.Fatalf("--cache-only after a whole run: exit %d\n%s", r4.code, r4.stderr)
	}
}

// TestTokenBudgetTooSmallIsTruncated: a reasoning model whose replies do
// not fit --max-tokens ends as truncated, naming the budget, never as a
// parse error or a score.
func TestTokenBudgetTooSmallIsTruncated(t *testing.T) {
	rep, r, srv := personaRun(t, fakejudge.PersonaBudget, filepath.Join(t.TempDir(), "r.db"), "--max-tokens", "300", "--metrics", "faithfulness", personaDataset(t))
	// The cut replies were billed: the summary says they failed, beside the tokens.
	if want := fmt.Sprintf("calls sent, %d failed,", rep.Run.Calls.Errors); rep.Run.Calls.Errors == 0 || rep.Run.Tokens.CompletionTokens == 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("the summary does not say %q (%+v, %+v):\n%s", want, rep.Run.Calls, rep.Run.Tokens, r.stderr)
	}
	for _, s := range rep.Samples {
		st, msg := s.Status[eval.Faithfulness], s.Errors[eval.Faithfulness]
		if st != eval.StatusTruncated || s.Scores[eval.Faithfulness] != nil || !strings.Contains(msg, "max_tokens 300") || !strings.Contains(msg, "--max-tokens") {
			t.Errorf("%s: status %s, score %v, error %q", s.ID, st, s.Scores[eval.Faithfulness], msg)
		}
	}
	// The budget grew before it gave up: the server's default, then 300.
	budgets := map[int]bool{}
	for _, q := range srv.Requests() {
		budgets[q.MaxTokens] = true
	}
	if !budgets[0] || !budgets[300] {
		t.Errorf("budgets asked %v, want the server's default (0) then 300", budgets)
	}
}

// TestJudgeProfiles: judge add checks a judge and saves it; --judge picks a
// profile, which wins over the environment and the file's own keys, a flag
// over it; its key comes from the variable it names; a missing profile, a
// key in the file and an unknown setting are refused naming them.
func TestJudgeProfiles(t *testing.T) {
	good := fakejudge.New(fakejudge.Generic)
	defer good.Close()
	other := fakejudge.New(fakejudge.Generic)
	defer other.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, []byte(`{"concurrency": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := cleanEnv(t, "LOCAL_KEY=sk-local-0123456789", "OPENAI_BASE_URL="+other.BaseURL(), "OPENAI_API_KEY=sk-other")
	r := runBin(t, env, "judge", "add", "local", "--config", cfg, "--base-url", good.BaseURL(), "--model", "judge-model",
		"--embedding-model", "emb", "--reasoning", "off", "--api-key-env", "LOCAL_KEY", "--default")
	if r.code != exitOK || !strings.Contains(r.stdout, "ready") || !strings.Contains(r.stdout, `saved judge "local"`) {
		t.Fatalf("judge add: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	b, _ := os.ReadFile(cfg)
	for _, want := range []string{`"concurrency": 2`, `"judge": "local"`, `"api_key_env": "LOCAL_KEY"`, `"reasoning": "off"`, good.BaseURL()} {
		if !strings.Contains(string(b), want) {
			t.Errorf("settings file lacks %s:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "sk-local") {
		t.Fatalf("the key was written:\n%s", b)
	}
	r = runBin(t, env, "judge", "list", "--config", cfg)
	if !strings.Contains(r.stdout, "* local") || !strings.Contains(r.stdout, "judge-model") {
		t.Errorf("judge list:\n%s%s", r.stdout, r.stderr)
	}
	// The default profile is used, over OPENAI_BASE_URL, with its own key.
	before := good.Count("")
	r = runBin(t, env, "run", "--headless", "--config", cfg, "--db", filepath.Join(dir, "r.db"), "--metrics", "faithfulness", personaDataset(t))
	if r.code != exitOK || good.Count("") == before || other.Count("") != 0 {
		t.Fatalf("run with the default profile: exit %d, %d calls to the profile's endpoint, %d to OPENAI_BASE_URL\n%s", r.code, good.Count("")-before, other.Count(""), r.stderr)
	}
	for _, q := range good.Requests()[before:] {
		if q.Header.Get("Authorization") != "Bearer sk-local-0123456789" {
			t.Fatalf("the profile's key was not sent: %q", q.Header.Get("Authorization"))
		}
		if kw, ok := q.Raw["chat_template_kwargs"].(map[string]any); !ok || kw["enable_thinking"] != false {
			t.Fatalf("the profile's reasoning off was not sent: %v", q.Raw)
		}
	}
	// A flag wins over the profile.
	r = runBin(t, env, "run", "--headless", "--config", cfg, "--base-url", other.BaseURL(), "--db", filepath.Join(dir, "r2.db"), "--metrics", "faithfulness", personaDataset(t))
	if r.code != exitOK || other.Count("") == 0 {
		t.Fatalf("--base-url over the profile: exit %d, %d calls to it\n%s", r.code, other.Count(""), r.stderr)
	}
	for _, tc := range []struct{ file, args, want string }{
		{`{"judges": {"local": {"model": "m"}}}`, "--judge nope", `judge "nope" is not in`},
		{`{"judges": {"local": {"api_key": "sk-x"}}}`, "--judge local", "the key is not read from a file"},
		{`{"judges": {"local": {"colour": "red"}}}`, "--judge local", `"colour" is not a judge setting`},
		{`{"judges": {"local": {"api_key_env": "UNSET_KEY"}}}`, "--judge local", "$UNSET_KEY, which is not set"},
	} {
		p := filepath.Join(t.TempDir(), "c.json")
		if err := os.WriteFile(p, []byte(tc.file), 0o600); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"run", "--headless", "--config", p}, strings.Fields(tc.args)...)
		r := runBin(t, cleanEnv(t), append(args, personaDataset(t))...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s %s: exit %d, stderr %q; want exit 2 saying %q", tc.file, tc.args, r.code, r.stderr, tc.want)
		}
	}
	// A settings file that cannot take the profile is refused before the
	// check is paid for.
	broken := filepath.Join(t.TempDir(), "broken.json")
	if err := os.WriteFile(broken, []byte("{\n  \"a\": 1\n  \"b\": 2\n}"), 0o600); err != nil {
		t.Fatal(err)
	}
	before = good.Count("")
	if r := runBin(t, env, "judge", "add", "x", "--config", broken, "--base-url", good.BaseURL(), "--model", "m"); r.code != exitUsage || good.Count("") != before || !strings.Contains(r.stderr, "line 3") {
		t.Errorf("judge add into a broken file: exit %d, %d calls\n%s", r.code, good.Count("")-before, r.stderr)
	}
	// --offline needs no key: a default profile's unset variable is no error.
	p := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(p, []byte(`{"judge": "local", "judges": {"local": {"model": "m", "api_key_env": "UNSET_KEY"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runBin(t, cleanEnv(t), "run", "--headless", "--offline", "--config", p, "--db", filepath.Join(dir, "o.db"), personaDataset(t)); r.code != exitOK {
		t.Errorf("--offline with a default profile whose key is unset: exit %d\n%s", r.code, r.stderr)
	}
	// A refused key is named as the profile names it, not as OPENAI_API_KEY.
	refusing := fakejudge.New(func(*fakejudge.Request) fakejudge.Reply {
		return fakejudge.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}`}
	})
	defer refusing.Close()
	if err := os.WriteFile(p, []byte(`{"judges": {"q": {"base_url": "`+refusing.BaseURL()+`", "model": "m", "api_key_env": "Q_KEY"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runBin(t, cleanEnv(t, "Q_KEY=sk-q-0123456789"), "check", "--config", p, "--judge", "q"); !strings.Contains(r.stdout, "check $Q_KEY") {
		t.Errorf("check of a refused profile key:\n%s%s", r.stdout, r.stderr)
	}
}

// TestProfileKeyStaysWithItsEndpoint: a default profile's key never goes to
// another endpoint, given with --base-url or being added as a profile of
// its own; judge add saves only what its command line says.
func TestProfileKeyStaysWithItsEndpoint(t *testing.T) {
	mine := fakejudge.New(fakejudge.Generic)
	defer mine.Close()
	other := fakejudge.New(fakejudge.Generic)
	defer other.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	file := `{"judge": "deepseek", "judges": {"deepseek": {"base_url": "` + mine.BaseURL() + `", "model": "ds", "embedding_model": "ds-emb", "api_key_env": "DS_KEY"}}}`
	if err := os.WriteFile(cfg, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	env := cleanEnv(t, "DS_KEY=sk-DEEPSEEK-SECRET", "OPENAI_API_KEY=sk-other-key")
	sentKeys := func(srv *fakejudge.Server) string {
		var keys []string
		for _, q := range srv.Requests() {
			keys = append(keys, q.Header.Get("Authorization"))
		}
		return strings.Join(keys, " ")
	}
	r := runBin(t, env, "check", "--config", cfg, "--base-url", other.BaseURL(), "--embedding-model", "emb")
	if strings.Contains(sentKeys(other), "DEEPSEEK") || !strings.Contains(sentKeys(other), "sk-other-key") {
		t.Fatalf("check --base-url another endpoint sent %q (exit %d)\n%s", sentKeys(other), r.code, r.stderr)
	}
	r = runBin(t, env, "judge", "add", "other", "--config", cfg, "--base-url", other.BaseURL(), "--model", "m", "--embedding-model", "emb")
	if r.code != exitOK || strings.Contains(sentKeys(other), "DEEPSEEK") {
		t.Fatalf("judge add sent %q (exit %d)\n%s%s", sentKeys(other), r.code, r.stdout, r.stderr)
	}
	b, _ := os.ReadFile(cfg)
	var saved struct {
		Judges map[string]map[string]any `json:"judges"`
	}
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	if p := saved.Judges["other"]; p == nil || p["embedding_model"] != "emb" || p["api_key_env"] != nil {
		t.Errorf("the new profile took the default's settings: %v", p)
	}
	if len(mine.Requests()) != 0 {
		t.Errorf("the default profile's endpoint was called %d times", len(mine.Requests()))
	}
}
