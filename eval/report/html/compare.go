package html

import (
	"cmp"
	"fmt"
	"math"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/internal/show"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// Baseline is the run a page compares its run with: its scores indexed
// for matching (as --baseline matches), and, where it can be read a sample
// at a time, its samples in full for the judgements that changed.
type Baseline struct {
	// Label names the baseline on the page ("run 20240101-093000-ab12").
	Label string
	// Index holds the baseline's scores of the metrics both runs scored;
	// its metrics are the ones compared.
	Index *report.KeyIndex
	// Sample reads the baseline's sample at a position of Index in full;
	// nil when it cannot (a report file), and the page then compares
	// scores only.
	Sample func(pos int) (*eval.Result, error)
}

// htmlCompareHead is the comparison's part of the page's header.
type htmlCompareHead struct {
	Label, Matched string
	Rows           []htmlCompareRow
}

type htmlCompareRow struct {
	Name, Before, After, Delta, Class string
	Up, Down, Status                  int
}

// htmlComparison carries the page's first pass (the matching) to its second.
type htmlComparison struct {
	base *Baseline
	c    *report.Comparison
	pos  map[int]int // the run's sample index → the baseline's position
}

func newHTMLComparison(base *Baseline) *htmlComparison {
	if base == nil || base.Index == nil {
		return nil
	}
	return &htmlComparison{base: base, c: report.NewComparison(base.Index, report.BaselineGate{}, 0), pos: map[int]int{}}
}

func (hc *htmlComparison) head() *htmlCompareHead {
	d := hc.c.Diff()
	n, _ := hc.c.BaselineSamples()
	h := &htmlCompareHead{Label: sanitize.Line(hc.base.Label),
		Matched: fmt.Sprintf("%d samples shared (%d by id, %d by content); %d of this run's samples are not in the baseline, %d of the baseline's not in this run; %d changed",
			d.Shared, d.ByID, d.ByContent, d.Unmatched, n-d.Shared, hc.c.Changed())}
	for _, m := range hc.c.Metrics() {
		mc, cc := d.Means[m], d.Counts[m]
		row := htmlCompareRow{Name: sanitize.Line(string(m)), Before: show.Score(mc.Before), After: show.Score(mc.After), Delta: show.Delta(mc.Delta),
			Up: cc.Up, Down: cc.Down, Status: cc.StatusChanged}
		if mc.Delta != nil {
			row.Class = deltaClass(m, *mc.Delta)
		}
		h.Rows = append(h.Rows, row)
	}
	return h
}

// deltaClass colours a change by whether it is better ("hi"), worse
// ("lo") or none ("na") for the metric.
func deltaClass(m eval.Metric, delta float64) string {
	g := delta
	if eval.LowerIsBetter(m) {
		g = -delta
	}
	switch {
	case math.Abs(delta) < 5e-4:
		return "na"
	case g > 0:
		return "hi"
	}
	return "lo"
}

// sample is a sample's Δ cells (one per metric compared) and its changed
// judgements, read from the baseline's sample when it changed.
func (hc *htmlComparison) sample(s *htmlSample, r *eval.Result) error {
	metrics := hc.c.Metrics()
	pos, ok := hc.pos[r.Index]
	if !ok {
		for _, m := range metrics {
			s.Deltas = append(s.Deltas, htmlCell{Text: "new", Class: "na", Label: "Δ " + sanitize.Line(eval.MetricAbbrev(m))})
		}
		s.Changed = "new"
		s.BaseNote = "not in the baseline " + sanitize.Line(hc.base.Label)
		return nil
	}
	changed := false
	for i, m := range metrics {
		va, okA, stA := hc.base.Index.Score(pos, i)
		stB := r.Status[m]
		vb, okB := r.Score(m)
		okB = okB && stB == eval.StatusOK
		c := htmlCell{Text: "", Class: "na", Label: "Δ " + sanitize.Line(eval.MetricAbbrev(m))}
		switch {
		case okA && okB:
			delta := vb - va
			c.Text, c.Sort, c.Class = fmt.Sprintf("%+.2f", delta), fmt.Sprintf("%.6f", eval.Goodness(m, vb)-eval.Goodness(m, va)), deltaClass(m, delta)
			changed = changed || delta != 0
		case stA != stB:
			c.Text = sanitize.Line(cmp.Or(string(stA), "-") + "→" + cmp.Or(string(stB), "-"))
			c.Class = "warn"
			changed = true
		}
		s.Deltas = append(s.Deltas, c)
	}
	s.BaseNote = fmt.Sprintf("sample %d of the baseline %s", hc.base.Index.Index(pos), sanitize.Line(hc.base.Label))
	if !changed {
		return nil
	}
	s.Changed = "changed"
	if hc.base.Sample == nil {
		return nil
	}
	before, err := hc.base.Sample(pos)
	if err != nil {
		return fmt.Errorf("reading the baseline's sample %d: %v", hc.base.Index.Index(pos), err)
	}
	sd, _ := report.DiffSample(metrics, before, r)
	for _, ch := range sd.Changes {
		s.Changes = append(s.Changes, show.ChangeOf(ch))
	}
	return nil
}
