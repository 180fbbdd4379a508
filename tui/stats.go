package tui

import (
	"math"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

const histBins = 10

// metricStats aggregates one metric over the rows shown. The counts follow
// report.Tally, so the header and the report agree: failed counts the
// judge's and the run's failures, na the samples the metric is not defined for.
type metricStats struct {
	sum    float64
	scored int
	failed int
	na     int
	hist   [histBins]int
}

func (s metricStats) mean() (float64, bool) {
	if s.scored == 0 {
		return 0, false
	}
	return s.sum / float64(s.scored), true
}

type stats struct {
	metrics [eval.NumMetrics]metricStats
	diag    map[report.Diagnosis]int
	running int
	// topErr is the most frequent failure message of the rows shown and
	// how many (sample, metric) pairs ended with it: a count says that
	// something is wrong, the message says what.
	topErr  string
	topErrN int
}

func computeStats(rows []*row, shown []int32, metrics []eval.Metric, x *rowExtras) stats {
	st := stats{diag: make(map[report.Diagnosis]int, len(report.Diagnoses))}
	errs := map[string]int{}
	// A pass over a million rows: the slots, the diagnoses and the status
	// are worked with as the numbers the rows hold, named once at the end.
	slots := make([]int, len(metrics))
	for i, m := range metrics {
		slots[i] = metricSlot(m)
	}
	ok := statusCodes.code(eval.StatusOK)
	var diags [math.MaxUint8 + 1]int
	for _, i := range shown {
		r := rows[i]
		if !r.done {
			st.running++
			continue
		}
		diags[r.diag]++
		for j, m := range metrics {
			slot := slots[j]
			v, code := r.at(slot)
			if code == 0 {
				continue // not evaluated
			}
			ms := &st.metrics[slot]
			if code != ok || math.IsNaN(v) {
				if status := statusCodes.name(code); status.Failed() {
					ms.failed++
					msg := x.errText(r, m)
					if msg == "" {
						msg = string(status)
					}
					errs[msg]++
				} else {
					ms.na++
				}
				continue
			}
			ms.scored++
			ms.sum += v
			ms.hist[min(max(int(v*histBins), 0), histBins-1)]++
		}
	}
	for code, n := range diags {
		if n > 0 {
			st.diag[diagCodes.name(uint8(code))] += n
		}
	}
	for msg, n := range errs {
		if n > st.topErrN || (n == st.topErrN && msg < st.topErr) {
			st.topErr, st.topErrN = msg, n
		}
	}
	return st
}
