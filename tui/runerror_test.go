package tui

import (
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// A run that stops on its own (the key refused, the disk full) says why on
// the screen, not only as one more in the error count; and the header
// names the most frequent failure of the rows shown.
func TestRunErrorsAreShownInWords(t *testing.T) {
	m := newTestModel(t, Options{Dataset: "d.jsonl", Live: true, Total: 3}, 120, 40)
	failed := func(i int, msg string) *eval.Result {
		return &eval.Result{Index: i, Question: "q", Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusJudgeError},
			Errors: map[eval.Metric]string{eval.Faithfulness: msg}, Scores: map[eval.Metric]*float64{eval.Faithfulness: nil}}
	}
	m.Update(EventsMsg{Events: []eval.Event{
		{Kind: eval.EventSampleFinished, Sample: 0, Result: failed(0, "HTTP 401: key refused")},
		{Kind: eval.EventSampleFinished, Sample: 1, Result: failed(1, "HTTP 401: key refused")},
		{Kind: eval.EventSampleFinished, Sample: 2, Result: failed(2, "HTTP 500")},
		{Kind: eval.EventError, Sample: 2, Metric: eval.Faithfulness, Err: "judge_error: HTTP 500"},
	}})
	s := flat(screenText(m))
	if !strings.Contains(s, "most frequent failure (2x): HTTP 401: key refused") {
		t.Fatalf("the header does not name the most frequent failure:\n%s", screenText(m))
	}
	if strings.Contains(s, "judge_error: HTTP 500") {
		t.Fatal("a per-sample error took the status line")
	}
	m.Update(EventsMsg{Events: []eval.Event{{Kind: eval.EventError, Sample: 2,
		Err: "storing the result of sample 2 failed, so the run stops before more judge calls are paid for: no space left on device"}}})
	if s := flat(screenText(m)); !strings.Contains(s, "no space left on device") {
		t.Fatalf("the run's own error is not on the screen:\n%s", screenText(m))
	}
}

// A result given twice (a stored run with a repeated index, a watcher that
// reloads after a takeover) is one sample done, not two.
func TestDoneCountsSamplesNotEvents(t *testing.T) {
	res := fixtureResults()
	m := newTestModel(t, Options{Dataset: "d.jsonl", Results: append(res, res[0]), Total: len(res)}, 120, 40)
	if m.progress.done != len(res) {
		t.Fatalf("stored run with a repeated result: done %d, want %d", m.progress.done, len(res))
	}
	live := newTestModel(t, Options{Dataset: "d.jsonl", Live: true, Total: 3}, 120, 40)
	ev := eval.Event{Kind: eval.EventSampleFinished, Sample: res[0].Index, Result: res[0]}
	live.Update(EventsMsg{Events: []eval.Event{ev, ev}})
	if live.progress.done != 1 {
		t.Fatalf("a result sent twice counted %d", live.progress.done)
	}
}
