package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/eval"
)

// startedWithTexts is the runner's EventSampleStarted for a result: the
// sample's texts, no scores.
func startedWithTexts(res *eval.Result, inFlight int) eval.Event {
	return eval.Event{Kind: eval.EventSampleStarted, Sample: res.Index, InFlight: inFlight, Result: &eval.Result{
		Index: res.Index, ID: res.ID, Question: res.Question, Answer: res.Answer,
		Contexts: res.Contexts, Reference: res.Reference,
		Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{},
	}}
}

// A started sample shows its question in the table and everything known
// on its detail page; it stays running until its result replaces it.
func TestStartedSampleShowsItsTexts(t *testing.T) {
	opts := Options{Dataset: "d.jsonl", Live: true, Started: fixedStart}
	m := newTestModel(t, opts, 100, 40)
	res := fixtureResults()
	m.Update(EventsMsg{Events: []eval.Event{
		{Kind: eval.EventRunStarted, Total: 8, Sample: -1},
		startedWithTexts(res[1], 1),
		startedWithTexts(res[2], 2),
	}})
	s := screenText(m)
	for _, want := range []string{"0/8", "running 2", res[1].Question, res[2].Question} {
		if !strings.Contains(s, want) {
			t.Fatalf("live screen misses %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "(evaluating)") || strings.Contains(s, "0.") {
		t.Fatalf("a started row shows a placeholder or a score:\n%s", s)
	}
	if m.stats.running != 2 || m.running != 2 || m.progress.done != 0 {
		t.Fatalf("running %d/%d, done %d; want 2 running, none done", m.stats.running, m.running, m.progress.done)
	}
	// A status filter still sees them as running.
	applyFilter(m, "status:running")
	if got := shownSamples(m); len(got) != 2 {
		t.Fatalf("status:running shows %v", got)
	}
	press(m, "esc")

	// The detail page of the running sample: question, answer, chunks,
	// reference, and a heading per metric with no score yet.
	press(m, "g", "enter")
	if m.screen != screenDetail {
		t.Fatal("enter does not open the running sample")
	}
	d := flat(screenText(m))
	for _, want := range []string{"sample 1", "evaluating", "Question", res[1].Question, "Answer", res[1].Answer,
		"Retrieved chunks (1)", "Reference", res[1].Reference, "1 faithfulness", "4 context_recall"} {
		if !strings.Contains(d, flat(want)) {
			t.Fatalf("running detail page misses %q:\n%s", want, screenText(m))
		}
	}
	if strings.Contains(d, "still being evaluated; the page fills in") {
		t.Fatalf("running detail page with texts shows the empty placeholder:\n%s", screenText(m))
	}

	// The result arrives: the page fills in its scores, the row is scored.
	m.Update(EventsMsg{Events: []eval.Event{{Kind: eval.EventSampleFinished, Sample: 1, Result: res[1]}}})
	d = flat(screenText(m))
	if strings.Contains(d, "evaluating") {
		t.Fatalf("finished detail page still says evaluating:\n%s", screenText(m))
	}
	f, _ := res[1].Score(eval.Faithfulness)
	if want := fmt.Sprintf("1 faithfulness %.3f", f); !strings.Contains(d, want) {
		t.Fatalf("finished detail page misses %q:\n%s", want, screenText(m))
	}
	press(m, "esc")
	s = screenText(m)
	if m.stats.running != 1 || m.running != 1 || m.progress.done != 1 || !strings.Contains(s, "1/8") || !strings.Contains(s, "running 1") {
		t.Fatalf("after one result: running %d/%d, done %d:\n%s", m.stats.running, m.running, m.progress.done, s)
	}
	if l := lineOf(s, res[1].Question); !strings.Contains(l, fmtScore(f)) {
		t.Fatalf("finished row has no score: %q", l)
	}
	if l := lineOf(s, res[2].Question); strings.Contains(l, "0.") {
		t.Fatalf("the still running row shows a score: %q", l)
	}
}

// A started event with no texts (an older stream) keeps the placeholder,
// and a sample that already has a result (a re-run's) keeps it on start.
func TestStartedWithoutTextsAndOverAResult(t *testing.T) {
	res := fixtureResults()
	opts := fixtureOptions()
	opts.Results = res[:1]
	opts.Live = true
	m := newTestModel(t, opts, 100, 30)
	m.Update(EventsMsg{Events: []eval.Event{
		{Kind: eval.EventSampleStarted, Sample: 5, InFlight: 1},
		startedWithTexts(res[0], 1),
	}})
	s := screenText(m)
	if !strings.Contains(s, "(evaluating)") || !strings.Contains(s, "running 1") {
		t.Fatalf("a started event with no texts:\n%s", s)
	}
	if r := m.rows[m.rowAt(0)]; m.result(r) != res[0] || m.extras.known[r.index] != nil {
		t.Fatal("a start over a finished row replaced its result")
	}
	press(m, "G", "enter")
	if d := screenText(m); !strings.Contains(d, "still being evaluated; the page fills in") {
		t.Fatalf("running detail page with no texts:\n%s", d)
	}
}

// fmtScore prints a score or a cosine one way everywhere: three decimals,
// a leading 0, the sign of a negative one.
func TestFmtScore(t *testing.T) {
	for v, want := range map[float64]string{
		0.123: "0.123", -0.123: "-0.123", 1: "1.000", 0: "0.000", -1: "-1.000", -0.9999: "-1.000", -0.0001: "0.000", -0.012: "-0.012",
	} {
		if got := fmtScore(v); got != want {
			t.Errorf("fmtScore(%v) = %q, want %q", v, got, want)
		}
	}
}

// negativeAR is the fixture with a negative answer relevancy (cosines can
// be negative) on sample 1 and a negative cosine on its page.
func negativeAR() []*eval.Result {
	res := fixtureResults()
	r := res[1]
	r.Scores[eval.AnswerRelevancy] = score(-0.123)
	r.Status[eval.AnswerRelevancy] = eval.StatusOK
	r.AnswerRelevancy = &eval.AnswerRelevancyTrace{Mode: "questions", Questions: []eval.GeneratedQuestion{
		{Question: "Is the tower tall?", Cosine: 0.5},
		{Question: "What colour is it?", Cosine: -0.246},
	}}
	return res
}

// A negative score prints as it does everywhere (-0.123, never -.123) and
// keeps the columns aligned: every row of the table, and the cosine column
// of the detail page.
func TestNegativeScoresKeepColumnsAligned(t *testing.T) {
	opts := fixtureOptions()
	opts.Results = negativeAR()
	m := newTestModel(t, opts, 80, 24)
	s := screenText(m)
	if regexp.MustCompile(`-\.\d`).MatchString(s) {
		t.Errorf("a negative score without its leading 0:\n%s", s)
	}
	neg := lineOf(s, "Eiffel")
	if !strings.Contains(neg, "-0.123") {
		t.Fatalf("row of the negative score: %q", neg)
	}
	titles := lineOf(s, "#^ question")
	col := strings.Index(titles, "diagnosis")
	if w, want := ansi.StringWidth(neg), ansi.StringWidth(lineOf(s, "What is the refund")); w != want {
		t.Fatalf("the negative row is %d cells, a positive one %d:\n%s", w, want, s)
	}
	// The diagnosis column starts at the same cell on the negative row as
	// in the titles.
	if d := string(m.rows[m.rowAt(1)].diagnosis()); d != "" {
		at := ansi.StringWidth(neg[:strings.LastIndex(neg, d)])
		if at != ansi.StringWidth(titles[:col]) {
			t.Fatalf("diagnosis of the negative row at cell %d, titles at %d:\n%s", at, ansi.StringWidth(titles[:col]), s)
		}
	}
	// The detail page: the negative cosine lines up with the positive one.
	m.cursor = -1
	for pos, i := range m.shown {
		if m.rows[i].index == 1 {
			m.cursor = pos
		}
	}
	press(m, "enter", "2")
	d := screenText(m)
	if regexp.MustCompile(`-\.\d`).MatchString(d) || !strings.Contains(d, "mean(0.500, -0.246) = 0.127") {
		t.Errorf("the detail page prints a negative cosine two ways:\n%s", d)
	}
	pos, negc := lineOf(d, "Is the tower tall?"), lineOf(d, "What colour is it?")
	if !strings.Contains(negc, "-0.246") || ansi.StringWidth(pos[:strings.Index(pos, "Is the")]) != ansi.StringWidth(negc[:strings.Index(negc, "What colour")]) {
		t.Fatalf("cosine column misaligned:\n%q\n%q", pos, negc)
	}
}

// The comparison's delta column keeps its width when a score turns
// negative.
func TestNegativeDeltaWidth(t *testing.T) {
	if s := padLeft(fmt.Sprintf("%+.3f", -0.123-0.95), deltaW); len(s) != deltaW {
		t.Fatalf("delta %q is not %d wide", s, deltaW)
	}
}

// TestGoldenLiveStarted is a live run with two finished samples and two
// started ones (texts, no scores), on the table and on a running sample's
// page, at 80x24. Update with -update.
func TestGoldenLiveStarted(t *testing.T) {
	for _, tt := range []struct {
		name string
		keys []string
		wait string
	}{
		{"table", nil, "diagnosis"},
		{"detail", []string{"G", "enter"}, "sample 3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := negativeAR()
			opts := fixtureOptions()
			opts.Results = nil
			opts.Live = true
			m := New(opts)
			m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
			m.Update(EventsMsg{Events: []eval.Event{
				{Kind: eval.EventRunStarted, Total: 8, Sample: -1},
				{Kind: eval.EventSampleFinished, Sample: 0, Result: res[0]},
				{Kind: eval.EventSampleFinished, Sample: 1, Result: res[1]},
				startedWithTexts(res[3], 1),
				startedWithTexts(res[2], 2),
			}})
			requireGoldenFrame(t, m, [2]int{80, 24}, tt.keys, tt.wait)
		})
	}
}
