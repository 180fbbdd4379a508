package html

import (
	"flag"

	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/internal/reporttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// ciReport is a run with every kind of (sample, metric): scored above and
// below the thresholds of ciGate, failed, not applicable, with hostile text
// in ids, statements, reasons and error messages.
func ciReport() *report.Report {
	run := report.RunInfo{ID: "20261201-090000-ci", Dataset: "ci.jsonl", StartedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
		Judge: eval.JudgeInfo{Name: "offline"}, Metrics: eval.DefaultMetrics, Samples: 4}
	return report.NewReport(run, reporttest.CIResults())
}

var bres = reporttest.Baseline

var turnResult = reporttest.Turn

func fp(v float64) *float64 { return &v }

// tallyOf is the tally of results that are all at hand.
func tallyOf(metrics []eval.Metric, results []*eval.Result, levels report.Levels) *report.Tally {
	t := report.NewTallyAt(metrics, levels)
	for _, r := range results {
		t.Add(r)
	}
	return t
}

// each yields a report's samples, the stream the writers take.
func each(rep *report.Report) func(yield func(*eval.Result) error) error {
	return func(yield func(*eval.Result) error) error {
		for _, s := range rep.Samples {
			if s == nil {
				continue
			}
			if err := yield(s); err != nil {
				return err
			}
		}
		return nil
	}
}
