package html

import (
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// The HTML report's Conversations section: each conversation with, per
// metric, mean, min and its first failing turn linked to that turn's
// drill-down (#sN, N its sample index, whatever order the turns are in);
// no section for a run without conversations.
func TestConversationsHTML(t *testing.T) {
	run := report.RunInfo{ID: "r", Metrics: []eval.Metric{eval.Faithfulness, eval.AnswerRelevancy}, Samples: 5}
	tests := []struct {
		name    string
		results []*eval.Result
		want    []string
		not     []string
	}{
		{"a failing turn links its sample", []*eval.Result{
			turnResult(0, "tax", 1, fp(1)), turnResult(1, "leave", 1, fp(0.9)), turnResult(2, "tax", 2, fp(0.2)), turnResult(3, "leave", 2, fp(1)), turnResult(4, "tax", 3, fp(0.1)),
		}, []string{
			"<h2>Conversations</h2>",
			`<li><b>tax</b> <span class="muted">3 turns</span>; faithfulness mean 0.433, min 0.100, first failing <a href="#s2">turn 2</a>; answer_relevancy mean 1.000, min 1.000, no failing turn</li>`,
			`<li><b>leave</b> <span class="muted">2 turns</span>; faithfulness mean 0.950, min 0.900, no failing turn;`,
		}, nil},
		{"turns out of order: the lowest failing turn's sample", []*eval.Result{turnResult(0, "a", 3, fp(0.1)), turnResult(1, "a", 2, fp(0.3)), turnResult(2, "a", 1, fp(1))},
			[]string{`first failing <a href="#s1">turn 2</a>`}, nil},
		{"no conversations, no section", []*eval.Result{bres(0, "", "a", 0.5)}, nil, []string{"Conversations", `href="#s`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := writeHTML(t, report.NewReport(run, tt.results))
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(out, w) {
					t.Errorf("page has %q", w)
				}
			}
		})
	}
}
