package offline

import (
	"context"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// The support test runs both ways: answer statements against the
// reference (TP or FP), reference statements against the answer (FN).
func TestCorrectnessClassify(t *testing.T) {
	for _, tc := range []struct {
		name       string
		s          eval.Sample
		tp, fp, fn int
	}{
		{"same facts", eval.Sample{Question: "How many days of leave do new staff get?",
			Answer: "New staff get 10 days of paid leave.", Reference: "New staff get 10 days of paid leave."}, 1, 0, 0},
		{"wrong number and a missing fact", eval.Sample{Question: "How many days of leave do new staff get?",
			Answer:    "New staff get 15 days of paid leave.",
			Reference: "New staff get 10 days of paid leave. Unused days expire in March."}, 0, 1, 2},
		{"taxpayer id negated", eval.Sample{Question: "小规模纳税人转为一般纳税人后，纳税人识别号会变吗？",
			Answer: "转为一般纳税人后纳税人识别号会变更。", Reference: "转为一般纳税人后，纳税人识别号保持不变。"}, 0, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := New()
			ctx := context.Background()
			ans, _ := j.Statements(ctx, &tc.s)
			ref, _ := j.ReferenceStatements(ctx, &tc.s)
			got, err := j.CorrectnessClassify(ctx, &tc.s, ans, ref)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.TP) != tc.tp || len(got.FP) != tc.fp || len(got.FN) != tc.fn {
				t.Errorf("TP %d FP %d FN %d, want %d %d %d: %+v", len(got.TP), len(got.FP), len(got.FN), tc.tp, tc.fp, tc.fn, got)
			}
			for _, l := range [][]eval.CorrectnessItem{got.TP, got.FP, got.FN} {
				for _, it := range l {
					if it.Reason == "" {
						t.Errorf("%q has no reason", it.Statement)
					}
				}
			}
		})
	}
}
