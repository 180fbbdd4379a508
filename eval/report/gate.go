package report

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// Threshold is the worst acceptable value of a metric: its mean
// (--fail-under) or each sample's score (--fail-under-sample). For noise
// sensitivity, where lower is better, that is a ceiling: one syntax, "the
// worst I accept", and every message prints the comparison made.
type Threshold struct {
	Metric eval.Metric
	Min    float64
}

// worse reports whether v is on the wrong side of limit for m: below it,
// or above it when lower is better. A mean equal to the limit but for the
// last bits of its sum (0.1+0.2+0.6 over 3) is at the limit, which passes.
func worse(m eval.Metric, v, limit float64) bool {
	if eval.LowerIsBetter(m) {
		return v > limit+dropEpsilon
	}
	return v < limit-dropEpsilon
}

// limitOps are the comparisons a check of m prints when it passes and
// when it is breached: ">=" and "<", or "<=" and ">" when lower is better.
func limitOps(m eval.Metric) (pass, breach string) {
	if eval.LowerIsBetter(m) {
		return "<=", ">"
	}
	return ">=", "<"
}

// worsening is how much m's score got worse from a to b: a - b, or b - a
// when lower is better (a rise of noise sensitivity is its regression).
func worsening(m eval.Metric, a, b float64) float64 {
	if eval.LowerIsBetter(m) {
		return b - a
	}
	return a - b
}

// ParseThresholds parses METRIC=X[,METRIC=X...] of the flag named flag:
// a metric name or alias, X in [0, 1] ([-1, 1] for answer_relevancy, a
// cosine), the worst value accepted. A metric may be named once; criteria
// are the names of the run's own criteria, which may be gated too.
func ParseThresholds(flag, s string, criteria ...string) ([]Threshold, error) {
	return parseMetricValues(flag, s, criteria, "faithfulness=0.8", "a score", -1, 1)
}

// ParseMaxDrops parses --max-drop METRIC=D[,METRIC=D...]: the largest
// fall of each metric's mean from the baseline's (a rise for noise
// sensitivity), D in [0, 1], or [0, 2] for answer_relevancy. Threshold.Min
// holds D. criteria are the names of the run's own criteria.
func ParseMaxDrops(flag, s string, criteria ...string) ([]Threshold, error) {
	return parseMetricValues(flag, s, criteria, "faithfulness=0.05", "a drop", 0, 2)
}

// parseMetricValues parses METRIC=V[,...]: V is what, between 0 and 1,
// or arLow and arHigh for answer_relevancy. METRIC may also be one of
// criteria.
func parseMetricValues(flag, s string, criteria []string, example, what string, arLow, arHigh float64) ([]Threshold, error) {
	var out []Threshold
	seen := map[eval.Metric]bool{}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		name, num, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("--%s %q: give METRIC=X, e.g. --%s %s", flag, part, flag, example)
		}
		m, ok := eval.LookupMetric(strings.ToLower(strings.TrimSpace(name)))
		if c := strings.TrimSpace(name); !ok && slices.Contains(criteria, c) {
			m, ok = eval.Metric(c), true
		}
		if !ok {
			crit := ""
			if len(criteria) > 0 {
				crit = "; or a criterion: " + strings.Join(criteria, ", ")
			}
			return nil, fmt.Errorf("--%s %q: unknown metric %q (choose from %s, or f, ar, cp, cr, cu, as, ac, fc, er, ns%s)", flag, part, name, metricNames(), crit)
		}
		low, high := 0.0, 1.0
		if m == eval.AnswerRelevancy {
			low, high = arLow, arHigh
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || math.IsNaN(v) || v < low || v > high {
			return nil, fmt.Errorf("--%s %q: %q is not %s between %g and %g", flag, part, num, what, low, high)
		}
		if seen[m] {
			return nil, fmt.Errorf("--%s: %s is given twice; give each metric once", flag, m)
		}
		seen[m] = true
		out = append(out, Threshold{Metric: m, Min: v})
	}
	return out, nil
}

// Allowance is --max-failing: how many samples may miss the per-sample
// thresholds, as a count or a percentage of the samples evaluated.
type Allowance struct {
	N       int
	Percent float64
	// IsPercent says Percent applies instead of N.
	IsPercent bool
}

