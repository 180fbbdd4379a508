package report

import (
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/internal/reporttest"
)

func TestParseThresholds(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []Threshold
		err  string // a part of the error; "" for none
	}{
		{in: "faithfulness=0.8", want: []Threshold{{eval.Faithfulness, 0.8}}},
		{in: " f=0.8 , CR=0.7,", want: []Threshold{{eval.Faithfulness, 0.8}, {eval.ContextRecall, 0.7}}},
		{in: "ar=-0.2,cp=0,recall=1", want: []Threshold{{eval.AnswerRelevancy, -0.2}, {eval.ContextPrecision, 0}, {eval.ContextRecall, 1}}},
		{in: "", want: nil},
		{in: "faithfulness", err: "give METRIC=X"},
		{in: "fidelity=0.8", err: `unknown metric "fidelity"`},
		{in: "f=1.5", err: "between 0 and 1"},
		{in: "f=-0.1", err: "between 0 and 1"},
		{in: "ar=-1.5", err: "between -1 and 1"},
		{in: "f=NaN", err: "between 0 and 1"},
		{in: "f=high", err: `"high" is not a score`},
		{in: "f=0.8,faithfulness=0.7", err: "given twice"},
	} {
		got, err := ParseThresholds("fail-under", c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "--fail-under") {
				t.Errorf("%q: error %v, want one naming --fail-under and saying %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) {
			t.Errorf("%q: %v, %v; want %v", c.in, got, err, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: %v, want %v", c.in, got, c.want)
			}
		}
	}
}

