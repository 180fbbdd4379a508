package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval/fakejudge"
)

// The Chinese example criteria on the demo with the fake LLM judge, in a
// real terminal: the table has a column per criterion and counts the
// criterion diagnosis; a sample that fails simplified_chinese opens on a
// title naming the criteria it fails, and their sections say why: the
// exact check's outcome, each draw and the majority of a yes_no, each item
// of a checklist, a rubric's level; p lists the criteria's prompts with
// the others.
func TestCriteriaInTmux(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "r.db")
	p := startTmuxEnv(t, 160, 50, []string{"OPENAI_API_KEY=k", "OPENAI_BASE_URL=" + srv.BaseURL()},
		binary, "run", "--db", db, "--metrics", "faithfulness", "--criteria", "testdata/criteria/zh-enterprise.yaml", "testdata/demo.jsonl")
	s := p.waitForText("finished in", "14/14")
	if !strings.Contains(s, "criterion ") {
		t.Fatalf("the diagnosis line does not count the criterion class:\n%s", s)
	}

	p.keys("/")
	p.waitForText("/ ")
	p.typeText("simplified_chinese<1")
	p.keys("Enter")
	p.waitForText("filter: simplified_chinese<1", "7 of 14 samples")
	p.keys("Enter")
	// The title names what the sample fails, in the file's order; each
	// criterion has its section under the metric's.
	s = p.waitForText("id en-travel-expense", "criterion cites_policy, simplified_chinese, actionable")
	for _, want := range []string{
		"criterion simplified_chinese  0.000  (passes at 1)\n  not Chinese: 22 Latin words against 0 Chinese characters",
		"3 of 3 draws yes: the majority says yes = 1.000",
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("the detail page lacks %q:\n%s", want, s)
		}
	}
	p.keys("G")
	p.waitForText("criterion helpfulness  1.000  (passes at 0.5)\n  level 5: ")
	p.keys("BTab")
	p.waitForText("criterion actionable  0.667  (passes at 1)", "✗ If the context sets an approver", "2 of 3 items passed = 0.667")

	p.keys("Escape")
	p.waitForText("filter: simplified_chinese<1")
	p.keys("p")
	s = p.waitForText("criterion_yes_no", "criterion_rubric", "criterion_checklist")
	if !strings.Contains(s, "faithfulness_verdicts") {
		t.Fatalf("p does not list the criteria's prompts with the others:\n%s", s)
	}
	p.keys("Escape")
	p.waitForText("filter: simplified_chinese<1")
	if code := p.quit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
