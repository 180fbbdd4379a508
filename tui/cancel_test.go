package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
)

// TestStoppedRunCounts: after a stop (Ctrl-C, X) the samples it cut short
// are neither done nor errors, and the calls it cut short are no errors;
// the header counts them apart.
func TestStoppedRunCounts(t *testing.T) {
	m := newTestModel(t, Options{Dataset: "d.jsonl", Live: true, Started: fixedStart, Metrics: []eval.Metric{eval.Faithfulness, eval.ContextRecall}}, 120, 30)
	ok := liveResult(0)
	cut := func(i int, calls bool) *eval.Result {
		r := liveResult(i)
		r.Scores = map[eval.Metric]*float64{}
		r.Status = map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusCancelled, eval.ContextRecall: eval.StatusOK}
		if calls {
			r.Calls = []eval.CallRecord{{Task: "faithfulness_verdicts", Error: "faithfulness_verdicts: cancelled", Cancelled: true}}
		}
		return r
	}
	evs := []eval.Event{{Kind: eval.EventRunStarted, Total: 24, Sample: -1}, {Kind: eval.EventSampleFinished, Sample: 0, Result: ok}}
	for i := 1; i <= 3; i++ {
		evs = append(evs,
			eval.Event{Kind: eval.EventCall, Sample: i, Call: &eval.CallRecord{Task: "faithfulness_verdicts", Error: "faithfulness_verdicts: cancelled", Cancelled: true}},
			eval.Event{Kind: eval.EventSampleFinished, Sample: i, Result: cut(i, true)})
	}
	evs = append(evs, eval.Event{Kind: eval.EventSampleFinished, Sample: 4, Result: cut(4, false)})
	m.Update(EventsMsg{Events: evs})
	s := screenText(m)
	for _, want := range []string{"1/24 cancelled 4", "errors 0", "calls sent 0"} {
		if !strings.Contains(s, want) {
			t.Errorf("after a stop the header lacks %q:\n%s", want, s)
		}
	}
	if m.progress.done != 1 || m.progress.errors != 0 {
		t.Errorf("done %d, errors %d; want 1 and 0", m.progress.done, m.progress.errors)
	}
}

// TestETAAtTheFirstFinish: 24 samples evaluated 4 at a time, 3.6 s each:
// at the first result the ETA is 23/4 × 3.6 s, not the 23 × 3.6 s the
// mean since the start of the run gave (1m23s for a run done in 22 s).
func TestETAAtTheFirstFinish(t *testing.T) {
	now := fixedStart.Add(3600 * time.Millisecond)
	m := newTestModel(t, Options{Dataset: "d.jsonl", Live: true, Started: fixedStart, Metrics: []eval.Metric{eval.Faithfulness}}, 120, 30)
	m.now = func() time.Time { return now }
	evs := []eval.Event{{Kind: eval.EventRunStarted, Total: 24, Sample: -1}}
	for i := range 4 {
		evs = append(evs, eval.Event{Kind: eval.EventSampleStarted, Sample: i, Time: fixedStart})
	}
	evs = append(evs, eval.Event{Kind: eval.EventSampleFinished, Sample: 0, Result: liveResult(0), Time: now},
		eval.Event{Kind: eval.EventSampleStarted, Sample: 4, Time: now})
	m.Update(EventsMsg{Events: evs})
	m.Update(tickMsg(now))
	if title := m.titleLine(); !strings.Contains(title, "ETA 21s") {
		t.Fatalf("title %q, want ETA 21s", title)
	}
}
