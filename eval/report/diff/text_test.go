package diff

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/internal/reporttest"
)

var turnResult = reporttest.Turn

func fp(v float64) *float64 { return &v }

var gateResult = reporttest.Gate

var newMetricsResult = reporttest.NewMetrics

var newMetrics = reporttest.NewMetricList

// The text of a changed sample of the new metrics: the score that moved
// and each changed judgement, a side without the judged text saying so.
func TestTextOfTheNewMetrics(t *testing.T) {
	a := newMetricsResult(0, 0.5, 2.0/3, 0.5)
	b := newMetricsResult(0, 0.5, 1.0/3, 0.5)
	b.FactualCorrectness.AnswerClaims[1].Verdict, b.FactualCorrectness.AnswerClaims[1].Reason = 1, "the reference names Enfield"
	b.ContextEntityRecall.Reference = []eval.EntityMatch{{Entity: "Enfield"}, {Entity: "n29", Found: true, Match: "N29"}, {Entity: "N279"}, {Entity: "Waltham Cross"}}
	b.NoiseSensitivity.Statements[0].Noise, b.NoiseSensitivity.Statements[0].Correct = "relevant", false
	b.NoiseSensitivity.Chunks[1].Relevant = false
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