func TestAllowance(t *testing.T) {
	for _, c := range []struct {
		in           string
		count, total int
		allows       bool
	}{
		{"", 0, 10, true},
		{"", 1, 10, false},
		{"0", 0, 0, true},
		{"2", 2, 10, true},
		{"2", 3, 10, false},
		{"10%", 1, 10, true},
		{"10%", 2, 10, false},
		{"2.5%", 1, 40, true},
		{"2.5%", 2, 40, false},
		{"100%", 7, 7, true},
		{"0%", 1, 1000, false},
	} {
		a, err := ParseAllowance(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if got := a.Allows(c.count, c.total); got != c.allows {
			t.Errorf("--max-failing %q: %d of %d allowed %v, want %v", c.in, c.count, c.total, got, c.allows)
		}
	}
	for _, bad := range []string{"-1", "1.5", "five", "101%", "-2%", "x%"} {
		if _, err := ParseAllowance(bad); err == nil || !strings.Contains(err.Error(), "--max-failing") {
			t.Errorf("%q: error %v, want one naming --max-failing", bad, err)
		}
	}
}

var gateResult = reporttest.Gate

// Every outcome of a gate: passed, a mean breached, samples below their
// threshold within and beyond --max-failing (a count and a percentage),
// and a gate that cannot be checked because the metric failed to score.
func TestGateOutcome(t *testing.T) {
	mean := func(v float64) []Threshold { return []Threshold{{eval.Faithfulness, v}} }
	for _, c := range []struct {
		name      string
		gate      Gate
		scores    []float64
		states    []GateState
		passed    bool
		breaching int
	}{
		{"no gate", Gate{}, []float64{0, 0.1}, nil, true, 0},
		{"mean passes", Gate{Mean: mean(0.5)}, []float64{0.5, 0.7}, []GateState{GatePassed}, true, 0},
		{"mean breached", Gate{Mean: mean(0.8)}, []float64{0.5, 0.7}, []GateState{GateBreached}, false, 0},
		{"not applicable is not counted", Gate{Mean: mean(0.6)}, []float64{0.7, -3}, []GateState{GatePassed}, true, 0},
		{"samples within N", Gate{Sample: mean(0.5), MaxFailing: Allowance{N: 1}}, []float64{0.4, 0.9, 0.9}, []GateState{GatePassed}, true, 1},
		{"samples beyond N", Gate{Sample: mean(0.5), MaxFailing: Allowance{N: 1}}, []float64{0.4, 0.3, 0.9}, []GateState{GateBreached}, false, 2},
		{"samples beyond the default 0", Gate{Sample: mean(0.5)}, []float64{0.4, 0.9}, []GateState{GateBreached}, false, 1},
		{"threshold is inclusive", Gate{Sample: mean(0.5)}, []float64{0.5}, []GateState{GatePassed}, true, 0},
		{"samples within P%", Gate{Sample: mean(0.5), MaxFailing: Allowance{Percent: 25, IsPercent: true}}, []float64{0.1, 0.9, 0.9, 0.9}, []GateState{GatePassed}, true, 1},
		{"samples beyond P%", Gate{Sample: mean(0.5), MaxFailing: Allowance{Percent: 25, IsPercent: true}}, []float64{0.1, 0.2, 0.9, 0.9}, []GateState{GateBreached}, false, 2},
		{"cannot gate: judge errors beyond the allowance", Gate{Mean: mean(0.5)}, []float64{0.9, -2}, []GateState{GateCannot}, false, 0},
		{"judge errors within the allowance", Gate{Mean: mean(0.5), MaxFailing: Allowance{N: 1}}, []float64{0.9, -2}, []GateState{GatePassed}, true, 0},
		{"cannot gate: no score at all", Gate{Mean: mean(0.5), MaxFailing: Allowance{N: 5}}, []float64{-3, -3}, []GateState{GateCannot}, false, 0},
		{"cannot gate per sample", Gate{Sample: mean(0.5)}, []float64{0.9, -2}, []GateState{GatePassed, GateCannot}, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			tally, gt := NewTally([]eval.Metric{eval.Faithfulness}), NewGateTally(c.gate, 3)
			for i, v := range c.scores {
				r := gateResult(i, v)
				tally.Add(r)
				gt.Add(r)
			}
			o := gt.Outcome(tally)
			var states []GateState
			for _, ch := range o.Checks {
				states = append(states, ch.State)
				if ch.Message == "" {
					t.Errorf("check %+v has no message", ch)
				}
			}
			if strings.Join(stateStrings(states), ",") != strings.Join(stateStrings(c.states), ",") || o.Passed() != c.passed || o.Breaching != c.breaching {
				t.Fatalf("states %v passed %v breaching %d; want %v %v %d\n%+v", states, o.Passed(), o.Breaching, c.states, c.passed, c.breaching, o.Checks)
			}
			if len(o.Worst) != min(c.breaching, 3) || len(o.WorstLines()) != len(o.Worst) {
				t.Fatalf("%d worst samples kept, %d lines; want %d", len(o.Worst), len(o.WorstLines()), min(c.breaching, 3))
			}
			for _, l := range o.WorstLines() {
				if !strings.Contains(l, "unsupported") {
					t.Errorf("worst line without evidence: %q", l)
				}
			}
		})
	}
}

func stateStrings(s []GateState) []string {
	out := make([]string, len(s))
	for i, st := range s {
		out[i] = string(st)
	}
	return out
}

// The worst samples a gate keeps are the lowest, and no more than asked.
func TestGateTallyKeepsTheWorst(t *testing.T) {
	g := Gate{Sample: []Threshold{{eval.Faithfulness, 0.9}}, MaxFailing: Allowance{N: 100}}
	tally, gt := NewTally([]eval.Metric{eval.Faithfulness}), NewGateTally(g, 2)
	for i, v := range []float64{0.5, 0.1, 0.95, 0.3, 0.2} {
		r := gateResult(i, v)
		tally.Add(r)
		gt.Add(r)
	}
	o := gt.Outcome(tally)
	if o.Breaching != 4 || len(o.Worst) != 2 || o.Worst[0].Index != 1 || o.Worst[1].Index != 4 {
		t.Fatalf("breaching %d, worst %v", o.Breaching, o.Worst)
	}
}
