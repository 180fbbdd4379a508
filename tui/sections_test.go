package tui

import (
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// Every metric has its section on the detail page.
func TestEveryMetricHasASection(t *testing.T) {
	for _, m := range eval.AllMetrics {
		if s, ok := metricSections[m]; !ok || s.render == nil || s.changes == nil {
			t.Errorf("%s has no section", m)
		}
	}
}