// ParseAllowance parses --max-failing N or P%.
func ParseAllowance(s string) (Allowance, error) { return ParseAllowanceFlag("max-failing", s) }

// ParseAllowanceFlag parses N or P% given to the flag named flag.
func ParseAllowanceFlag(flag, s string) (Allowance, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Allowance{}, nil
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 100 {
			return Allowance{}, fmt.Errorf("--%s %q: give a count like 5 or a percentage between 0%% and 100%% like 2.5%%", flag, s)
		}
		return Allowance{Percent: v, IsPercent: true}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return Allowance{}, fmt.Errorf("--%s %q: give a count of samples (0 or more) like 5, or a percentage like 2.5%%", flag, s)
	}
	return Allowance{N: n}, nil
}

// Allows reports whether count of total samples is within the allowance.
func (a Allowance) Allows(count, total int) bool {
	if a.IsPercent {
		return float64(count)*100 <= a.Percent*float64(total)
	}
	return count <= a.N
}

func (a Allowance) String() string {
	if a.IsPercent {
		return strconv.FormatFloat(a.Percent, 'f', -1, 64) + "%"
	}
	return strconv.Itoa(a.N)
}

// Gate is what a CI run must meet: the mean thresholds, the per-sample
// thresholds and how many samples may miss them.
type Gate struct {
	Mean       []Threshold
	Sample     []Threshold
	MaxFailing Allowance
	// Conversation is --fail-under-conversation: each conversation's worst
	// turn (its minimum; its maximum when lower is better) must not be
	// worse than the threshold. --max-failing does not apply to it.
	Conversation []Threshold
	// Baseline is what the run must keep of its --baseline.
	Baseline BaselineGate
}

// Active reports whether the gate has any threshold.
func (g Gate) Active() bool {
	return len(g.Mean)+len(g.Sample)+len(g.Conversation) > 0 || g.Baseline.Active()
}

// Below reports whether r's score of m is worse than m's per-sample
// threshold: under it, or over it when lower is better (an unscored
// metric is not below: it is counted as failed or not applicable
// instead).
func (g Gate) Below(r *eval.Result, m eval.Metric) (min float64, below bool) {
	i := slices.IndexFunc(g.Sample, func(t Threshold) bool { return t.Metric == m })
	if i < 0 || r.Status[m] != eval.StatusOK {
		return 0, false
	}
	min = g.Sample[i].Min
	v, ok := r.Score(m)
	return min, ok && worse(m, v, min)
}

// GateTally is the per-sample side of a gate, counted one result at a
// time beside a Tally: how many samples are below the thresholds, per
// metric and in all, and the worst of them, holding no more than those.
// It also sums each metric's judge latency (JUnit's time).
type GateTally struct {
	gate    Gate
	cmp     *Comparison
	below   map[eval.Metric]int
	samples int
	worst   *Worst
	latency map[eval.Metric]int64
	convs   *conversations // the --fail-under-conversation metrics' turns
}

// NewGateTally counts results against g, keeping the worst breaching samples.
func NewGateTally(g Gate, worst int) *GateTally {
	var metrics []eval.Metric
	for _, th := range g.Conversation {
		metrics = append(metrics, th.Metric)
	}
	fails := func(m eval.Metric, v float64) bool {
		i := slices.IndexFunc(g.Conversation, func(th Threshold) bool { return th.Metric == m })
		return worse(m, v, g.Conversation[i].Min)
	}
	return &GateTally{gate: g, below: map[eval.Metric]int{}, worst: NewWorst(worst), latency: map[eval.Metric]int64{}, convs: newConversations(metrics, fails)}
}

// Gate is the gate counted against.
func (gt *GateTally) Gate() Gate { return gt.gate }

// Compare compares each result added from now on with a baseline as well.
func (gt *GateTally) Compare(c *Comparison) { gt.cmp = c }

// Comparison is the comparison with the baseline, nil without one.
func (gt *GateTally) Comparison() *Comparison { return gt.cmp }

