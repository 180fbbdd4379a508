package e2e

import (
	"bytes"
	"context"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHTMLReport: run --headless --format html writes the page to stdout,
// report --format html --out writes the stored run's to a file; both open
// with the taxpayer sample's drill-down (its statements, verdicts' reasons
// and evidence, the formula) in Chinese, and load nothing.
func TestHTMLReport(t *testing.T) {
	env := cleanEnv(t)
	db := filepath.Join(t.TempDir(), "r.db")
	run := runBin(t, env, "run", "--headless", "--db", db, "--format", "html", repoFile("testdata/demo.jsonl"))
	if run.code != exitOK {
		t.Fatalf("run: exit %d\n%s", run.code, run.stderr)
	}
	out := filepath.Join(t.TempDir(), "report.html")
	rep := runBin(t, env, "report", "latest", "--db", db, "--format", "html", "--out", out)
	if rep.code != exitOK || rep.stdout != "" {
		t.Fatalf("report: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	body, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for name, page := range map[string]string{"run": run.stdout, "report": string(body)} {
		if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.HasSuffix(page, "</html>\n") {
			t.Fatalf("%s: not one whole page:\n%.300s", name, page)
		}
		text := html.UnescapeString(page)
		for _, want := range []string{
			`<meta charset="utf-8">`,
			"default-src 'none'", // the page may load nothing
			"zh-taxpayer-id",
			"会的，转为一般纳税人后纳税人识别号会变更",                // a statement
			`context says "纳税人识别号保持不变"`,           // its reason
			`evidence [1] "纳税人识别号保持不变"`,           // its evidence
			"0 of 2 statements supported = 0.000", // the formula
		} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the page lacks %q", name, want)
			}
		}
		for _, bad := range []string{"http://", "https://", " src=", " href="} {
			if strings.Contains(page, bad) {
				t.Errorf("%s: the page refers to something outside it (%q)", name, bad)
			}
		}
	}
}

// TestHTMLReportInBrowser opens the demo run's page in headless Chromium
// (skipped without it): the script runs (the sample count is filled in),
// the page says nothing on the console (no error, and no load refused by
// its content security policy, which refuses every load), and the
// taxpayer sample's drill-down, opened by its anchor, shows its statements
// and reasons.
func TestHTMLReportInBrowser(t *testing.T) {
	needBinary(t)
	var browser string
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no chromium on PATH: the page is not checked in a browser (apt-get install chromium)")
	}
	env := cleanEnv(t)
	dir := t.TempDir()
	db, page := filepath.Join(dir, "r.db"), filepath.Join(dir, "report.html")
	if r := runBin(t, env, "run", "--headless", "--db", db, "--format", "html", "--out", page, repoFile("testdata/demo.jsonl")); r.code != exitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+page+"#s0")
	cmd.Env = append(env, "XDG_CONFIG_HOME="+dir)
	var dom, log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &dom, &log
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, log.String())
	}
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") {
			t.Errorf("console: %s", l)
		}
	}
	text := html.UnescapeString(dom.String())
	if !strings.Contains(text, "14 of 14 samples") {
		t.Errorf("the script did not run: no sample count in\n%.2000s", text)
	}
	i := strings.Index(text, `<details id="s0" open=""`)
	if i < 0 {
		t.Fatalf("the anchor did not open the taxpayer sample's drill-down:\n%.2000s", text)
	}
	for _, want := range []string{"会的，转为一般纳税人后纳税人识别号会变更", `context says "纳税人识别号保持不变"`} {
		if !strings.Contains(text[i:], want) {
			t.Errorf("the open drill-down lacks %q", want)
		}
	}
}

// TestHTMLCompare: diff --format html --out writes run B's page compared
// with run A (the changed taxpayer sample's Δ and its changed verdict with
// both reasons); run --headless --baseline --format html writes the same
// comparison for the new run; a bad --format is a usage error and leaves
// no file.
func TestHTMLCompare(t *testing.T) {
	env := cleanEnv(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	if r := runBin(t, env, "run", "--headless", "--db", db, repoFile("testdata/demo.jsonl")); r.code != exitOK {
		t.Fatalf("run A: exit %d\n%s", r.code, r.stderr)
	}
	demo, err := os.ReadFile(repoFile("testdata/demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(dir, "edited.jsonl")
	fixed := strings.Replace(string(demo), "转为一般纳税人后纳税人识别号会变更", "转为一般纳税人后纳税人识别号保持不变", 1)
	if fixed == string(demo) {
		t.Fatal("the demo no longer has the taxpayer answer this test edits")
	}
	if err := os.WriteFile(edited, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	run := runBin(t, env, "run", "--headless", "--db", db, "--baseline", "latest", "--format", "html", edited)
	if run.code != exitOK {
		t.Fatalf("run B: exit %d\n%s", run.code, run.stderr)
	}
	page := filepath.Join(dir, "compare.html")
	// runs lists the newest first, under a header: run A is the last row.
	rows := strings.Split(strings.TrimSpace(runIDs(t, env, db)), "\n")
	if len(rows) != 3 {
		t.Fatalf("runs:\n%s", strings.Join(rows, "\n"))
	}
	runA := strings.Fields(rows[2])[0]
	if d := runBin(t, env, "diff", "--db", db, runA, "latest", "--format", "html", "--out", page); d.code != exitOK {
		t.Fatalf("diff: exit %d\n%s", d.code, d.stderr)
	}
	body, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]string{"diff": string(body), "run --baseline": run.stdout} {
		text := html.UnescapeString(p)
		for _, want := range []string{
			"Compared with run ",
			"14 samples shared (14 by id, 0 by content)",
			`data-label="Δ F">+0.50</td>`,
			`before: "会的，转为一般纳税人后纳税人识别号会变更"  0: context says "纳税人识别号保持不变"`,
			`after: "会的，转为一般纳税人后纳税人识别号保持不变"  1: context says`,
		} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the page lacks %q", name, want)
			}
		}
	}
	bad := filepath.Join(dir, "bad.html")
	if r := runBin(t, env, "diff", "--db", db, "latest", "latest", "--format", "xml", "--out", bad); r.code != exitUsage || !strings.Contains(r.stderr, `--format "xml" is not one of text, json, html`) {
		t.Errorf("diff --format xml: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("a refused diff left its --out file")
	}
}
