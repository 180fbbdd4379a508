package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// BaselineGate is what a run must keep of its --baseline: no metric's mean
// may fall by more than its --max-drop, and no more samples than
// --max-regressed may fall by more than --regress-margin on some metric.
type BaselineGate struct {
	MaxDrop []Threshold // Min is the largest fall allowed
	// MaxRegressed applies when Regressed is set.
	MaxRegressed Allowance
	Regressed    bool
	Margin       float64
}

// DefaultRegressMargin is --regress-margin's default: a fall of a tenth of
// the scale, well above the jitter of a judge at temperature 0 that the
// cache does not remove (a re-phrased statement flips one verdict of ten).
const DefaultRegressMargin = 0.1

// Active reports whether the baseline gates the run, not only compares.
func (g BaselineGate) Active() bool { return len(g.MaxDrop) > 0 || g.Regressed }

// The kinds of the baseline's gate checks (GateCheck.Kind).
const (
	checkBaselineMean    = "baseline_mean"
	checkBaselineSamples = "baseline_samples"
)

// dropEpsilon keeps a drop equal to its bound a pass: means of the same
// scores summed in another order differ in the last bits.
const dropEpsilon = 1e-9

// Comparison compares a run with its baseline one result at a time
// (through GateTally.Add), holding the baseline as a KeyIndex and of the
// run nothing but counts and the few worst changed pairs, which the
// listing reads again in full.
type Comparison struct {
	x       *KeyIndex
	gate    BaselineGate
	metrics []eval.Metric
	// Per metric compared: each side's sum and count of scores, and the
	// samples whose score went up or down or whose status changed.
	sumA, sumB   []float64
	nA, nB       []int
	counts       []ChangeCount
	shared, byID int
	byContent    int
	unmatched    int
	regressed    int
	by           []int // regressed samples per metric
	changed      int
	listCap      int
	listed       []ChangedPair
	err          error
}

// ChangedPair is a changed sample and its baseline sample, and its largest
// fall (negative; 0 for a change of status alone, positive for a rise).
type ChangedPair struct {
	BeforePos   int // position in the baseline (its order in a report file)
	BeforeIndex int
	AfterIndex  int
	Worst       float64
}

// NewComparison compares with x under g, keeping the listCap worst changed pairs.
func NewComparison(x *KeyIndex, g BaselineGate, listCap int) *Comparison {
	k := len(x.Metrics())
	return &Comparison{x: x, gate: g, metrics: x.Metrics(), sumA: make([]float64, k), sumB: make([]float64, k),
		nA: make([]int, k), nB: make([]int, k), counts: make([]ChangeCount, k), by: make([]int, k), listCap: listCap}
}

// UnreadableComparison is the comparison with a baseline that could not be
// read when the run ended: every baseline check cannot gate, saying err.
func UnreadableComparison(err error, g BaselineGate) *Comparison {
	return &Comparison{gate: g, err: err}
}

// Err is why the baseline could not be read, nil when it was.
func (c *Comparison) Err() error { return c.err }

// Metrics are the metrics compared.
func (c *Comparison) Metrics() []eval.Metric { return c.metrics }

// Add compares one result of the run with its baseline sample, if any,
// and returns that sample's position in the baseline (-1: none).
func (c *Comparison) Add(r *eval.Result) int {
	if r == nil || c.x == nil {
		return -1
	}
	pos, kind := c.x.Match(r)
	switch kind {
	case MatchNone:
		c.unmatched++
		return -1
	case MatchByID:
		c.byID++
	case MatchByContent:
		c.byContent++
	}
	c.shared++
	lowest, changed, regressed := math.Inf(1), false, false
	for i, m := range c.metrics {
		va, okA, stA := c.x.Score(pos, i)
		stB := r.Status[m]
		vb, okB := r.Score(m)
		okB = okB && stB == eval.StatusOK
		if okA {
			c.sumA[i] += va
			c.nA[i]++
		}
		if okB {
			c.sumB[i] += vb
			c.nB[i]++
		}
		delta := 0.0 // of a score both sides have, beyond float noise
		if okA && okB && math.Abs(vb-va) > scoreEpsilon {
			delta = vb - va
			if delta > 0 {
				c.counts[i].Up++
			} else {
				c.counts[i].Down++
			}
		} else if stA != stB {
			c.counts[i].StatusChanged++
		}
		// How much the sample got worse (a rise when lower is better).
		worsened := worsening(m, 0, delta)
		if delta != 0 {
			changed = true
			lowest = min(lowest, -worsened)
		}
		changed = changed || stA != stB
		if delta != 0 && worsened > c.gate.Margin+dropEpsilon {
			c.by[i]++
			regressed = true
		}
	}
	worst := 0.0 // a change of status alone
	if !math.IsInf(lowest, 1) {
		worst = lowest
	}
	if regressed {
		c.regressed++
	}
	if changed {
		c.changed++
		c.list(ChangedPair{BeforePos: pos, BeforeIndex: c.x.Index(pos), AfterIndex: r.Index, Worst: worst})
	}
	return pos
}

// list keeps p if it is among the listCap worst, worst first; of equals,
// the first seen stays first.
func (c *Comparison) list(p ChangedPair) {
	if c.listCap <= 0 {
		return
	}
	i := sort.Search(len(c.listed), func(i int) bool { return c.listed[i].Worst > p.Worst })
	c.listed = insertCapped(c.listed, c.listCap, i, p)
}

