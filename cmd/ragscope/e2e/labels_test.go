package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/labels"
)

// The label commands end to end on the demo with the offline judge: import
// (twice, idempotent), a bad file, an unmatched line, agreement, report
// --with-labels, export.
func TestLabelCommands(t *testing.T) {
	env := cleanEnv(t)
	db := filepath.Join(t.TempDir(), "l.db")
	if r := runBin(t, env, "run", "--headless", "--db", db, repoFile("testdata/demo.jsonl")); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	r := runBin(t, env, "report", "latest", "--db", db)
	rep := decodeReport(t, r.stdout)
	var stmt string
	for _, s := range rep.Samples {
		if s.ID == "zh-taxpayer-id" {
			stmt = s.Faithfulness.Statements[0].Statement
			if s.Faithfulness.Statements[0].Verdict != 0 || *s.Scores[eval.Faithfulness] != 0 {
				t.Fatalf("the demo's taxpayer sample changed: %+v", s.Faithfulness)
			}
		}
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	line, _ := json.Marshal(map[string]any{"sample": "zh-taxpayer-id", "task": "faithfulness_verdicts", "item": stmt, "label": 1, "note": "supported after all"})
	good := write("labels.jsonl", string(line)+"\n")

	bad := write("bad.jsonl", `{"sample": "zh-taxpayer-id", "task": "faithfulness_verdicts", "item": "x", "label": 2}`+"\n")
	if r := runBin(t, env, "labels", "import", bad, "--run", "latest", "--db", db); r.code != 2 || !strings.Contains(r.stderr, `bad.jsonl:1: "label" must be 0 or 1`) {
		t.Fatalf("bad file: exit %d\n%s", r.code, r.stderr)
	}
	if r := runBin(t, env, "labels", "import", good, "--db", db); r.code != 2 || !strings.Contains(r.stderr, "--run") {
		t.Fatalf("without --run: exit %d\n%s", r.code, r.stderr)
	}
	r = runBin(t, env, "labels", "import", good, "--run", "latest", "--db", db)
	if r.code != 0 || !strings.Contains(r.stdout, "1 added, 0 changed, 0 unchanged, 0 matched nothing") {
		t.Fatalf("import: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, env, "labels", "import", good, "--run", "latest", "--db", db)
	if r.code != 0 || !strings.Contains(r.stdout, "0 added, 0 changed, 1 unchanged") {
		t.Fatalf("the same import again: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	stray := write("stray.jsonl", `{"sample": "zh-taxpayer-id", "task": "faithfulness_verdicts", "item": "not in the answer", "label": 0}`+"\n")
	r = runBin(t, env, "labels", "import", stray, "--run", "latest", "--db", db)
	if r.code != 3 || !strings.Contains(r.stderr, `stray.jsonl:1: sample "zh-taxpayer-id"`) || !strings.Contains(r.stderr, `"not in the answer"`) {
		t.Fatalf("an unmatched line: exit %d\n%s", r.code, r.stderr)
	}

	r = runBin(t, env, "agreement", "latest", "--json", "--db", db)
	if r.code != 0 {
		t.Fatalf("agreement: exit %d\n%s", r.code, r.stderr)
	}
	var a labels.Agreement
	if err := json.Unmarshal([]byte(r.stdout), &a); err != nil {
		t.Fatal(err)
	}
	f := a.Tasks[eval.LabelFaithfulness]
	if f.Labelled != 1 || f.Confusion != (labels.Confusion{FN: 1}) || *f.Accuracy != 0 || a.Metrics[eval.Faithfulness].Changed != 1 {
		t.Fatalf("agreement: %s", r.stdout)
	}
	if r := runBin(t, env, "agreement", "latest", "--db", db); r.code != 0 || !strings.Contains(r.stdout, "faithfulness_verdicts") {
		t.Fatalf("agreement as text: exit %d\n%s", r.code, r.stdout)
	}

	r = runBin(t, env, "report", "latest", "--with-labels", "--db", db)
	for _, s := range decodeReport(t, r.stdout).Samples {
		if s.ID == "zh-taxpayer-id" && *s.Scores[eval.Faithfulness] != 0.5 {
			t.Fatalf("with labels the taxpayer sample scores %v, want 0.5", *s.Scores[eval.Faithfulness])
		}
	}

	r = runBin(t, env, "labels", "export", "-", "--db", db)
	var back map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &back); r.code != 0 || err != nil || back["item"] != stmt ||
		back["sample"] != "zh-taxpayer-id" || back["label"] != 1.0 || back["note"] != "supported after all" {
		t.Fatalf("export: %s (%v)", r.stdout, err)
	}
}

// A label file with a line too long to be a label (a dataset given by
// mistake, a file without newlines) is refused naming the file, the line
// and the limit, not with Go's "bufio.Scanner: token too long".
func TestLabelsImportLongLine(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		lines []string
		line  string
	}{
		{"the first line", []string{strings.Repeat("x", 17<<20)}, "long.jsonl:1:"},
		{"the third line", []string{`{"sample":"0","task":"faithfulness","item":"a","label":1}`, "", `{"note":"` + strings.Repeat("y", 50<<20) + `"}`}, "long.jsonl:3:"},
	} {
		p := filepath.Join(dir, "long.jsonl")
		if err := os.WriteFile(p, []byte(strings.Join(c.lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runBin(t, cleanEnv(t), "labels", "import", p, "--run", "latest", "--db", filepath.Join(dir, "x.db"))
		if r.code != exitUsage || !strings.Contains(r.stderr, c.line) || !strings.Contains(r.stderr, "16 MiB") || strings.Contains(r.stderr, "token too long") {
			t.Errorf("%s: exit %d\n%s", c.name, r.code, r.stderr)
		}
	}
}
