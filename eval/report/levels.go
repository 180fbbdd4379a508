package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// Levels are the pass levels of the diagnosis, one per metric: a score
// below its metric's level fails (a metric not named keeps DiagLow). The
// high band starts at DiagHigh, or at the pass level when that is higher.
// For noise sensitivity, where lower is better, the level is the highest
// score that passes. The zero Levels are the defaults; a Levels never
// changes once made, so it is shared freely.
type Levels struct {
	pass map[eval.Metric]float64
}

// LevelsConfigKey is the key of RunInfo.Config under which a run records
// the pass levels it was run with (Levels.String; absent for the defaults).
const LevelsConfigKey = "pass"

// ParseLevels parses --pass METRIC=X[,METRIC=X...] (metric names or their
// short aliases, X in [0, 1]); "" is the defaults.
func ParseLevels(s string) (Levels, error) {
	ts, err := parseMetricValues("pass", s, nil, "faithfulness=0.9,context_recall=0.8", "a pass level", 0, 1)
	if err != nil || len(ts) == 0 {
		return Levels{}, err
	}
	l := Levels{pass: make(map[eval.Metric]float64, len(ts))}
	for _, t := range ts {
		l.pass[t.Metric] = t.Min
	}
	return l, nil
}

// RunLevels are the pass levels run was recorded with (the defaults for a
// run recorded before they were kept, or with none given), and each of
// its criteria's own pass level.
func RunLevels(run RunInfo) Levels {
	l, _ := ParseLevels(run.Config[LevelsConfigKey]) // Levels{} when unreadable
	return l.WithCriteria(run.Criteria)
}

// WithCriteria returns l with each criterion's pass level added: a
// criterion passes at the level its file gives it, not at --pass's.
// String and Record leave them out; the run records them with its
// criteria.
func (l Levels) WithCriteria(c *CriteriaInfo) Levels {
	if c == nil || len(c.Items) == 0 {
		return l
	}
	out := Levels{pass: maps.Clone(l.pass)}
	if out.pass == nil {
		out.pass = map[eval.Metric]float64{}
	}
	for _, it := range c.Items {
		out.pass[eval.Metric(it.Name)] = it.Pass
	}
	return out
}

// HasCriteria says l holds a criterion's pass level: the run scored criteria.
func (l Levels) HasCriteria() bool {
	for m := range l.pass {
		if !slices.Contains(eval.AllMetrics, m) {
			return true
		}
	}
	return false
}

// Record returns run with these levels recorded in its Config (a copy of
// the map: run's own is not changed); the defaults remove the key.
func (l Levels) Record(run RunInfo) RunInfo {
	c := make(map[string]string, len(run.Config)+1)
	maps.Copy(c, run.Config)
	delete(c, LevelsConfigKey)
	if s := l.String(); s != "" {
		c[LevelsConfigKey] = s
	}
	if len(c) == 0 {
		c = nil
	}
	run.Config = c
	return run
}

// IsDefault says no metric has a level of its own (criteria have theirs
// in their file, which --pass does not set).
func (l Levels) IsDefault() bool {
	return l.String() == ""
}

// String is the levels as --pass takes them; "" for the defaults.
func (l Levels) String() string {
	var parts []string
	for _, m := range eval.AllMetrics {
		if v, ok := l.pass[m]; ok {
			parts = append(parts, string(m)+"="+strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	return strings.Join(parts, ",")
}

// Pass is the pass level of m as a score of m (for noise sensitivity, the
// highest score that passes).
func (l Levels) Pass(m eval.Metric) float64 {
	if v, ok := l.pass[m]; ok {
		return v
	}
	return DiagLow
}

// Passes says a score v of m passes its level.
func (l Levels) Passes(m eval.Metric, v float64) bool { return l.Band(m, v) != BandLow }

// Band is where one metric of a sample stands against the levels: the
// colour it is drawn in, and what the diagnosis reads. A failed metric
// never gets one: any failure makes the whole sample failed.
type Band int

const (
	bandNA   Band = iota // no score: not computable (missing_input, no_statements, no_questions) or not evaluated
	BandLow              // below the metric's pass level (DiagLow by default)
	BandMid              // passes, below the high band
	BandHigh             // at or above the high band (DiagHigh, or the pass level when higher)
)

func (b Band) passes() bool  { return b != BandLow } // n/a, pass or high: nothing to flag
func (b Band) has() bool     { return b != bandNA }
func (b Band) failing() bool { return b == BandLow }

// Band is the band of a score v of m: both bands are read on the
// goodness (1 - v for noise sensitivity).
func (l Levels) Band(m eval.Metric, v float64) Band {
	low := l.Pass(m)
	if _, own := l.pass[m]; own && eval.LowerIsBetter(m) {
		low = 1 - low
	}
	return bandAt(eval.Goodness(m, v), low, max(DiagHigh, low))
}

// bandAt is the band of v: low below low, high from high on. A score at
// a level to within rounding (a cosine of 0.5 computed 0.4999999999999999)
// is at it, as the gates read it (dropEpsilon).
func bandAt(v, low, high float64) Band {
	switch {
	case v < low-dropEpsilon:
		return BandLow
	case v < high-dropEpsilon:
		return BandMid
	}
	return BandHigh
}

// Describe is the levels in words for a report's header: "faithfulness ≥
// 0.9, noise_sensitivity ≤ 0.3; others ≥ 0.5".
func (l Levels) Describe() string {
	var parts []string
	for _, m := range eval.AllMetrics {
		if v, ok := l.pass[m]; ok {
			op, _ := limitOps(m)
			parts = append(parts, fmt.Sprintf("%s %s %g", m, op, v))
		}
	}
	def := fmt.Sprintf("a score passes at %g or more (noise_sensitivity: %g or less)", DiagLow, 1-DiagLow)
	if len(parts) == 0 {
		return def
	}
	return strings.Join(parts, ", ") + "; otherwise " + def
}
