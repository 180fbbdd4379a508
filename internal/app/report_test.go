package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/runreport"
	"github.com/ragscope/ragscope/internal/store"
)

// reportFixture stores a run of n samples (every seventh never finished,
// some failed, some not applicable) and returns its id.
func reportFixture(t *testing.T, st cache.Store, n int) string {
	t.Helper()
	id, err := st.NewRunID()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutRun(report.RunInfo{ID: id, Dataset: "d.jsonl", Samples: n, Metrics: eval.AllMetrics,
		StartedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Judge: eval.JudgeInfo{Name: "offline"}}); err != nil {
		t.Fatal(err)
	}
	var rs []*eval.Result
	for i := 0; i < n; i++ {
		if i%7 == 3 {
			continue
		}
		v := float64(i%5) / 4
		r := &eval.Result{Index: i, ID: fmt.Sprintf("s%d", i), Question: fmt.Sprintf("q%d <&>", i), Answer: "答案",
			Contexts: []string{"c"}, Scores: map[eval.Metric]*float64{eval.Faithfulness: &v},
			Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.ContextRecall: eval.StatusMissingInput}}
		if i%11 == 0 {
			r.Status[eval.AnswerRelevancy] = eval.StatusJudgeError
			r.Errors = map[eval.Metric]string{eval.AnswerRelevancy: fmt.Sprintf("429 on sample %d", i%3)}
		}
		rs = append(rs, r)
	}
	if err := st.PutResults(id, rs); err != nil {
		t.Fatal(err)
	}
	return id
}

// A report streamed from the store, a page at a time, is the report built
// from the whole run in memory, in every format, whether the store is the
// file or a holder across the socket (whose pages are capped).
func TestWriteReportStreamsTheWholeReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	holder := openShared(t, path, store.Hold)
	client := openShared(t, path, store.Read)
	id := reportFixture(t, holder, 1300)
	info, results, err := holder.Run(id)
	if err != nil {
		t.Fatal(err)
	}
	whole := report.NewReport(info, results)
	want := map[string]*bytes.Buffer{runreport.FormatJSON: {}, runreport.FormatCSV: {}, runreport.FormatMarkdown: {}}
	if err := whole.WriteJSON(want[runreport.FormatJSON]); err != nil {
		t.Fatal(err)
	}
	if err := whole.WriteCSV(want[runreport.FormatCSV]); err != nil {
		t.Fatal(err)
	}
	if err := whole.WriteMarkdown(want[runreport.FormatMarkdown], 10); err != nil {
		t.Fatal(err)
	}
	each := func(yield func(*eval.Result) error) error {
		for _, r := range whole.Samples {
			if err := yield(r); err != nil {
				return err
			}
		}
		return nil
	}
	want[runreport.FormatJSONL], want[runreport.FormatGitHub] = &bytes.Buffer{}, &bytes.Buffer{}
	if err := report.WriteReportJSONL(want[runreport.FormatJSONL], report.Levels{}, each); err != nil {
		t.Fatal(err)
	}
	tally := report.NewTally(info.Metrics)
	for _, r := range whole.Samples {
		tally.Add(r)
	}
	if err := report.WriteReportGitHub(want[runreport.FormatGitHub], info, whole.Summary, report.NewGateTally(report.Gate{}, 0).Outcome(tally), each); err != nil {
		t.Fatal(err)
	}
	for name, st := range map[string]cache.Store{"file": holder, "holder client": client} {
		for format, w := range want {
			t.Run(name+" "+format, func(t *testing.T) {
				var got bytes.Buffer
				if _, err := runreport.Write(st, id[:len(id)-1], format, 10, report.Levels{}, &got); err != nil {
					t.Fatal(err)
				}
				if got.String() != w.String() {
					t.Fatalf("streamed %s report (%d bytes) differs from the whole one (%d bytes)", format, got.Len(), w.Len())
				}
			})
		}
	}
	if _, err := runreport.Write(holder, id, "xml", 10, report.Levels{}, &bytes.Buffer{}); err == nil {
		t.Error("an unknown format was written")
	}
}

// growingStore adds a result between the report's two passes, as a run
// being evaluated does.
type growingStore struct {
	cache.Store
	id     string
	passes int
}

func (g *growingStore) RunPage(ref string, from, limit int) (report.RunInfo, []*eval.Result, int, error) {
	if from == 0 && limit > 0 {
		g.passes++
		if g.passes == 2 {
			v := 1.0
			_ = g.Store.PutResult(g.id, &eval.Result{Index: 3, Scores: map[eval.Metric]*float64{eval.Faithfulness: &v},
				Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}})
		}
	}
	return g.Store.RunPage(ref, from, limit)
}

// The summary and the samples of a report agree even when the run gains
// results while the report is written: the second pass writes only what
// the first counted.
func TestWriteReportOfAGrowingRunAgrees(t *testing.T) {
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	id := reportFixture(t, st, 20)
	var b bytes.Buffer
	if _, err := runreport.Write(&growingStore{Store: st, id: id}, id, runreport.FormatJSON, 0, report.Levels{}, &b); err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(b.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, n := range rep.Diagnoses {
		sum += n
	}
	if sum != len(rep.Samples) || rep.Summary[eval.Faithfulness].Scored != len(rep.Samples) {
		t.Fatalf("%d samples, diagnoses count %d, faithfulness scored %d", len(rep.Samples), sum, rep.Summary[eval.Faithfulness].Scored)
	}
	if _, rs, _ := st.Run(id); rs[3] == nil {
		t.Fatal("the fixture did not grow")
	}
}

// The cursor a resumed run reads its earlier results with gives each
// finished sample once asked, nil for a gap or a failed one, across
// pages, and starts over when asked out of order.
func TestStoredCursor(t *testing.T) {
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	id := reportFixture(t, st, 700) // every 7th missing, every 11th failed
	c := store.NewCursor(st, id)
	check := func(i int) {
		t.Helper()
		r := c.Finished(i)
		want := i%7 != 3 && i%11 != 0
		if (r != nil) != want || (r != nil && r.Index != i) {
			t.Fatalf("sample %d: %v, want finished %v", i, r, want)
		}
	}
	for i := 0; i < 700; i++ {
		check(i)
	}
	for _, i := range []int{5, 600, 2, 699, 0, 350} {
		check(i)
	}
	if c.Finished(5000) != nil {
		t.Fatal("a sample past the run is finished")
	}
}
