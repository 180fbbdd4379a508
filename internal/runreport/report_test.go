package runreport

import (
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
)

// Exit codes: interrupted over a failed gate, a failed gate over failed
// samples.
func TestEndingCode(t *testing.T) {
	failing := &eval.Result{Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusJudgeError}}
	breached := report.GateOutcome{Checks: []report.GateCheck{{State: report.GateBreached}}}
	cannot := report.GateOutcome{Checks: []report.GateCheck{{State: report.GateCannot}}}
	passed := report.GateOutcome{Checks: []report.GateCheck{{State: report.GatePassed}}}
	for _, c := range []struct {
		name      string
		cancelled bool
		gated     bool
		outcome   report.GateOutcome
		failed    bool
		want      int
	}{
		{"all scored", false, false, report.GateOutcome{}, false, exit.OK},
		{"failed samples", false, false, report.GateOutcome{}, true, exit.Failures},
		{"gate passed", false, true, passed, false, exit.OK},
		{"gate passed, failed samples", false, true, passed, true, exit.Failures},
		{"gate breached", false, true, breached, false, exit.Gate},
		{"gate breached over failed samples", false, true, breached, true, exit.Gate},
		{"cannot gate over failed samples", false, true, cannot, true, exit.Gate},
		{"interrupted over the gate", true, true, breached, true, exit.Interrupted},
	} {
		tally := report.NewTally(eval.AllMetrics)
		if c.failed {
			tally.Add(failing)
		}
		var g report.Gate
		if c.gated {
			g.Mean = []report.Threshold{{Metric: eval.Faithfulness, Min: 0.5}}
		}
		e := &Pass{Tally: tally, Gate: report.NewGateTally(g, gateWorst), Outcome: c.outcome}
		if got := e.Code(c.cancelled); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
}
