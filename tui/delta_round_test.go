package tui

import (
	"fmt"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// TestDeltaOfShownScores: a change is that of the scores as shown. Scores
// that show 0.333 → 0.334 changed by +0.001 (they read "unchanged" when
// the raw difference, 0.0004, was under the table's precision); scores
// that show the same are unchanged whatever their raw difference.
func TestDeltaOfShownScores(t *testing.T) {
	tests := []struct {
		before, after float64
		kind          deltaKind
		shown         string // the Δ cell
	}{
		{0.3334, 0.3338, deltaValue, "+0.001"},
		{0.7776, 0.7774, deltaValue, "-0.001"},
		{0.3331, 0.3334, deltaSame, "."},
		{0.5, 0.5, deltaSame, "."},
		{0.9, 0.7, deltaValue, "-0.200"},
		{-0.2576, -0.2574, deltaValue, "+0.001"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v->%v", tt.before, tt.after), func(t *testing.T) {
			mk := func(v float64) *eval.Result {
				return &eval.Result{Index: 0, Scores: map[eval.Metric]*float64{eval.AnswerRelevancy: score(v)},
					Status: map[eval.Metric]eval.Status{eval.AnswerRelevancy: eval.StatusOK}}
			}
			d := scoreDelta(newRow(0, mk(tt.before), report.Levels{}), newRow(0, mk(tt.after), report.Levels{}), eval.AnswerRelevancy)
			got := "."
			if d.kind == deltaValue {
				got = fmt.Sprintf("%+.3f", d.v)
			}
			if d.kind != tt.kind || got != tt.shown {
				t.Fatalf("delta %+v (%s), want kind %v, %s", d, got, tt.kind, tt.shown)
			}
		})
	}
}
