package eval

import "testing"

func TestTopErrors(t *testing.T) {
	res := func(st Status, msg string) *Result {
		return &Result{Status: map[Metric]Status{Faithfulness: st}, Errors: map[Metric]string{Faithfulness: msg}}
	}
	rs := []*Result{
		res(StatusJudgeError, "401 key rejected"), res(StatusJudgeError, "401 key rejected"),
		res(StatusParseError, "no JSON"), res(StatusNoStatements, "empty answer"), nil,
		res(StatusJudgeError, "401 key rejected"), res(StatusCacheMiss, ""),
	}
	got := TopErrors(rs, 2)
	if len(got) != 2 || got[0] != (ErrorCount{"401 key rejected", 3}) || got[1].Count != 1 {
		t.Fatalf("TopErrors = %+v", got)
	}
	for _, e := range TopErrors(rs, 10) {
		if e.Message == "empty answer" {
			t.Fatal("a not-applicable status is counted as a failure")
		}
	}
}

func TestSummarizeSeparatesFailuresFromNotApplicable(t *testing.T) {
	rs := []*Result{
		{Scores: map[Metric]*float64{Faithfulness: score(1)}, Status: map[Metric]Status{Faithfulness: StatusOK}},
		{Scores: map[Metric]*float64{Faithfulness: score(0.5)}, Status: map[Metric]Status{Faithfulness: StatusOK}},
		{Scores: map[Metric]*float64{}, Status: map[Metric]Status{Faithfulness: StatusJudgeError}},
		{Scores: map[Metric]*float64{}, Status: map[Metric]Status{Faithfulness: StatusNoStatements}},
		nil, // never finished
	}
	s := Summarize([]Metric{Faithfulness, ContextRecall}, rs)[Faithfulness]
	if s.Mean == nil || *s.Mean != 0.75 || s.Scored != 2 || s.Failed != 1 || s.NotApplicable != 1 ||
		s.ByStatus[StatusJudgeError] != 1 || s.ByStatus[StatusNoStatements] != 1 {
		t.Fatalf("summary %+v", s)
	}
	if cr := Summarize([]Metric{ContextRecall}, rs)[ContextRecall]; cr.Mean != nil || cr.Scored != 0 {
		t.Fatalf("a metric nobody scored must have a null mean: %+v", cr)
	}
}
