package eval

import "testing"

func TestDiagnose(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	mk := func(scores map[Metric]*float64, mode string, failed Metric) *Result {
		r := &Result{Scores: map[Metric]*float64{}, Status: map[Metric]Status{}}
		for m, v := range scores {
			r.Scores[m] = v
			r.Status[m] = StatusOK
		}
		if failed != "" {
			r.Status[failed] = StatusJudgeError
		}
		if mode != "" {
			r.AnswerRelevancy = &AnswerRelevancyTrace{Mode: mode}
		}
		return r
	}
	cases := []struct {
		name string
		r    *Result
		want Diagnosis
	}{
		{"all good", mk(map[Metric]*float64{Faithfulness: f(1), AnswerRelevancy: f(0.9), ContextRecall: f(1)}, "questions", ""), DiagOK},
		{"unfaithful with recall high", mk(map[Metric]*float64{Faithfulness: f(0), ContextRecall: f(1)}, "", ""), DiagGeneration},
		{"unfaithful without reference", mk(map[Metric]*float64{Faithfulness: f(0.2)}, "", ""), DiagGeneration},
		{"recall low wins", mk(map[Metric]*float64{Faithfulness: f(0), ContextRecall: f(0.2)}, "", ""), DiagRetrieval},
		{"unfaithful, recall middling", mk(map[Metric]*float64{Faithfulness: f(0), ContextRecall: f(0.6)}, "", ""), DiagOK},
		{"off-topic", mk(map[Metric]*float64{Faithfulness: f(1), AnswerRelevancy: f(0.3)}, "questions", ""), DiagOffTopic},
		{"offline similarity 0.3 is not off-topic", mk(map[Metric]*float64{Faithfulness: f(1), AnswerRelevancy: f(0.3)}, "answer_similarity", ""), DiagOK},
		{"offline similarity 0.03 is off-topic", mk(map[Metric]*float64{Faithfulness: f(1), AnswerRelevancy: f(0.03)}, "answer_similarity", ""), DiagOffTopic},
		{"a failure wins", mk(map[Metric]*float64{ContextRecall: f(0)}, "", Faithfulness), DiagFailed},
	}
	for _, tc := range cases {
		if got := Diagnose(tc.r); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
