package eval

import (
	"context"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval/criteria"
)

// critJudge judges criteria with a fixed trace (or error); the embedded
// nil Judge is never called by runCriterion.
type critJudge struct {
	Judge
	trace *criteria.Trace
	err   error
	calls int
}

func (j *critJudge) Criterion(context.Context, *Sample, *criteria.Criterion) (*criteria.Trace, error) {
	j.calls++
	return j.trace, j.err
}

// plainJudge judges no criteria: like the offline judge.
type plainJudge struct{ Judge }

func oneCriterion(t *testing.T, yaml string) *criteria.Criterion {
	t.Helper()
	set, err := criteria.Parse("c.yaml", []byte("criteria:\n  - name: crit\n"+yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	return set.Criteria[0]
}

func draws(v ...int) []criteria.Draw {
	out := make([]criteria.Draw, len(v))
	for i, x := range v {
		out[i] = criteria.Draw{Verdict: x, Reason: "r"}
	}
	return out
}

func TestRunCriterion(t *testing.T) {
	level := func(n int) *int { return &n }
	sample := Sample{Question: "q", Answer: "请咨询HR", Contexts: []string{"c"}}
	noRef := "    inputs: [answer, reference]\n"
	for _, tc := range []struct {
		name, yaml string
		judge      Judge
		status     Status
		score      float64
		errHas     string
	}{
		{"exact check, any judge", "    kind: not_contains\n    values: [咨询HR]\n", plainJudge{}, StatusOK, 0, ""},
		{"exact check passes", "    kind: contains\n    values: [HR]\n", plainJudge{}, StatusOK, 1, ""},
		{"yes_no 3 draws, majority yes", "    kind: yes_no\n    text: t\n    strictness: 3\n", &critJudge{trace: &criteria.Trace{Draws: draws(1, 0, 1)}}, StatusOK, 1, ""},
		{"yes_no 5 draws, majority no", "    kind: yes_no\n    text: t\n    strictness: 5\n", &critJudge{trace: &criteria.Trace{Draws: draws(1, 0, 0, 1, 0)}}, StatusOK, 0, ""},
		{"rubric normalised", "    kind: rubric\n    text: t\n    levels: {1: a, 2: b, 3: c, 4: d, 5: e}\n", &critJudge{trace: &criteria.Trace{Level: level(4)}}, StatusOK, 0.75, ""},
		{"rubric without level", "    kind: rubric\n    text: t\n    levels: {1: a, 2: b}\n", &critJudge{trace: &criteria.Trace{}}, StatusParseError, 0, "no level"},
		{"rubric off the scale", "    kind: rubric\n    text: t\n    levels: {1: a, 2: b}\n", &critJudge{trace: &criteria.Trace{Level: level(9)}}, StatusParseError, 0, "not on the scale"},
		{"checklist share", "    kind: checklist\n    items: [a, b, c, d]\n", &critJudge{trace: &criteria.Trace{Items: []criteria.ItemVerdict{{Verdict: 1}, {Verdict: 1}, {Verdict: 0}, {Verdict: 1}}}}, StatusOK, 0.75, ""},
		{"checklist short", "    kind: checklist\n    items: [a, b]\n", &critJudge{trace: &criteria.Trace{Items: []criteria.ItemVerdict{{Verdict: 1}}}}, StatusParseError, 0, "1 item verdicts for 2 items"},
		{"offline judge", "    kind: yes_no\n    text: t\n", plainJudge{}, StatusUnsupported, 0, "needs an LLM judge"},
		{"missing reference", "    kind: yes_no\n    text: t\n" + noRef, &critJudge{}, StatusMissingInput, 0, "reads the reference"},
		{"judge error", "    kind: yes_no\n    text: t\n", &critJudge{err: NewStepError(StatusJudgeError, "boom")}, StatusJudgeError, 0, "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := oneCriterion(t, tc.yaml)
			part := &Result{}
			runCriterion(context.Background(), tc.judge, &sample, c, part)
			m := Metric("crit")
			if part.Status[m] != tc.status {
				t.Fatalf("status %s (%s), want %s", part.Status[m], part.Errors[m], tc.status)
			}
			if !strings.Contains(part.Errors[m], tc.errHas) {
				t.Errorf("error %q, want it to contain %q", part.Errors[m], tc.errHas)
			}
			got, ok := part.Score(m)
			if ok != (tc.status == StatusOK) || got != tc.score {
				t.Errorf("score %v (%v), want %v", got, ok, tc.score)
			}
			if tc.status == StatusOK && part.Criteria["crit"] == nil {
				t.Errorf("no trace kept")
			}
			if cj, ok := tc.judge.(*critJudge); ok && tc.status == StatusMissingInput && cj.calls != 0 {
				t.Errorf("a sample without the input was judged: a paid call for nothing")
			}
		})
	}
}

func TestRunCriterionExactTraceHasMatches(t *testing.T) {
	c := oneCriterion(t, "    kind: not_contains\n    values: [咨询HR]\n")
	part := &Result{}
	runCriterion(context.Background(), plainJudge{}, &Sample{Answer: "请咨询HR。"}, c, part)
	tr := part.Criteria["crit"]
	if tr == nil || len(tr.Matches) != 1 || tr.Matches[0].Text != "咨询HR" || !strings.Contains(tr.Reason, "咨询HR") {
		t.Fatalf("trace %+v", tr)
	}
}

// Criteria run beside the metrics in a run: scored under their names,
// their traces kept, their failures reported as events like a metric's.
func TestRunnerRunsCriteria(t *testing.T) {
	set, err := criteria.Parse("c.yaml", []byte("criteria:\n  - name: no_hr\n    kind: not_contains\n    values: [HR]\n  - name: polite\n    kind: yes_no\n    text: t\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan Event, 64)
	r := &Runner{Judge: plainJudge{nopJudge{}}, Config: RunnerConfig{Metrics: []Metric{Faithfulness}, Criteria: set, Workers: 2}, Events: events}
	res := r.Run(context.Background(), []Sample{{Index: 0, Question: "q", Answer: "ask HR", Contexts: []string{"c"}}})
	var errs []Event
	for e := range events {
		if e.Kind == EventError {
			errs = append(errs, e)
		}
	}
	got := res[0]
	if s, ok := got.Score(Faithfulness); !ok || s != 1 {
		t.Errorf("faithfulness %v %v", s, ok)
	}
	if s, ok := got.Score("no_hr"); !ok || s != 0 || got.Criteria["no_hr"] == nil || len(got.Criteria["no_hr"].Matches) != 1 {
		t.Errorf("no_hr: %v %v %+v", s, ok, got.Criteria["no_hr"])
	}
	if got.Status["polite"] != StatusUnsupported {
		t.Errorf("polite with a judge that judges no criteria: %s", got.Status["polite"])
	}
	if len(errs) != 0 {
		t.Errorf("unsupported and failed-check criteria are not run errors: %+v", errs)
	}
}
