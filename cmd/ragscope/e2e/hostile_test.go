package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/fakejudge"
)

// Hostile text as a dataset file name, a dataset or a judge reply may
// carry it; Linux file names may hold any byte but '/' and NUL.
const (
	evilOSC52 = "\x1b]52;c;aGVsbG8=\x07" // writes the clipboard
	evilCSI   = "\x1b[2J"                // clears the screen
	evilRLO   = "\u202e"                 // right-to-left override
	evilName  = "evil" + evilOSC52 + evilRLO + evilCSI
	// evilShown is evilName as the terminal must show it.
	evilShown = `evil\x1b]52;c;aGVsbG8=\x07<U+202E>\x1b[2J`
)

// requireSafeOutput fails when s holds anything a terminal would act on
// (a control character other than newline and tab, an escape sequence) or
// hide (a bidi control, a zero-width character), or invalid UTF-8.
func requireSafeOutput(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("%s: invalid UTF-8:\n%q", what, s)
	}
	for i, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
			r == 0x061c || (r >= 0x200b && r <= 0x200f) || (r >= 0x2028 && r <= 0x202e) ||
			(r >= 0x2060 && r <= 0x206f) || r == 0xfeff {
			t.Fatalf("%s: %U at byte %d:\n%q", what, r, i, s)
		}
	}
}

// hostileJudge answers every task with statements, questions and reasons
// full of escapes; its verdicts are those of *verdict, so two runs differ.
func hostileJudge(verdict *atomic.Int32) func(r *fakejudge.Request) fakejudge.Reply {
	stmt := "Alice" + evilOSC52 + " wrote it" + evilRLO
	return func(r *fakejudge.Request) fakejudge.Reply {
		v := int(verdict.Load())
		reason := []string{"contradicted" + evilCSI + "\u200b", "stated" + evilOSC52}[v]
		one := func(x any) fakejudge.Reply { return fakejudge.Reply{Choices: []string{fakejudge.JSON(x)}} }
		switch r.Task {
		case "faithfulness_statements":
			return one(map[string]any{"statements": []string{stmt}})
		case "faithfulness_verdicts":
			return one(map[string]any{"statements": []map[string]any{{"statement": stmt, "reason": reason, "verdict": v}}})
		case "answer_relevancy_question":
			choices := make([]string, max(r.N, 1))
			for i := range choices {
				choices[i] = fakejudge.JSON(map[string]any{"question": "who" + evilCSI + "?", "noncommittal": 0})
			}
			return fakejudge.Reply{Choices: choices}
		case "context_precision_verdict":
			return one(map[string]any{"reason": reason, "verdict": v})
		case "context_recall_classifications":
			return one(map[string]any{"classifications": []map[string]any{{"statement": "ref" + evilRLO, "reason": reason, "attributed": v}}})
		}
		return fakejudge.Generic(r)
	}
}

