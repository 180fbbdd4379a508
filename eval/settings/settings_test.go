package settings

import (
	"slices"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

func TestParseACWeights(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [2]float64
		err  string
	}{
		{"", eval.DefaultACWeights, ""},
		{"0.75,0.25", [2]float64{0.75, 0.25}, ""},
		{" 1 , 0 ", [2]float64{1, 0}, ""},
		{"0,0", [2]float64{}, "both be 0"},
		{"-1,2", [2]float64{}, "non-negative"},
		{"1", [2]float64{}, "two comma-separated"},
		{"1,2,3", [2]float64{}, "two comma-separated"},
		{"a,1", [2]float64{}, "non-negative"},
		{"NaN,1", [2]float64{}, "non-negative"},
		{"Inf,1", [2]float64{}, "non-negative"},
		{"1e308,1e308", [2]float64{}, "too large"},
	} {
		got, err := ParseACWeights(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseMetricsDefaultsAndAll(t *testing.T) {
	for in, want := range map[string][]eval.Metric{
		"":                                 eval.DefaultMetrics,
		"all":                              eval.DefaultMetrics,
		"all,context_utilization":          eval.AllMetrics[:5],
		"context_utilization,all":          {eval.ContextUtilization, eval.Faithfulness, eval.AnswerRelevancy, eval.ContextPrecision, eval.ContextRecall},
		"faithfulness,context_utilization": {eval.Faithfulness, eval.ContextUtilization},
	} {
		got, err := ParseMetrics(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseMetrics(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}
