// Command manyruns fills a ragscope database with many finished runs of
// synthetic results, written straight through the run store (evaluating a
// million samples a thousand times over would take days), so that
// scripts/manyruns.sh can time the commands that read a large store.
//
//	go run ./scripts/manyruns -db big.db -runs 1000 -samples 1000
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

func main() {
	dbPath := flag.String("db", "", "database to create or extend")
	runs := flag.Int("runs", 1000, "runs to add")
	samples := flag.Int("samples", 1000, "results per run")
	flag.Parse()
	if *dbPath == "" {
		fmt.Fprintln(os.Stderr, "manyruns: -db is required")
		os.Exit(2)
	}
	db, err := cache.Open(*dbPath, cache.Options{Timeout: 5 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, "manyruns:", err)
		os.Exit(1)
	}
	defer db.Close()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for r := 0; r < *runs; r++ {
		id := fmt.Sprintf("20260101-%06d-gen%04d", r, r)
		at := start.Add(time.Duration(r) * time.Minute)
		// The four default metrics: the ones its results score (a run
		// that names more has their columns, empty, and costs the
		// interface more per row).
		info := report.RunInfo{ID: id, Dataset: "synthetic.jsonl", StartedAt: at, Metrics: eval.DefaultMetrics,
			Judge: eval.JudgeInfo{Kind: "offline", Name: "offline (lexical)"}, Samples: *samples}
		if err := db.PutRun(info); err != nil {
			fail(err)
		}
		batch := make([]*eval.Result, 0, 1000)
		for i := 0; i < *samples; i++ {
			batch = append(batch, result(r, i))
			if len(batch) == cap(batch) || i == *samples-1 {
				if err := db.PutResults(id, batch); err != nil {
					fail(err)
				}
				batch = batch[:0]
			}
		}
		done := at.Add(30 * time.Second)
		info.FinishedAt = &done
		if err := db.PutRun(info); err != nil {
			fail(err)
		}
		if (r+1)%100 == 0 {
			fmt.Fprintf(os.Stderr, "manyruns: %d of %d runs\n", r+1, *runs)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "manyruns:", err)
	os.Exit(1)
}

// result is sample i of run r: the texts of a small knowledge-base
// question, scores that vary by run and sample, and one judgement per
// metric, about the size of a real offline result.
func result(r, i int) *eval.Result {
	f := float64((i+r)%5) / 4
	ar := float64((i*7+r)%10) / 10
	one := 1.0
	return &eval.Result{
		Index: i, ID: fmt.Sprintf("s%d", i),
		Question:  fmt.Sprintf("What is the monthly fee of plan %d?", i),
		Answer:    fmt.Sprintf("Plan %d costs %d yuan a month.", i, i%97),
		Contexts:  []string{fmt.Sprintf("Plan %d costs %d yuan a month.", i, i%97), "Plans renew on the first day of the month."},
		Reference: fmt.Sprintf("Plan %d costs %d yuan.", i, i%97),
		Scores:    map[eval.Metric]*float64{eval.Faithfulness: &f, eval.AnswerRelevancy: &ar, eval.ContextPrecision: &one, eval.ContextRecall: &one},
		Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.AnswerRelevancy: eval.StatusOK,
			eval.ContextPrecision: eval.StatusOK, eval.ContextRecall: eval.StatusOK},
		Faithfulness: &eval.FaithfulnessTrace{Statements: []eval.StatementVerdict{
			{Statement: fmt.Sprintf("Plan %d costs %d yuan a month.", i, i%97), Verdict: 1, Reason: "stated in chunk 1"}}, Supported: 1},
	}
}
