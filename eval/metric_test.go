package eval

import (
	"strings"
	"testing"
)

// Every metric has one definition with every facet, in the order of
// AllMetrics, and its names resolve to it.
func TestMetricRegistry(t *testing.T) {
	for i, m := range AllMetrics {
		d := Def(m)
		if d == nil || metricDefs[i] != d {
			t.Fatalf("%s: no definition at position %d", m, i)
		}
		if d.Abbrev == "" || d.Run == nil || d.CopyTrace == nil || d.Evidence == nil || d.Changes == nil {
			t.Errorf("%s: a facet is missing: %+v", m, d)
		}
		if d.Labels != nil && (d.Labels.Task == "" || d.Labels.Items == nil || d.Labels.Rescore == nil) {
			t.Errorf("%s: label facets missing", m)
		}
		for _, name := range append([]string{string(m), strings.ToLower(d.Abbrev)}, d.Aliases...) {
			if got, ok := LookupMetric(name); !ok || got != m {
				t.Errorf("%q resolves to %q, want %s", name, got, m)
			}
		}
		if MetricAbbrev(m) != d.Abbrev {
			t.Errorf("%s: abbrev %q", m, MetricAbbrev(m))
		}
	}
	if Def("no_such_metric") != nil || LowerIsBetter("no_such_metric") {
		t.Error("an unknown metric has a definition")
	}
	if !LowerIsBetter(NoiseSensitivity) || LowerIsBetter(Faithfulness) {
		t.Error("LowerIsBetter")
	}
}