// Listed are the worst changed pairs, worst first (at most listCap).
func (c *Comparison) Listed() []ChangedPair { return c.listed }

// Changed is how many shared samples changed a score or a status.
func (c *Comparison) Changed() int { return c.changed }

// BaselineSamples is how many samples the baseline has, and with an id.
func (c *Comparison) BaselineSamples() (n, withID int) {
	if c.x == nil {
		return 0, 0
	}
	return c.x.Len(), c.x.WithID()
}

// Diff is the comparison so far as a RunDiff, without its samples.
func (c *Comparison) Diff() *RunDiff {
	d := &RunDiff{Samples: []SampleDiff{}, Means: map[eval.Metric]MeanChange{}, Counts: map[eval.Metric]ChangeCount{},
		Shared: c.shared, ByID: c.byID, ByContent: c.byContent, Unmatched: c.unmatched}
	for i, m := range c.metrics {
		d.Means[m] = c.mean(i)
		d.Counts[m] = c.counts[i]
	}
	return d
}

// mean is metric i's mean before and after over the pairs.
func (c *Comparison) mean(i int) MeanChange {
	mc := MeanChange{Before: meanOf(c.sumA[i], c.nA[i]), After: meanOf(c.sumB[i], c.nB[i]), ScoredBefore: c.nA[i], ScoredAfter: c.nB[i]}
	if mc.Before != nil && mc.After != nil {
		delta := *mc.After - *mc.Before
		mc.Delta = &delta
	}
	return mc
}

// checks are the baseline's gate checks. cannot says when a mean cannot
// be judged; failing, when too many samples failed to score.
func (c *Comparison) checks(cannot, failing func(eval.Metric) (string, bool)) []GateCheck {
	g := c.gate
	var out []GateCheck
	noBaseline := ""
	switch {
	case c.err != nil:
		noBaseline = "the baseline could not be read: " + c.err.Error()
	case c.shared == 0:
		noBaseline = "no sample of the run is in the baseline (matched by id, else by question, answer, contexts and reference)"
	}
	for _, th := range g.MaxDrop {
		ck := GateCheck{Kind: checkBaselineMean, Metric: th.Metric, Threshold: th.Min}
		i := slices.Index(c.metrics, th.Metric)
		var mc MeanChange
		if i >= 0 {
			mc = c.mean(i)
		}
		why, no := noBaseline, noBaseline != ""
		if !no {
			why, no = cannot(th.Metric)
		}
		switch {
		case no:
		case i < 0 || mc.Before == nil:
			why, no = fmt.Sprintf("the baseline has no %s score on the %d shared samples", th.Metric, c.shared), true
		case mc.After == nil:
			why, no = fmt.Sprintf("%s has no score on the %d shared samples", th.Metric, c.shared), true
		}
		if no {
			ck.State, ck.Message = GateCannot, why
			out = append(out, ck)
			continue
		}
		drop := worsening(th.Metric, *mc.Before, *mc.After)
		what := "drop"
		if eval.LowerIsBetter(th.Metric) {
			what = "rise" // a rise is noise sensitivity's regression
		}
		ck.State, ck.Message = GatePassed, fmt.Sprintf("%s mean %.3f -> %.3f on %d shared samples (%s %.3f <= %g)", th.Metric, *mc.Before, *mc.After, c.shared, what, drop, th.Min)
		if drop > th.Min+dropEpsilon {
			ck.State, ck.Message = GateBreached, fmt.Sprintf("%s mean %.3f -> %.3f on %d shared samples: a %s of %.3f, more than --max-drop %g", th.Metric, *mc.Before, *mc.After, c.shared, what, drop, th.Min)
		}
		out = append(out, ck)
	}
	if !g.Regressed {
		return out
	}
	ck := GateCheck{Kind: checkBaselineSamples, Threshold: g.Margin}
	if noBaseline != "" {
		ck.State, ck.Message = GateCannot, noBaseline
		return append(out, ck)
	}
	var parts []string
	for i, m := range c.metrics {
		if c.by[i] > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", m, c.by[i]))
		}
	}
	detail := ""
	if len(parts) > 0 {
		detail = " (" + strings.Join(parts, ", ") + ")"
	}
	ck.State = GatePassed
	ck.Message = fmt.Sprintf("%d of %d shared samples fell by more than %g on some metric%s%s; --max-regressed %s", c.regressed, c.shared, g.Margin, riseNote(c.metrics), detail, g.MaxRegressed)
	if !g.MaxRegressed.Allows(c.regressed, c.shared) {
		ck.State = GateBreached
	}
	out = append(out, ck)
	// A fall cannot be seen on samples the run failed to score: too many
	// of them and the count of regressions means nothing.
	for _, m := range c.metrics {
		if why, no := failing(m); no {
			out = append(out, GateCheck{Kind: checkBaselineSamples, Metric: m, Threshold: g.Margin, State: GateCannot, Message: why})
		}
	}
	return out
}

// riseNote says, when the comparison has a metric whose lower score is the
// better, that its rise counts as the fall.
func riseNote(ms []eval.Metric) string {
	for _, m := range ms {
		if eval.LowerIsBetter(m) {
			return " (rose, for " + string(m) + ")"
		}
	}
	return ""
}
