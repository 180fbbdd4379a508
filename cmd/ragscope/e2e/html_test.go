package e2e

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
