package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// passDataset is two samples the offline judge scores without a reference:
// an on-point answer that shares no word with its question (faithfulness
// 1, answer-to-question cosine 0) and an answer half of whose statements
// the context does not support (faithfulness 0.5), with no number it
// contradicts, so that the pass levels decide its diagnosis.
func passDataset(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pass.jsonl")
	data := `{"id":"laptop","question":"What should I do if my company laptop is stolen?","answer":"Report it to the IT Service Desk at ext. 8000 within 24 hours.","contexts":["If a company laptop is lost or stolen, report it to the IT Service Desk at ext. 8000 within 24 hours."]}
{"id":"half","question":"How many days of annual leave do new employees get?","answer":"New employees get 10 days of annual leave. Unused leave can be carried over without any limit.","contexts":["New employees get 10 days of annual leave. Unused leave expires at the end of March of the next year."]}
`
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func diagnosisOf(t *testing.T, out, id string) string {
	t.Helper()
	rep := decodeReport(t, out)
	for _, s := range rep.Samples {
		if s.ID == id {
			return rep.Run.Config[report.LevelsConfigKey] + "|" + diagOfSample(t, out, id)
		}
	}
	t.Fatalf("no sample %q in the report:\n%s", id, out)
	return ""
}

// diagOfSample reads the "diagnosis" the JSON report wrote for sample id.
func diagOfSample(t *testing.T, out, id string) string {
	t.Helper()
	i := strings.Index(out, `"id": "`+id+`"`)
	if i < 0 {
		t.Fatalf("no sample %q", id)
	}
	rest := out[i:]
	j := strings.Index(rest, `"diagnosis": "`)
	if j < 0 {
		t.Fatalf("sample %q has no diagnosis", id)
	}
	rest = rest[j+len(`"diagnosis": "`):]
	return rest[:strings.IndexByte(rest, '"')]
}

// TestPassLevels: --pass sets the level a score must reach to pass, on run
// (recorded with the run), report and the settings file; a stored run's
// report uses the levels it was run with unless --pass overrides them. A
// faithfulness of 0.5 is ok at the default level and generation at 0.9.
func TestPassLevels(t *testing.T) {
	env := cleanEnv(t)
	db := filepath.Join(t.TempDir(), "p.db")
	data := passDataset(t)

	plain := runBin(t, env, "run", "--headless", "--db", db, data)
	if plain.code != exitOK {
		t.Fatalf("run: exit %d\n%s", plain.code, plain.stderr)
	}
	if got := diagnosisOf(t, plain.stdout, "half"); got != "|ok" {
		t.Fatalf("default levels: half is %q, want ok with no pass recorded", got)
	}
	first := decodeReport(t, plain.stdout).Run.ID

	strict := runBin(t, env, "run", "--headless", "--db", db, "--pass", "faithfulness=0.9", data)
	if strict.code != exitOK {
		t.Fatalf("run --pass: exit %d\n%s", strict.code, strict.stderr)
	}
	if got := diagnosisOf(t, strict.stdout, "half"); got != "faithfulness=0.9|generation" {
		t.Fatalf("--pass faithfulness=0.9: half is %q, want generation with the levels recorded", got)
	}
	if got := diagnosisOf(t, strict.stdout, "laptop"); got != "faithfulness=0.9|ok" {
		t.Fatalf("laptop is %q, want ok", got)
	}
	if !strings.Contains(strict.stderr, "pass levels: faithfulness >= 0.9") || !strings.Contains(strict.stderr, "generation 1") {
		t.Fatalf("the summary does not give the levels and their diagnoses:\n%s", strict.stderr)
	}

	// The stored runs keep their levels; --pass overrides them.
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"the strict run as recorded", []string{"latest"}, "faithfulness=0.9|generation"},
		{"the first run as recorded", []string{first}, "|ok"},
		{"the first run with --pass", []string{first, "--pass", "f=0.9"}, "faithfulness=0.9|generation"},
		{"the strict run with other levels", []string{"latest", "--pass", "faithfulness=0.4"}, "faithfulness=0.4|ok"},
	} {
		r := runBin(t, env, append([]string{"report", "--db", db, "--format", "json"}, tc.args...)...)
		if r.code != exitOK {
			t.Fatalf("%s: exit %d\n%s", tc.name, r.code, r.stderr)
		}
		if got := diagnosisOf(t, r.stdout, "half"); got != tc.want {
			t.Errorf("%s: half is %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, format := range []string{"csv", "jsonl", "md"} {
		r := runBin(t, env, "report", "latest", "--db", db, "--format", format)
		if r.code != exitOK || !strings.Contains(r.stdout, "generation") {
			t.Errorf("report --format %s of the strict run does not diagnose generation:\n%s%s", format, r.stdout, r.stderr)
		}
	}

	// The settings key.
	settings := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(settings, []byte(`{"pass": "faithfulness=0.9"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fromFile := runBin(t, cleanEnv(t, "RAGSCOPE_CONFIG="+settings), "run", "--headless", "--db", db, data)
	if fromFile.code != exitOK {
		t.Fatalf("run with the settings key: exit %d\n%s", fromFile.code, fromFile.stderr)
	}
	if got := diagnosisOf(t, fromFile.stdout, "half"); got != "faithfulness=0.9|generation" {
		t.Fatalf("settings key pass: half is %q, want generation", got)
	}

	// Bad levels are refused before anything runs.
	for _, args := range [][]string{
		{"run", "--headless", "--db", db, "--pass", "faithfulness=2", data},
		{"run", "--headless", "--db", db, "--pass", "nosuch=0.5", data},
		{"report", "latest", "--db", db, "--pass", "faithfulness"},
	} {
		if r := runBin(t, env, args...); r.code != exitUsage || !strings.Contains(r.stderr, "--pass") {
			t.Errorf("%v: exit %d, want %d naming --pass\n%s", args, r.code, exitUsage, r.stderr)
		}
	}
}

// TestContradictedNumberDiagnosed: an answer that gives a number its
// context contradicts is generation's failure at the default levels,
// though half its statements are supported; the JSON names the conflict
// and the Markdown report's why quotes the statement. The same answer
// with the context's number is ok.
func TestContradictedNumberDiagnosed(t *testing.T) {
	env := cleanEnv(t)
	db := filepath.Join(t.TempDir(), "n.db")
	data := filepath.Join(t.TempDir(), "n.jsonl")
	row := func(id, days string) string {
		return `{"id":"` + id + `","question":"How many days of annual leave do new employees get?","answer":"New employees get ` + days +
			` days of annual leave. Unused leave expires at the end of March of the next year.","contexts":["New employees get 10 days of annual leave. Unused leave expires at the end of March of the next year."]}` + "\n"
	}
	if err := os.WriteFile(data, []byte(row("wrong", "12")+row("right", "10")), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, env, "run", "--headless", "--db", db, data)
	if r.code != exitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	for id, want := range map[string]string{"wrong": "generation", "right": "ok"} {
		if got := diagOfSample(t, r.stdout, id); got != want {
			t.Errorf("%s: diagnosed %s, want %s", id, got, want)
		}
	}
	for _, s := range decodeReport(t, r.stdout).Samples {
		conflicts := 0
		for _, v := range s.Faithfulness.Statements {
			if v.Conflict == eval.ConflictNumber {
				conflicts++
			}
		}
		if want := map[string]int{"wrong": 1, "right": 0}[s.ID]; conflicts != want {
			t.Errorf("%s: %d statements with a number conflict, want %d: %+v", s.ID, conflicts, want, s.Faithfulness.Statements)
		}
	}
	md := runBin(t, env, "report", "latest", "--db", db, "--format", "md")
	if md.code != exitOK || !strings.Contains(md.stdout, `contradicted: "New employees get 12 days of annual leave."`) {
		t.Fatalf("report md: exit %d, no why naming the contradicted statement:\n%s%s", md.code, md.stdout, md.stderr)
	}
}

// TestOfflineAnswerRelevancyUnsupported: offline, an on-point answer that
// shares no word with its question is not off-topic. Answer relevancy is
// unsupported with its reason, the JSON keeps the trace's cosine of 0, and
// the Markdown report gives every listed sample a why.
func TestOfflineAnswerRelevancyUnsupported(t *testing.T) {
	env := cleanEnv(t)
	db := filepath.Join(t.TempDir(), "o.db")
	r := runBin(t, env, "run", "--headless", "--db", db, passDataset(t))
	if r.code != exitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	rep := decodeReport(t, r.stdout)
	var laptop *eval.Result
	for _, s := range rep.Samples {
		if s.ID == "laptop" {
			laptop = s
		}
	}
	if laptop == nil {
		t.Fatal("no laptop sample")
	}
	if st := laptop.Status[eval.AnswerRelevancy]; st != eval.StatusUnsupported || !strings.Contains(laptop.Errors[eval.AnswerRelevancy], "shared words") {
		t.Fatalf("answer relevancy %s: %q, want unsupported with its reason", st, laptop.Errors[eval.AnswerRelevancy])
	}
	if got := diagOfSample(t, r.stdout, "laptop"); got != "ok" {
		t.Fatalf("the on-point answer is diagnosed %s", got)
	}
	i := strings.Index(r.stdout, `"id": "laptop"`)
	if !strings.Contains(r.stdout[i:], `"answer_cosine": 0,`) && !strings.Contains(r.stdout[i:], `"answer_cosine": 0`+"\n") {
		t.Fatalf("the JSON drops the answer cosine of 0:\n%s", r.stdout[i:])
	}
	md := runBin(t, env, "report", "latest", "--db", db, "--format", "md")
	if md.code != exitOK {
		t.Fatalf("report md: exit %d\n%s", md.code, md.stderr)
	}
	rows := 0
	for _, l := range strings.Split(md.stdout, "\n") {
		if strings.HasPrefix(l, "| ") && (strings.Contains(l, "laptop") || strings.Contains(l, "half")) {
			rows++
			if strings.HasSuffix(l, "|  |") {
				t.Errorf("empty why: %s", l)
			}
		}
	}
	if rows != 2 {
		t.Fatalf("%d sample rows in the Markdown report:\n%s", rows, md.stdout)
	}
}

// TestOpenFollowsPassLevelsInTmux: open shows a stored run at the levels it
// was run with (faithfulness 0.5 fails at 0.9: generation, marked ▾) and
// at the levels --pass gives (0.4: ok, marked ! for the metrics a
// sample without a reference cannot have).
func TestOpenFollowsPassLevelsInTmux(t *testing.T) {
	db := filepath.Join(t.TempDir(), "o.db")
	if r := runBin(t, cleanEnv(t), "run", "--headless", "--db", db, "--pass", "faithfulness=0.9", passDataset(t)); r.code != exitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	for _, tc := range []struct {
		args       []string
		mark, diag string
	}{
		{nil, "▾", "generation"},
		{[]string{"--pass", "f=0.4"}, "!", "ok"},
	} {
		p := startTmux(t, 120, 20, append([]string{"open", "latest", "--db", db}, tc.args...)...)
		s := p.waitForText("How many days of annual leave")
		row := ""
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "How many days of annual leave") {
				row = l
			}
		}
		if f := strings.Fields(row); len(f) == 0 || f[0] != tc.mark || f[len(f)-1] != tc.diag {
			t.Errorf("open %v: row %q, want mark %s and %s", tc.args, row, tc.mark, tc.diag)
		}
		if code := p.quit(); code != 0 {
			t.Fatalf("open exited %d", code)
		}
	}
}
