package report

import (
	"testing"

	"github.com/ragscope/ragscope/eval"
)

func TestTopErrors(t *testing.T) {
	res := func(st eval.Status, msg string) *eval.Result {
		return &eval.Result{Status: map[eval.Metric]eval.Status{eval.Faithfulness: st}, Errors: map[eval.Metric]string{eval.Faithfulness: msg}}
	}
	rs := []*eval.Result{
		res(eval.StatusJudgeError, "401 key rejected"), res(eval.StatusJudgeError, "401 key rejected"),
		res(eval.StatusParseError, "no JSON"), res(eval.StatusNoStatements, "empty answer"), nil,
		res(eval.StatusJudgeError, "401 key rejected"), res(eval.StatusCacheMiss, ""),
	}
	got := tallyOf(nil, rs, Levels{}).TopErrors(2)
	if len(got) != 2 || got[0] != (ErrorCount{"401 key rejected", 3}) || got[1].Count != 1 {
		t.Fatalf("TopErrors = %+v", got)
	}
	for _, e := range tallyOf(nil, rs, Levels{}).TopErrors(10) {
		if e.Message == "empty answer" {
			t.Fatal("a not-applicable status is counted as a failure")
		}
	}
}

func TestSummarizeSeparatesFailuresFromNotApplicable(t *testing.T) {
	rs := []*eval.Result{
		{Scores: map[eval.Metric]*float64{eval.Faithfulness: score(1)}, Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}},
		{Scores: map[eval.Metric]*float64{eval.Faithfulness: score(0.5)}, Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}},
		{Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusJudgeError}},
		{Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusNoStatements}},
		nil, // never finished
	}
	s := tallyOf([]eval.Metric{eval.Faithfulness, eval.ContextRecall}, rs, Levels{}).Summary()[eval.Faithfulness]
	if s.Mean == nil || *s.Mean != 0.75 || s.Scored != 2 || s.Failed != 1 || s.NotApplicable != 1 ||
		s.ByStatus[eval.StatusJudgeError] != 1 || s.ByStatus[eval.StatusNoStatements] != 1 {
		t.Fatalf("summary %+v", s)
	}
	if cr := tallyOf([]eval.Metric{eval.ContextRecall}, rs, Levels{}).Summary()[eval.ContextRecall]; cr.Mean != nil || cr.Scored != 0 {
		t.Fatalf("a metric nobody scored must have a null mean: %+v", cr)
	}
}

func score(v float64) *float64 { return &v }
