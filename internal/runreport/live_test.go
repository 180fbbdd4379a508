package runreport

import (
	"bytes"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

func liveResult(i int) *eval.Result {
	f := float64((i*7919)%1000) / 999
	text := "answer " + strings.Repeat("x", (i*31)%2000)
	return &eval.Result{Index: i, ID: "s", Question: "q", Answer: text, Contexts: []string{"c"},
		Scores: map[eval.Metric]*float64{eval.Faithfulness: &f},
		Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}}
}

// Results added in any order (here shuffled across more than one spool
// window, with a sample missing) give the JSON report of the same results
// tallied and written in the order of the samples; the spool has no name
// once made, and a result given twice makes the pass give up.
func TestLivePassInAnyOrder(t *testing.T) {
	const n = 3000
	info := report.RunInfo{ID: "20260101-000000-live", Metrics: []eval.Metric{eval.Faithfulness}, Samples: n}
	dir := t.TempDir()
	l, err := NewLive(info, report.Gate{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if names, _ := os.ReadDir(dir); len(names) != 0 && l.unlinked {
		t.Fatalf("the spool is still named: %v", names)
	}
	order := rand.New(rand.NewPCG(1, 2)).Perm(n)
	tally := report.NewTallyAt(info.Scored(), report.RunLevels(info))
	for _, i := range order {
		if i == 1234 {
			continue
		}
		l.Add(liveResult(i))
	}
	sr := l.Pass(info)
	if sr == nil {
		t.Fatal("no pass")
	}
	var got, want bytes.Buffer
	if err := sr.Write(nil, FormatJSON, &got); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if i != 1234 {
			tally.Add(liveResult(i))
		}
	}
	if err := report.WriteReportJSON(&want, info, tally.Summary(), tally.Diagnoses(), tally.Conversations(), func(yield func(*eval.Result) error) error {
		for i := range n {
			if i == 1234 {
				continue
			}
			if err := yield(liveResult(i)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if l.size <= 2*spoolWindow {
		t.Fatalf("the spool is %d bytes: the test must span windows", l.size)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("the live report (%d bytes) differs from the one in order (%d bytes)", got.Len(), want.Len())
	}

	twice, err := NewLive(info, report.Gate{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer twice.Close()
	twice.Add(liveResult(3))
	twice.Add(liveResult(3))
	if twice.Pass(info) != nil {
		t.Fatal("a result given twice still made a pass")
	}
}
