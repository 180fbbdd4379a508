package diff

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/internal/reporttest"
)

var turnResult = reporttest.Turn

func fp(v float64) *float64 { return &v }

var gateResult = reporttest.Gate

var newMetrics = reporttest.NewMetricList

// The text of a changed sample of the new metrics: the score that moved
// and each changed judgement, a side without the judged text saying so.
func TestTextOfTheNewMetrics(t *testing.T) {
	a, b := reporttest.NewMetricsChanged()
	var out bytes.Buffer
	sd, changed := report.DiffSample(newMetrics, a, b)
	if !changed {
		t.Fatal("no change found")
	}
	WriteSamples(&out, newMetrics, []report.SampleDiff{sd})
	for _, line := range []string{
		"context_entity_recall  0.667 -> 0.333  (-0.333)",
		`factual_correctness answer claim 2 "The N279 goes to Enfield Town."`,
		`context_entity_recall entity 4`,
		`before: (no entity 4)`,
		`after:  "Waltham Cross"  missing from the contexts`,
		`noise_sensitivity chunk 2`,
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("diff text lacks %q:\n%s", line, out.String())
		}
	}
}
