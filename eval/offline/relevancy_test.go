package offline_test

import (
	"context"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/offline"
	"github.com/ragscope/ragscope/eval/report"
)

// TestAnswerRelevancyIsUnsupported: the offline judge generates no
// questions, so answer relevancy has no score: an on-point answer that
// repeats none of the question's words (cosine 0) is not off-topic. The
// trace keeps the cosine and an evasive phrase, which still diagnoses a
// noncommittal answer.
func TestAnswerRelevancyIsUnsupported(t *testing.T) {
	samples := []eval.Sample{
		{Index: 0, ID: "laptop", Question: "What should I do if my company laptop is stolen?",
			Answer:   "Report it to the IT Service Desk at ext. 8000 within 24 hours.",
			Contexts: []string{"If a company laptop is lost or stolen, report it to the IT Service Desk at ext. 8000 within 24 hours."}},
		{Index: 1, ID: "evasive", Question: "How many days of annual leave do new employees get?",
			Answer:   "I'm not sure, it depends.",
			Contexts: []string{"New employees get 10 days of annual leave."}},
	}
	r := &eval.Runner{Judge: offline.New(), Config: eval.RunnerConfig{Metrics: eval.DefaultMetrics, Strictness: 3, Workers: 2}}
	res := r.Run(context.Background(), samples)
	for _, c := range res {
		if st := c.Status[eval.AnswerRelevancy]; st != eval.StatusUnsupported {
			t.Fatalf("%s: answer relevancy %s, want unsupported", c.ID, st)
		}
		if _, ok := c.Score(eval.AnswerRelevancy); ok {
			t.Fatalf("%s: answer relevancy has a score", c.ID)
		}
		if c.AnswerRelevancy == nil || c.AnswerRelevancy.Mode != eval.AnswerSimilarityMode {
			t.Fatalf("%s: trace %+v", c.ID, c.AnswerRelevancy)
		}
	}
	laptop, evasive := res[0], res[1]
	if laptop.AnswerRelevancy.AnswerCosine != 0 {
		t.Errorf("the laptop answer shares a word with its question: cosine %v", laptop.AnswerRelevancy.AnswerCosine)
	}
	if d := report.Diagnose(laptop); d != report.DiagOK {
		t.Errorf("the on-point laptop answer is diagnosed %s", d)
	}
	if d := report.Diagnose(evasive); d != report.DiagNoncommittal || evasive.AnswerRelevancy.NoncommittalHint == "" {
		t.Errorf("the evasive answer is diagnosed %s (hint %q)", d, evasive.AnswerRelevancy.NoncommittalHint)
	}
}
