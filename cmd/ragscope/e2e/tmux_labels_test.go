package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/labels"
)

// The review sequence through the real binary: open a sample, move
// to a statement, mark disagree, go back, filter label:disputed, see it;
// quit; `agreement latest --json` reports it.
func TestLabelReviewInTmux(t *testing.T) {
	db := filepath.Join(t.TempDir(), "review.db")
	p := startTmux(t, 120, 40, "testdata/demo.jsonl", "--db", db)
	p.waitForText("finished in", "14/14")

	p.keys("/")
	p.waitForText("/ f<0.5 ar<0.7")
	p.typeText(taxpayerQuestion)
	p.keys("Enter")
	p.waitForText("filter: "+taxpayerQuestion, "1 of 14 samples")
	p.keys("Enter")
	p.waitForText("id zh-taxpayer-id", "0 of 2 statements supported")

	p.keys("]")
	p.waitForText("> not labelled: a agree, d disagree")
	p.keys("d")
	p.waitForText("the judge said 0 (disputed)", "label stored")

	p.keys("Escape")
	p.waitForText("filter: " + taxpayerQuestion)
	p.keys("Escape") // clears the filter
	p.waitFor("the filter cleared", func(s string) bool { return !strings.Contains(s, "filter: ") && len(tableRowsOrNil(s)) == 14 })
	p.keys("/")
	p.waitForText("/ ")
	p.typeText("label:disputed")
	p.keys("Enter")
	s := p.waitForText("filter: label:disputed", "1 of 14 samples")
	rows := tableRows(t, s)
	if len(rows) != 1 || !strings.Contains(rows[0].line, taxpayerQuestion) || !strings.HasPrefix(strings.Fields(rows[0].line)[0], "▾D") {
		t.Fatalf("label:disputed should show the taxpayer row, marked D:\n%s", s)
	}
	if code := p.quit(); code != 0 {
		t.Fatalf("exit %d", code)
	}

	r := runBin(t, cleanEnv(t), "agreement", "latest", "--json", "--db", db)
	if r.code != 0 {
		t.Fatalf("agreement: exit %d\n%s", r.code, r.stderr)
	}
	var a labels.Agreement
	if err := json.Unmarshal([]byte(r.stdout), &a); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	f := a.Tasks[eval.LabelFaithfulness]
	if f.Labelled != 1 || f.Confusion != (labels.Confusion{FN: 1}) || f.Accuracy == nil || *f.Accuracy != 0 {
		t.Fatalf("agreement after the review: %s", r.stdout)
	}
	if m := a.Metrics[eval.Faithfulness]; m.Disputed != 1 || m.Changed != 1 {
		t.Fatalf("faithfulness with the label: %+v", m)
	}
}

// tableRowsOrNil is the table's rows, nil on a half-drawn frame.
func tableRowsOrNil(s string) []tableRow {
	rows, _ := parseRows(s)
	return rows
}
