package llm_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/eval/fakejudge"
)

func criterionOf(t *testing.T, yaml string) *criteria.Criterion {
	t.Helper()
	set, err := criteria.Parse("c.yaml", []byte("criteria:\n  - name: c\n"+yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	return set.Criteria[0]
}

// criteriaBrain answers the criteria tasks from a script per task, one
// reply per call in order, and keeps the requests.
type criteriaBrain struct {
	mu       sync.Mutex
	replies  map[string][]string
	requests []*fakejudge.Request
}

func (c *criteriaBrain) stack(t *testing.T, o stackOpt) *stack {
	b := newBrain()
	b.ignoreN = true
	b.override = func(r *fakejudge.Request, _ int) (fakejudge.Reply, bool) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.requests = append(c.requests, r)
		script := c.replies[r.Task]
		if len(script) == 0 {
			return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"criteria brain: no reply left for ` + r.Task + `"}}`}, true
		}
		c.replies[r.Task] = script[1:]
		return fakejudge.Reply{Choices: []string{script[0]}}, true
	}
	return newStack(t, b, o)
}

var criterionSample = eval.Sample{
	Question: "QUESTION-MARK can I carry leave over?", Answer: "ANSWER-MARK yes, until 31 March.",
	Contexts: []string{"CHUNK-MARK leave carries over until 31 March."}, Reference: "REFERENCE-MARK yes",
}

func TestCriterionYesNoDraws(t *testing.T) {
	c := criterionOf(t, "    kind: yes_no\n    text: {en: TEXT-EN polite, zh: TEXT-ZH 礼貌}\n    inputs: [question, answer]\n    strictness: 3\n")
	cb := &criteriaBrain{replies: map[string][]string{"criterion_yes_no": {
		`{"quote": "yes", "reason": "r1", "verdict": 1}`,
		`{"quote": "", "reason": "r2", "verdict": "no"}`,
		`{"quote": "31 March", "reason": "r3", "verdict": true}`,
	}}}
	s := cb.stack(t, stackOpt{})
	tr, err := s.judge.Criterion(context.Background(), &criterionSample, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []criteria.Draw{{Verdict: 1, Reason: "r1", Quote: "yes"}, {Verdict: 0, Reason: "r2"}, {Verdict: 1, Reason: "r3", Quote: "31 March"}}
	if len(tr.Draws) != 3 || tr.Draws[0] != want[0] || tr.Draws[1] != want[1] || tr.Draws[2] != want[2] {
		t.Fatalf("draws %+v", tr.Draws)
	}
	if criteria.Majority(tr.Draws) != 1 {
		t.Errorf("majority of 1,0,1 is not 1")
	}
	// The endpoint ignores n: the request for three choices gets one, and
	// the two missing are separate draws with seeds of their own; all at the
	// draw temperature, each showing the criterion in the run's language
	// and only the inputs the criterion lists.
	seeds := map[int]bool{}
	for _, r := range cb.requests {
		p := r.Prompt()
		for _, want := range []string{"TEXT-EN polite", "QUESTION-MARK", "ANSWER-MARK"} {
			if !strings.Contains(p, want) {
				t.Errorf("the prompt lacks %q", want)
			}
		}
		for _, absent := range []string{"TEXT-ZH", "CHUNK-MARK", "REFERENCE-MARK"} {
			if strings.Contains(p, absent) {
				t.Errorf("the prompt shows %q, an input the criterion does not list", absent)
			}
		}
		if r.Seed != nil {
			seeds[*r.Seed] = true
		}
		if r.Temperature == nil || *r.Temperature != 0.7 {
			t.Errorf("draw temperature %v, want 0.7", r.Temperature)
		}
	}
	if len(cb.requests) != 3 || cb.requests[0].N != 3 || !seeds[2] || !seeds[3] {
		t.Errorf("%d requests (first n=%d), seeds %v: want n=3, then draws 2 and 3", len(cb.requests), cb.requests[0].N, seeds)
	}
}

func TestCriterionRubricOffTheScaleIsRetried(t *testing.T) {
	c := criterionOf(t, "    kind: rubric\n    text: helpful?\n    inputs: [question, answer, contexts]\n    levels: {1: none, 2: {en: partly, zh: 部分}, 3: fully}\n")
	cb := &criteriaBrain{replies: map[string][]string{"criterion_rubric": {
		`{"quote": "yes", "reason": "r", "level": 5}`,
		`{"quote": "yes", "reason": "answers, no steps", "level": 2}`,
	}}}
	s := cb.stack(t, stackOpt{})
	tr, err := s.judge.Criterion(context.Background(), &criterionSample, c)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Level == nil || *tr.Level != 2 || tr.Description != "partly" || tr.Reason != "answers, no steps" || tr.Quote != "yes" {
		t.Fatalf("trace %+v", tr)
	}
	if len(cb.requests) != 2 {
		t.Fatalf("%d requests, want the off-scale reply retried once", len(cb.requests))
	}
	p := cb.requests[0].Prompt()
	for _, want := range []string{`<level score="1">none</level>`, `<level score="3">fully</level>`, "CHUNK-MARK"} {
		if !strings.Contains(p, want) {
			t.Errorf("the prompt lacks %q", want)
		}
	}
}

func TestCriterionRubricNeverOnTheScaleFails(t *testing.T) {
	c := criterionOf(t, "    kind: rubric\n    text: helpful?\n    levels: {1: none, 3: fully}\n")
	off := `{"quote": "", "reason": "r", "level": 2}`
	cb := &criteriaBrain{replies: map[string][]string{"criterion_rubric": {off, off, off, off, off}}}
	s := cb.stack(t, stackOpt{maxRetries: 2})
	_, err := s.judge.Criterion(context.Background(), &criterionSample, c)
	if eval.StatusOf(err) != eval.StatusParseError || !strings.Contains(err.Error(), "level 2 is not on the scale 1–3") {
		t.Fatalf("err %v (status %s), want a parse error naming the scale", err, eval.StatusOf(err))
	}
}

// A checklist's verdicts stay with their items: a short list is asked
// again with the count, and one answered out of order is read by the items
// the judge echoes.
func TestCriterionChecklistItems(t *testing.T) {
	for _, tc := range []struct {
		name     string
		replies  []string
		requests int
	}{
		{"short, then asked again", []string{
			`{"items": [{"item": "names the form", "quote": "", "reason": "no form", "verdict": 0}]}`,
			`{"items": [{"item": "form?", "quote": "", "reason": "no form", "verdict": 0}, {"item": "deadline", "quote": "31 March", "reason": "given", "verdict": 1}]}`,
		}, 2},
		{"out of order", []string{
			`{"items": [{"item": "gives the deadline", "quote": "31 March", "reason": "given", "verdict": 1}, {"item": "names the form", "quote": "", "reason": "no form", "verdict": 0}]}`,
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := criterionOf(t, "    kind: checklist\n    items: [names the form, gives the deadline]\n")
			cb := &criteriaBrain{replies: map[string][]string{"criterion_checklist": tc.replies}}
			s := cb.stack(t, stackOpt{})
			tr, err := s.judge.Criterion(context.Background(), &criterionSample, c)
			if err != nil {
				t.Fatal(err)
			}
			want := []criteria.ItemVerdict{{Item: "names the form", Verdict: 0, Reason: "no form"}, {Item: "gives the deadline", Verdict: 1, Reason: "given", Quote: "31 March"}}
			if len(tr.Items) != 2 || tr.Items[0] != want[0] || tr.Items[1] != want[1] {
				t.Fatalf("items %+v", tr.Items)
			}
			if got := criteria.ChecklistScore(tr.Items); got != 0.5 {
				t.Errorf("score %v", got)
			}
			if len(cb.requests) != tc.requests {
				t.Errorf("%d requests, want %d", len(cb.requests), tc.requests)
			}
			if tc.requests == 2 && !strings.Contains(cb.requests[1].Messages[len(cb.requests[1].Messages)-1].Content, "Return exactly 2") {
				t.Errorf("the short list was not re-asked with the count")
			}
		})
	}
}

// The fake judge answers every criteria task in the contract, so the
// end-to-end tests and the demo can run criteria.
func TestFakeJudgeAnswersCriteria(t *testing.T) {
	for _, tc := range []struct {
		yaml  string
		check func(*criteria.Trace) bool
	}{
		{"    kind: yes_no\n    text: t\n    strictness: 3\n", func(tr *criteria.Trace) bool { return len(tr.Draws) == 3 && tr.Draws[0].Verdict == 1 }},
		{"    kind: rubric\n    text: t\n    levels: {1: a, 2: b, 3: c}\n", func(tr *criteria.Trace) bool { return tr.Level != nil && *tr.Level == 2 }},
		{"    kind: checklist\n    items: [a, b, c]\n", func(tr *criteria.Trace) bool {
			return len(tr.Items) == 3 && tr.Items[0].Verdict == 1 && tr.Items[1].Verdict == 0
		}},
	} {
		c := criterionOf(t, tc.yaml)
		b := newBrain()
		b.override = func(r *fakejudge.Request, _ int) (fakejudge.Reply, bool) { return fakejudge.Generic(r), true }
		st := newStack(t, b, stackOpt{})
		tr, err := st.judge.Criterion(context.Background(), &criterionSample, c)
		if err != nil || !tc.check(tr) {
			t.Errorf("%s: %v %+v", c.Kind, err, tr)
		}
	}
}