// writeHostileDataset writes n samples whose ids, questions, answers and
// chunks carry escapes, under a file name that carries them too.
func writeHostileDataset(t *testing.T, dir, suffix string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		rec := map[string]any{
			"id":                 "id" + evilOSC52 + string(rune('a'+i)),
			"user_input":         t.Name() + suffix + " who" + evilCSI + " wrote it" + evilRLO + "?",
			"response":           "Alice\x1b[31m wrote it.\u009b2J",
			"retrieved_contexts": []string{"Alice wrote it" + evilOSC52 + ".", "unrelated\u200b"},
			"reference":          "Alice wrote it\x00.",
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, evilName+suffix+".jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHostileDatasetNameInRunsAndDiff evaluates two datasets whose file
// names, texts and judge replies carry escape sequences, and checks that
// nothing the commands print lets one through: runs, diff, report md and
// csv, cache stats, error messages. JSON keeps the texts exactly.
func TestHostileDatasetNameInRunsAndDiff(t *testing.T) {
	var verdict atomic.Int32
	verdict.Store(1)
	srv := fakejudge.New(hostileJudge(&verdict))
	defer srv.Close()
	env := cleanEnv(t, "OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+srv.BaseURL())
	dir := filepath.Join(t.TempDir(), evilName)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "r.db")
	dataA := writeHostileDataset(t, dir, "A", 2)
	dataB := writeHostileDataset(t, dir, "B", 2)

	var ids []string
	for i, data := range []string{dataA, dataB} {
		verdict.Store(int32(1 - i))
		out := filepath.Join(t.TempDir(), "report.json")
		r := runBin(t, env, "run", "--headless", "--no-cache", "--db", db, "--out", out, data)
		if r.code != exitOK && r.code != exitFailures {
			t.Fatalf("run %d: exit %d\n%s", i, r.code, r.stderr)
		}
		requireSafeOutput(t, "run's stderr", r.stderr)
		body, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		rep := decodeReport(t, string(body))
		if rep.Run.Dataset != data || !strings.Contains(rep.Samples[0].ID, evilOSC52) {
			t.Fatalf("the JSON report does not keep the texts exactly: dataset %q, id %q", rep.Run.Dataset, rep.Samples[0].ID)
		}
		ids = append(ids, rep.Run.ID)
	}

	runs := runBin(t, env, "runs", "--db", db)
	if runs.code != exitOK {
		t.Fatalf("runs: exit %d\n%s", runs.code, runs.stderr)
	}
	requireSafeOutput(t, "runs stdout", runs.stdout)
	requireSafeOutput(t, "runs stderr", runs.stderr)
	for _, want := range []string{evilShown + "A.jsonl", evilShown + "B.jsonl", ids[0], ids[1]} {
		if !strings.Contains(runs.stdout, want) {
			t.Fatalf("runs does not show %q:\n%s", want, runs.stdout)
		}
	}

	diff := runBin(t, env, "diff", "--db", db, ids[0], ids[1])
	if diff.code != exitOK {
		t.Fatalf("diff: exit %d\n%s", diff.code, diff.stderr)
	}
	requireSafeOutput(t, "diff stdout", diff.stdout)
	requireSafeOutput(t, "diff stderr", diff.stderr)
	for _, want := range []string{
		"sample 0 id" + `\x1b]52;c;aGVsbG8=\x07` + "a",
		`stated\x1b]52;c;aGVsbG8=\x07`,
		`contradicted\x1b[2J<U+200B>`,
	} {
		if !strings.Contains(diff.stdout, want) {
			t.Fatalf("diff does not show %q:\n%s", want, diff.stdout)
		}
	}
	// The runs evaluated different files: the warning names both.
	if !strings.Contains(diff.stderr, "different data ("+filepath.Join(sanitizedDir(dir), evilShown+"A.jsonl")) {
		t.Fatalf("diff warning:\n%s", diff.stderr)
	}

	// --json is data: the texts exactly, escaped the JSON way.
	dj := runBin(t, env, "diff", "--db", db, "--json", ids[0], ids[1])
	var parsed struct {
		Samples []struct {
			ID      string `json:"id"`
			Changes []struct {
				Before string `json:"before"`
				After  string `json:"after"`
			} `json:"changes"`
		} `json:"samples"`
	}
	if dj.code != exitOK || json.Unmarshal([]byte(dj.stdout), &parsed) != nil || len(parsed.Samples) == 0 ||
		parsed.Samples[0].ID != "id"+evilOSC52+"a" || !strings.Contains(dj.stdout, `\u001b]52`) {
		t.Fatalf("diff --json: exit %d\n%s", dj.code, dj.stdout)
	}

	for _, format := range []string{"md", "csv", "html"} {
		r := runBin(t, env, "report", "--db", db, "--format", format, ids[1])
		if r.code != exitOK {
			t.Fatalf("report --format %s: exit %d\n%s", format, r.code, r.stderr)
		}
		requireSafeOutput(t, "report "+format, r.stdout)
		if !strings.Contains(r.stdout, `id\x1b]52;c;aGVsbG8=\x07a`) {
			t.Fatalf("report --format %s does not show the id:\n%s", format, r.stdout)
		}
	}
	md := filepath.Join(t.TempDir(), "report.md")
	if r := runBin(t, env, "report", "--db", db, "--format", "md", "--out", md, ids[1]); r.code != exitOK {
		t.Fatalf("report --out: exit %d\n%s", r.code, r.stderr)
	}
	if body, err := os.ReadFile(md); err != nil || !strings.Contains(string(body), evilShown+"B.jsonl") {
		t.Fatalf("report.md (%v):\n%s", err, body)
	} else {
		requireSafeOutput(t, "report.md", string(body))
	}

	stats := runBin(t, env, "cache", "stats", "--db", db)
	requireSafeOutput(t, "cache stats", stats.stdout+stats.stderr)
	if stats.code != exitOK || !strings.Contains(stats.stdout, evilShown+"/r.db") {
		t.Fatalf("cache stats: exit %d\n%s%s", stats.code, stats.stdout, stats.stderr)
	}

	// Error messages quote what the user gave: a run id, a file name, a flag.
	for name, args := range map[string][]string{
		"unknown run":        {"report", "--db", db, "no" + evilOSC52},
		"unknown run (diff)": {"diff", "--db", db, ids[0], "no" + evilOSC52},
		"unwritable out":     {"report", "--db", db, "--out", filepath.Join(dir, "missing"+evilRLO, "r.md"), ids[0]},
		"export to nowhere":  {"cache", "export", "--db", db, filepath.Join(dir, "missing"+evilCSI, "c.jsonl")},
		"import nothing":     {"cache", "import", "--db", db, filepath.Join(dir, "missing"+evilOSC52+".jsonl")},
		"unknown flag":       {"runs", "--db", db, "--bogus" + evilOSC52},
		"bad prompts dir":    {"prompts", "list", "--prompts", filepath.Join(dir, "missing"+evilOSC52)},
		"run: missing file":  {"run", "--headless", "--db", db, filepath.Join(dir, "missing"+evilOSC52+".jsonl")},
		"run: bad --map":     {"run", "--headless", "--db", db, "--map", "bogus" + evilOSC52, dataA},
	} {
		r := runBin(t, env, args...)
		if r.code == exitOK {
			t.Errorf("%s: exit 0\n%s", name, r.stdout)
			continue
		}
		requireSafeOutput(t, name, r.stdout+r.stderr)
		if !strings.Contains(r.stderr, `\x1b`) && !strings.Contains(r.stderr, `<U+202E>`) && !strings.Contains(r.stderr, `\u202e`) {
			t.Errorf("%s: the error does not show what was given:\n%s", name, r.stderr)
		}
	}

	// The settings file named by RAGSCOPE_CONFIG, quoted by its error.
	bad := filepath.Join(dir, "settings"+evilOSC52+".json")
	if err := os.WriteFile(bad, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := runBin(t, append(env, "RAGSCOPE_CONFIG="+bad), "runs", "--db", db)
	requireSafeOutput(t, "bad settings file", cfg.stdout+cfg.stderr)
	if cfg.code != exitUsage || !strings.Contains(cfg.stderr, `settings\x1b]52;c;aGVsbG8=\x07.json`) {
		t.Fatalf("bad settings file: exit %d\n%s", cfg.code, cfg.stderr)
	}

	// prompts export and list name the override files.
	pdir := filepath.Join(dir, "prompts"+evilOSC52)
	ex := runBin(t, env, "prompts", "export", pdir)
	requireSafeOutput(t, "prompts export", ex.stdout+ex.stderr)
	if ex.code != exitOK || !strings.Contains(ex.stdout, `prompts\x1b]52`) {
		t.Fatalf("prompts export: exit %d\n%s%s", ex.code, ex.stdout, ex.stderr)
	}
	ls := runBin(t, env, "prompts", "list", "--prompts", pdir)
	requireSafeOutput(t, "prompts list", ls.stdout+ls.stderr)
	if ls.code != exitOK || !strings.Contains(ls.stdout, `prompts\x1b]52;c;aGVsbG8=\x07/faithfulness_statements.en.tmpl`) {
		t.Fatalf("prompts list: exit %d\n%s%s", ls.code, ls.stdout, ls.stderr)
	}
}

// sanitizedDir is a temporary directory (no escapes) followed by the
// hostile directory name as shown.
func sanitizedDir(dir string) string {
	return filepath.Join(filepath.Dir(dir), evilShown)
}

// The JSON and JSON Lines reports escape what a terminal would act on or
// hide (a bidi override, the one-rune CSI U+009B, NEL, DEL, a zero-width
// space) as \uXXXX, so that `cat report.json` is safe; the text still
// decodes to exactly what the dataset held.
func TestJSONReportsEscapeBidiAndC1(t *testing.T) {
	const question = "which\u202e way? \u009b2J\u0085next\u007f\u200bend \U000E0041 税号"
	dir := t.TempDir()
	data := filepath.Join(dir, "d.jsonl")
	rec, _ := json.Marshal(map[string]any{"user_input": question, "response": "The answer\u202e.", "retrieved_contexts": []string{"chunk\u009b"}})
	if err := os.WriteFile(data, append(rec, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "r.db")
	env := cleanEnv(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"run --format json", []string{"run", "--headless", "--offline", "--db", db, "--format", "json", data}},
		{"run --format jsonl", []string{"run", "--headless", "--offline", "--db", db, "--format", "jsonl", data}},
		{"report --format json", []string{"report", "--db", db, "latest", "--format", "json"}},
		{"report --format jsonl", []string{"report", "--db", db, "latest", "--format", "jsonl"}},
	} {
		r := runBin(t, env, c.args...)
		if r.code != exitOK {
			t.Fatalf("%s: exit %d\n%s", c.name, r.code, r.stderr)
		}
		for i, ru := range r.stdout {
			if ru == 0x7f || (ru >= 0x80 && ru < 0xa0) || ru == 0x202e || ru == 0x200b || ru >= 0xe0000 {
				t.Fatalf("%s: raw %U at byte %d:\n%s", c.name, ru, i, r.stdout)
			}
		}
		if !strings.Contains(r.stdout, `which\u202e way? \u009b2J\u0085next\u007f\u200bend \udb40\udc41 税号`) {
			t.Errorf("%s: the question is not written with escapes:\n%s", c.name, r.stdout)
		}
		first := strings.SplitN(r.stdout, "\n", 2)[0]
		var got struct {
			UserInput string `json:"user_input"`
			Question  string `json:"question"`
			Samples   []struct {
				Question string `json:"question"`
			} `json:"samples"`
		}
		body := r.stdout
		if strings.HasSuffix(c.name, "jsonl") {
			body = first
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", c.name, err, body)
		}
		q := got.Question
		if len(got.Samples) > 0 {
			q = got.Samples[0].Question
		}
		if q != question {
			t.Errorf("%s: decodes to %q, want %q", c.name, q, question)
		}
	}
}
