package e2e

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/tools/calibrate"
)

// calibrationFixture is a --datasets directory of the three sets' shapes:
// the repository's 40-row HaluEval excerpt (MIT, see testdata/ATTRIBUTION.md)
// and a few WikiEval- and RGB-shaped rows written for this test (the real
// sets are not redistributable, and tests must not need ../shared).
func calibrationFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	halu, err := os.ReadFile(repoFile("testdata/halueval_excerpt.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"halueval/qa_one-turn_data.jsonl": string(halu),
		"wikieval_sample10/WikiEval_samples_10.jsonl": `{"question": "Question: When did the Harbour Line open?", "answer": "Answer: The Harbour Line opened in 1912 and runs along the east quay.", "ungrounded_answer": "The Harbour Line opened in 1875 as a horse tramway.", "context_v1": ["The Harbour Line is a railway that opened in 1912. It runs along the east quay of the port."]}
{"question": "Question: Who founded the Lindqvist Choir?", "answer": "Answer: The choir was founded by Maria Lindqvist, a music teacher.", "ungrounded_answer": "It was founded by the city council as a youth project.", "context_v1": ["The Lindqvist Choir was founded by Maria Lindqvist, a music teacher from Uppsala."]}
{"question": "Question: What does the Orm bridge cross?", "answer": "Answer: The Orm bridge crosses the river Orm.", "ungrounded_answer": "The Orm bridge crosses a motorway.", "context_v1": ["The Orm bridge is a stone bridge that crosses the river Orm."]}
`,
		"rgb/zh_fact.jsonl": `{"query": "示例公司的总部在哪里", "answer": "杭州", "fakeanswer": "上海", "positive": ["示例公司的总部在杭州。"]}
{"query": "示例大桥是哪一年通车的", "answer": "2008年", "fakeanswer": "1998年", "positive": ["示例大桥于2008年通车。"]}
`,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var estimateLine = regexp.MustCompile(`estimate: (\d+) chat and (\d+) embedding calls to send`)

// pairJudge is a fake judge that tells the pairs' answers apart, as a
// good judge would: the statements of an unfaithful answer (it knows them
// from the fixture) are judged unsupported, the others supported. Each
// answer gets statements of its own, so no two verdict requests are the
// same, as with a real judge.
func pairJudge(t *testing.T, dir string) func(*fakejudge.Request) fakejudge.Reply {
	sets, err := calibrate.LoadSets(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	var unfaithful []string
	for _, ls := range sets {
		for _, p := range ls.Pairs {
			unfaithful = append(unfaithful, p.Unfaith)
		}
	}
	return func(r *fakejudge.Request) fakejudge.Reply {
		prompt := r.Prompt()
		switch r.Task {
		case "faithfulness_statements":
			kind := "supported"
			for _, u := range unfaithful {
				if strings.Contains(prompt, u) {
					kind = "unsupported"
				}
			}
			h := sha256.Sum256([]byte(prompt))
			return fakejudge.Reply{Choices: []string{fakejudge.JSON(map[string]any{"statements": []string{
				fmt.Sprintf("%s claim %x", kind, h[:4]), fmt.Sprintf("%s detail %x", kind, h[4:8])}})}}
		case "faithfulness_verdicts":
			v := 1
			if strings.Contains(prompt, "unsupported claim") {
				v = 0
			}
			return fakejudge.Reply{Choices: []string{fakejudge.JSON(map[string]any{"statements": []map[string]any{
				{"statement": "claim", "reason": "checked against the context", "verdict": v},
				{"statement": "detail", "reason": "checked against the context", "verdict": v}}})}}
		}
		return fakejudge.Generic(r)
	}
}

// The test: calibrate --judge llm --limit 20 against the fake
// judge; the estimate printed before the run is the calls it received.
// Then again: everything is cached, nothing is sent, nothing is asked.
func TestCalibrateLLMEstimateIsWhatIsSent(t *testing.T) {
	data := calibrationFixture(t)
	srv := fakejudge.New(pairJudge(t, data))
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "r.db")
	env := cleanEnv(t, "OPENAI_API_KEY=sk-test-abcdef0123456789", "OPENAI_BASE_URL="+srv.BaseURL())
	r := runBin(t, env, "calibrate", "--judge", "llm", "--limit", "20", "--datasets", data, "--db", db, "--yes")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	m := estimateLine.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no estimate line:\n%s", r.stdout)
	}
	chat, _ := strconv.Atoi(m[1])
	embed, _ := strconv.Atoi(m[2])
	sentChat := srv.Count("") - srv.Count("embeddings")
	if chat != sentChat || embed != srv.Count("embeddings") {
		t.Errorf("estimated %d chat and %d embedding calls; the judge received %d and %d", chat, embed, sentChat, srv.Count("embeddings"))
	}
	// 20 + 3 + 2 pairs, two answers each, a statements and a verdicts call per answer.
	if want := (20 + 3 + 2) * 2 * 2; sentChat != want {
		t.Errorf("%d chat calls sent, want %d", sentChat, want)
	}
	if strings.Index(r.stdout, "estimate:") > strings.Index(r.stdout, "| judge |") {
		t.Error("the estimate comes after the results")
	}
	for _, want := range []string{
		"| gpt-4o-mini | halueval/qa_one-turn | 20 of 40 | 20 | 1.000 | 20 | 0 | 0 | 0 |",
		"| gpt-4o-mini | wikieval_sample10 | 3 | 3 | 1.000 |",
		"0.95 (RAGAS faithfulness with gpt-3.5-turbo-16k) [1]",
		"[1] wikieval_sample10: 0.95", "arXiv:2309.15217",
		"| rgb/zh_fact | 2 | 2 |", "not published",
		"ragscope open ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, r.stdout)
		}
	}
	t.Logf("calibrate --judge llm --limit 20 against the fake judge:\n%s", r.stdout)

	before := srv.Count("")
	again := runBin(t, env, "calibrate", "--judge", "llm", "--limit", "20", "--datasets", data, "--db", db)
	if again.code != exitOK || srv.Count("") != before {
		t.Fatalf("a repeated calibration: exit %d, %d requests sent\n%s", again.code, srv.Count("")-before, again.stderr)
	}
	if !strings.Contains(again.stdout, "estimate: 0 chat and 0 embedding calls to send") || !strings.Contains(again.stderr, "nothing is sent") {
		t.Errorf("a repeated calibration:\n%s\n%s", again.stdout, again.stderr)
	}
}

