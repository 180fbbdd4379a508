package report

import (
	"testing"

	"github.com/ragscope/ragscope/eval"
	evalreport "github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
)

// Exit codes: interrupted over a failed gate, a failed gate over failed
// samples.
func TestEndingCode(t *testing.T) {
	failing := &eval.Result{Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusJudgeError}}
	breached := evalreport.GateOutcome{Checks: []evalreport.GateCheck{{State: evalreport.GateBreached}}}
	cannot := evalreport.GateOutcome{Checks: []evalreport.GateCheck{{State: evalreport.GateCannot}}}
	passed := evalreport.GateOutcome{Checks: []evalreport.GateCheck{{State: evalreport.GatePassed}}}
	for _, c := range []struct {
		name      string
		cancelled bool
		gated     bool
		outcome   evalreport.GateOutcome
		failed    bool
		want      int
	}{
		{"all scored", false, false, evalreport.GateOutcome{}, false, exit.OK},
		{"failed samples", false, false, evalreport.GateOutcome{}, true, exit.Failures},
		{"gate passed", false, true, passed, false, exit.OK},
		{"gate passed, failed samples", false, true, passed, true, exit.Failures},
		{"gate breached", false, true, breached, false, exit.Gate},
		{"gate breached over failed samples", false, true, breached, true, exit.Gate},
		{"cannot gate over failed samples", false, true, cannot, true, exit.Gate},
		{"interrupted over the gate", true, true, breached, true, exit.Interrupted},
	} {
		tally := evalreport.NewTally(eval.AllMetrics)
		if c.failed {
			tally.Add(failing)
		}
		var g evalreport.Gate
		if c.gated {
			g.Mean = []evalreport.Threshold{{Metric: eval.Faithfulness, Min: 0.5}}
		}
		e := &Pass{Tally: tally, Gate: evalreport.NewGateTally(g, gateWorst), Outcome: c.outcome}
		if got := e.Code(c.cancelled); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
}