// Add counts one result.
func (gt *GateTally) Add(r *eval.Result) {
	if r == nil {
		return
	}
	for _, c := range r.Calls {
		gt.latency[c.MetricOf()] += c.LatencyMS
	}
	if gt.cmp != nil {
		gt.cmp.Add(r)
	}
	if len(gt.gate.Conversation) > 0 {
		gt.convs.add(r)
	}
	breaches := false
	for _, t := range gt.gate.Sample {
		if _, below := gt.gate.Below(r, t.Metric); below {
			gt.below[t.Metric]++
			breaches = true
		}
	}
	if breaches {
		gt.samples++
		gt.worst.Add(r)
	}
}

// BelowCount is how many samples are below m's per-sample threshold.
func (gt *GateTally) BelowCount(m eval.Metric) int { return gt.below[m] }

// LatencySeconds is the time the judge spent on m's calls, in seconds.
func (gt *GateTally) LatencySeconds(m eval.Metric) float64 { return float64(gt.latency[m]) / 1000 }

// GateState is how one check of a gate ended.
type GateState string

const (
	GatePassed   GateState = "passed"
	GateBreached GateState = "breached"
	// GateCannot is a check that could not be made: its metric has no
	// score, or failed to score on more samples than --max-failing allows.
	GateCannot GateState = "cannot gate"
)

// GateCheck is one check of a gate: a mean threshold, or the count of
// samples below the per-sample thresholds.
type GateCheck struct {
	// Kind is "mean", "samples", "conversation" or a baseline's kind.
	Kind      string
	Metric    eval.Metric // the mean's metric; for "samples", empty
	Threshold float64
	State     GateState
	Message   string // what was found, e.g. "faithfulness mean 0.712 < 0.8"
}

// GateOutcome is the end of a gate: each check, and the worst samples
// below the per-sample thresholds.
type GateOutcome struct {
	Checks []GateCheck
	// Breaching counts the samples below some per-sample threshold.
	Breaching int
	Worst     []*eval.Result
	gate      Gate
}

// WorstLines describe the worst samples below the per-sample thresholds,
// one line each: every score below its threshold and the evidence.
func (o GateOutcome) WorstLines() []string {
	var out []string
	for _, r := range o.Worst {
		var parts []string
		for _, th := range o.gate.Sample {
			if min, below := o.gate.Below(r, th.Metric); below {
				parts = append(parts, failureText(r, th.Metric, min, "; "))
			}
		}
		out = append(out, strings.Join(parts, " | "))
	}
	return out
}

// Passed reports whether every check passed (an empty gate passes).
func (o GateOutcome) Passed() bool {
	return !slices.ContainsFunc(o.Checks, func(c GateCheck) bool { return c.State != GatePassed })
}

// Outcome evaluates the gate against the run's tally: the one place a
// gate is decided, for headless, interactive and detached runs alike.
func (gt *GateTally) Outcome(t *Tally) GateOutcome {
	g := gt.gate
	out := GateOutcome{Breaching: gt.samples, Worst: gt.worst.Samples(), gate: g}
	summary := t.Summary()
	total := t.Samples()
	failing := func(m eval.Metric) (string, bool) {
		if ms := summary[m]; ms.Failed > 0 && !g.MaxFailing.Allows(ms.Failed, total) {
			return fmt.Sprintf("%s failed to score on %d of %d samples (%s), more than --max-failing %s allows", m, ms.Failed, total, ms.Why(), g.MaxFailing), true
		}
		return "", false
	}
	cannot := func(m eval.Metric) (string, bool) {
		if ms := summary[m]; ms.Scored == 0 {
			return fmt.Sprintf("%s has no score on any sample (%s)", m, cmp.Or(ms.Why(), "no sample evaluated")), true
		}
		return failing(m)
	}
	for _, th := range g.Mean {
		c := GateCheck{Kind: "mean", Metric: th.Metric, Threshold: th.Min}
		if why, ok := cannot(th.Metric); ok {
			c.State, c.Message = GateCannot, why
		} else {
			mean := *summary[th.Metric].Mean
			pass, breach := limitOps(th.Metric)
			c.State, c.Message = GatePassed, fmt.Sprintf("%s mean %.3f %s %g", th.Metric, mean, pass, th.Min)
			if worse(th.Metric, mean, th.Min) {
				c.State, c.Message = GateBreached, fmt.Sprintf("%s mean %.3f %s %g", th.Metric, mean, breach, th.Min)
			}
		}
		out.Checks = append(out.Checks, c)
	}
	if len(g.Sample) > 0 {
		var parts []string
		for _, th := range g.Sample {
			_, breach := limitOps(th.Metric)
			parts = append(parts, fmt.Sprintf("%s %s %g: %d", th.Metric, breach, th.Min, gt.below[th.Metric]))
		}
		c := GateCheck{Kind: "samples", State: GatePassed}
		c.Message = fmt.Sprintf("%d of %d samples below the per-sample thresholds (%s); --max-failing %s", gt.samples, total, strings.Join(parts, ", "), g.MaxFailing)
		if !g.MaxFailing.Allows(gt.samples, total) {
			c.State = GateBreached
		}
		out.Checks = append(out.Checks, c)
		for _, th := range g.Sample {
			if why, ok := cannot(th.Metric); ok {
				out.Checks = append(out.Checks, GateCheck{Kind: "samples", Metric: th.Metric, Threshold: th.Min, State: GateCannot, Message: why})
			}
		}
	}
	convs := gt.convs.summaries()
	for _, th := range g.Conversation {
		out.Checks = append(out.Checks, conversationCheck(th, convs, cannot))
	}
	if g.Baseline.Active() {
		cmp := gt.cmp
		if cmp == nil {
			// A baseline gate must never pass for want of its baseline.
			cmp = UnreadableComparison(errors.New("no baseline was compared"), g.Baseline)
		}
		out.Checks = append(out.Checks, cmp.checks(cannot, failing)...)
	}
	return out
}