// Without a terminal and without --yes, nothing is sent: exit 2 with the
// way out. Without an endpoint, --judge llm says what to configure.
func TestCalibrateLLMRefusals(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	data := calibrationFixture(t)
	env := cleanEnv(t, "OPENAI_API_KEY=sk-test-abcdef0123456789", "OPENAI_BASE_URL="+srv.BaseURL())
	r := runBin(t, env, "calibrate", "--judge", "llm", "--limit", "2", "--datasets", data, "--db", filepath.Join(t.TempDir(), "r.db"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "no terminal to ask on") || !strings.Contains(r.stderr, "--yes") {
		t.Errorf("no terminal, no --yes: exit %d\n%s", r.code, r.stderr)
	}
	if !estimateLine.MatchString(r.stdout) {
		t.Errorf("the refusal comes without the estimate:\n%s", r.stdout)
	}
	if n := srv.Count(""); n != 0 {
		t.Errorf("a refused calibration sent %d requests", n)
	}
	none := runBin(t, cleanEnv(t), "calibrate", "--judge", "llm", "--datasets", data, "--db", filepath.Join(t.TempDir(), "r.db"), "--yes")
	if none.code != exitUsage || !strings.Contains(none.stderr, "--judge llm needs an endpoint") {
		t.Errorf("no endpoint: exit %d\n%s", none.code, none.stderr)
	}
	for _, args := range [][]string{{"--judge", "gpt"}, {"--limit", "-1"}} {
		bad := runBin(t, env, append([]string{"calibrate", "--datasets", data}, args...)...)
		if bad.code != exitUsage || !strings.Contains(bad.stderr, args[0]) {
			t.Errorf("%v: exit %d\n%s", args, bad.code, bad.stderr)
		}
	}
}

// A key refused on every call, or an endpoint that refuses connections:
// the calibration stops after the first few calls, with the reason, and
// gives no accuracy.
func TestCalibrateLLMFailsFast(t *testing.T) {
	srv := fakejudge.New(func(*fakejudge.Request) fakejudge.Reply {
		return fakejudge.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`}
	})
	defer srv.Close()
	data := calibrationFixture(t)
	r := runBin(t, cleanEnv(t, "OPENAI_API_KEY=sk-test-abcdef0123456789", "OPENAI_BASE_URL="+srv.BaseURL()),
		"calibrate", "--judge", "llm", "--datasets", data, "--db", filepath.Join(t.TempDir(), "r.db"), "--yes", "--concurrency", "2")
	if r.code != exitFatal || !strings.Contains(r.stderr, "the calibration stopped") || !strings.Contains(r.stderr, "401") {
		t.Errorf("401: exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "| judge |") {
		t.Errorf("an accuracy was given for a judge that judged nothing:\n%s", r.stdout)
	}
	// 45 pairs, 90 statements calls: fail-fast stops at the first few
	// (three failures, and the calls already in flight on 2 slots).
	if n := srv.Count(""); n > 10 {
		t.Errorf("%d requests sent to an endpoint refusing the key", n)
	}
	closed, err := fakejudge.ClosedURL()
	if err != nil {
		t.Fatal(err)
	}
	r = runBin(t, cleanEnv(t, "OPENAI_API_KEY=sk-test-abcdef0123456789", "OPENAI_BASE_URL="+closed),
		"calibrate", "--judge", "llm", "--limit", "5", "--datasets", data, "--db", filepath.Join(t.TempDir(), "r.db"), "--yes", "--max-retries", "0")
	if r.code != exitFatal || !strings.Contains(r.stderr, "the calibration stopped") || !strings.Contains(r.stderr, "refused") {
		t.Errorf("refused connection: exit %d\n%s", r.code, r.stderr)
	}
}

// A pair a side of which fails to score is a failed pair with its
// status, out of the accuracy; the other pairs are still measured.
func TestCalibrateLLMPairFailure(t *testing.T) {
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		if r.Task == "faithfulness_statements" && strings.Contains(r.Prompt(), "horse tramway") {
			return fakejudge.Reply{Choices: []string{"this is not JSON"}}
		}
		return fakejudge.Generic(r)
	})
	defer srv.Close()
	data := calibrationFixture(t)
	r := runBin(t, cleanEnv(t, "OPENAI_API_KEY=sk-test-abcdef0123456789", "OPENAI_BASE_URL="+srv.BaseURL()),
		"calibrate", "--judge", "llm", "--limit", "3", "--datasets", data, "--db", filepath.Join(t.TempDir(), "r.db"), "--yes", "--max-retries", "0")
	if r.code != exitFailures {
		t.Fatalf("exit %d, want 3\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"| wikieval_sample10 | 3 | 2 |", "#1 failed: faithful 1.00, unfaithful -; unfaithful answer: parse_error"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "NaN") {
		t.Errorf("NaN in the output:\n%s", r.stdout)
	}
}

// An answer the LLM judge finds no statements in loses its pair, as in
// the offline calibration: the judge could not tell the answers apart,
// and a tie would credit it half a pair for that.
func TestCalibrateLLMNoStatementsIsALoss(t *testing.T) {
	data := calibrationFixture(t)
	good := pairJudge(t, data)
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		if r.Task == "faithfulness_statements" && strings.Contains(r.Prompt(), "The Orm bridge crosses the river Orm") {
			return fakejudge.Reply{Choices: []string{fakejudge.JSON(map[string]any{"statements": []string{}})}}
		}
		return good(r)
	})
	defer srv.Close()
	r := runBin(t, cleanEnv(t, "OPENAI_API_KEY=sk-test-abcdef0123456789", "OPENAI_BASE_URL="+srv.BaseURL()),
		"calibrate", "--judge", "llm", "--limit", "3", "--datasets", data, "--db", filepath.Join(t.TempDir(), "r.db"), "--yes")
	if r.code != exitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"| no statements | failed |",
		"| wikieval_sample10 | 3 | 3 | 0.667 | 2 | 0 | 1 | 1 | 0 |",
		"#3 lost (no statements): faithful -, unfaithful 0.00; faithful answer: no_statements",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// The offline calibration measures each set under its constructions,
// tuned and held out, with --limit taking the first pairs; the optional
// sets absent from the directory are skipped, and said to be.
func TestCalibrateOffline(t *testing.T) {
	data := calibrationFixture(t)
	r := runBin(t, cleanEnv(t), "calibrate", "--datasets", data)
	for _, want := range []string{
		"| offline (lexical) | halueval/qa_one-turn | given | tuned | 40 |",
		"| offline (lexical) | halueval/qa_one-turn | framed | held out | 40 |",
		// Rules were written from its failures: neither tuned nor clean.
		"| offline (lexical) | halueval/qa_one-turn | declarative | read | 40 |",
		"| offline (lexical) | rgb/zh_fact | bare | held out | 2 |",
		"skipped: rgb/en_fact:",
		"skipped: faithbench:",
	} {
		if !strings.Contains(r.stdout, want) || r.code == exitFatal || r.code == exitUsage {
			t.Errorf("want %q; exit %d\n%s\n%s", want, r.code, r.stdout, r.stderr)
		}
	}
	// A held-out row has no previous figure: a message about a missed one
	// names only the target.
	if strings.Contains(r.stderr, "previous figure 0.000") {
		t.Errorf("a missed row's message names a previous figure it does not have:\n%s", r.stderr)
	}
	r = runBin(t, cleanEnv(t), "calibrate", "--judge", "offline", "--limit", "2", "--datasets", data)
	if !strings.Contains(r.stdout, "| offline (lexical) | halueval/qa_one-turn | given | tuned | 2 |") {
		t.Errorf("--limit 2: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// run --sample: the same seed evaluates the same samples, said on stderr,
// in the report and in `ragscope runs`; bad values are refused by name.
func TestRunSample(t *testing.T) {
	data := smallDataset(t, 20)
	db := filepath.Join(t.TempDir(), "r.db")
	var ids [2][]string
	for i := range ids {
		r := runBin(t, cleanEnv(t), "run", "--headless", "--db", db, "--sample", "5", "--seed", "9", data)
		if r.code != exitOK || !strings.Contains(r.stderr, "evaluating 5 of 20 samples, chosen with --seed 9") {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		rep := decodeReport(t, r.stdout)
		for _, s := range rep.Samples {
			ids[i] = append(ids[i], s.ID)
		}
		if len(ids[i]) != 5 || rep.Run.Samples != 5 || rep.Run.Subset == nil || rep.Run.Subset.Of != 20 || rep.Run.Subset.Seed != 9 || rep.Run.Config["seed"] != "9" {
			t.Fatalf("report: %d samples, run %+v", len(ids[i]), rep.Run)
		}
	}
	if strings.Join(ids[0], ",") != strings.Join(ids[1], ",") {
		t.Errorf("the same seed chose %v, then %v", ids[0], ids[1])
	}
	runs := runBin(t, cleanEnv(t), "runs", "--db", db)
	if !strings.Contains(runs.stdout, "5 of 20 (seed 9)") {
		t.Errorf("runs does not say it was a sample:\n%s", runs.stdout)
	}
	def := runBin(t, cleanEnv(t), "run", "--headless", "--db", db, "--sample", "5", data)
	if def.code != exitOK || !strings.Contains(def.stderr, "chosen with --seed 1") {
		t.Errorf("the default seed: exit %d\n%s", def.code, def.stderr)
	}
	for _, args := range [][]string{{"--sample", "0"}, {"--sample", "-3"}, {"--sample", "x"}, {"--seed", "4"}} {
		r := runBin(t, cleanEnv(t), append(append([]string{"run", "--headless", "--db", db}, args...), data)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--sample") {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
}

// estimate --sample plans the sample run: the calls it sends.
func TestEstimateOfASample(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	env := cleanEnv(t, "OPENAI_API_KEY=sk-test-abcdef0123456789", "OPENAI_BASE_URL="+srv.BaseURL())
	data := smallDataset(t, 12)
	db := filepath.Join(t.TempDir(), "r.db")
	est := runBin(t, env, "estimate", "--json", "--db", db, "--metrics", "faithfulness", "--sample", "4", data)
	if est.code != exitOK || !strings.Contains(est.stdout, `"chat": 8`) {
		t.Fatalf("exit %d\n%s\n%s", est.code, est.stdout, est.stderr)
	}
	r := runBin(t, env, "run", "--headless", "--db", db, "--metrics", "faithfulness", "--sample", "4", "--out", filepath.Join(t.TempDir(), "r.json"), data)
	if r.code != exitOK || srv.Count("") != 8 {
		t.Errorf("the sample run: exit %d, %d calls, estimated 8\n%s", r.code, srv.Count(""), r.stderr)
	}
}