// evidence lists the judgements behind a poor score of m, one line each:
// the metric definition's Evidence, or a criterion trace's.
func evidence(r *eval.Result, m eval.Metric) []string {
	if d := eval.Def(m); d != nil {
		return d.Evidence(r)
	}
	return r.Criteria[string(m)].Evidence()
}

// sampleName is how CI output names a sample: its id, else its index.
func sampleName(r *eval.Result) string {
	return cmp.Or(r.ID, "#"+strconv.Itoa(r.Index))
}

// metricNames lists the metrics this version knows, for error messages.
func metricNames() string {
	names := make([]string, len(eval.AllMetrics))
	for i, m := range eval.AllMetrics {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

// maxConversationsNamed bounds the breaching conversations a message names.
const maxConversationsNamed = 5

// conversationCheck is the check of one --fail-under-conversation
// threshold over the run's conversations (summed at the gate's
// thresholds); a run without conversations cannot be gated on them.
func conversationCheck(th Threshold, convs []ConversationSummary, cannot func(eval.Metric) (string, bool)) GateCheck {
	ck := GateCheck{Kind: checkConversation, Metric: th.Metric, Threshold: th.Min}
	if len(convs) == 0 {
		ck.State, ck.Message = GateCannot, fmt.Sprintf("%s per conversation: the run has no conversations (no sample has a conversation_id and a turn)", th.Metric)
		return ck
	}
	if why, ok := cannot(th.Metric); ok {
		ck.State, ck.Message = GateCannot, why
		return ck
	}
	pass, breach := limitOps(th.Metric)
	var named []string
	n := 0
	for _, c := range convs {
		cm := c.Metrics[th.Metric]
		if cm.FirstFailingTurn == nil {
			continue
		}
		worst := cm.Min
		if eval.LowerIsBetter(th.Metric) {
			worst = cm.Max
		}
		if n++; n <= maxConversationsNamed {
			named = append(named, fmt.Sprintf("conversation %s first fails at turn %d (worst turn %.3f %s %g)", sanitize.Line(c.ID), *cm.FirstFailingTurn, *worst, breach, th.Min))
		}
	}
	if n == 0 {
		ck.State, ck.Message = GatePassed, fmt.Sprintf("%s: every turn of the %d conversations %s %g", th.Metric, len(convs), pass, th.Min)
		return ck
	}
	more := ""
	if n > len(named) {
		more = fmt.Sprintf("; %d more", n-len(named))
	}
	ck.State, ck.Message = GateBreached, fmt.Sprintf("%s per conversation %s %g: %d of %d conversations breach: %s%s", th.Metric, pass, th.Min, n, len(convs), strings.Join(named, "; "), more)
	return ck
}

// checkConversation is the kind of a --fail-under-conversation check.
const checkConversation = "conversation"
