package diff

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// The conversations of two runs compared: matched by id, mean, min and
// first failing turn before and after, a conversation on one side only,
// nothing unless both runs have conversations.
func TestDiffConversations(t *testing.T) {
	metrics := []eval.Metric{eval.Faithfulness}
	a := []*eval.Result{turnResult(0, "a", 1, fp(1)), turnResult(1, "a", 2, fp(0.2)), turnResult(2, "gone", 1, fp(0.9))}
	b := []*eval.Result{turnResult(0, "new", 1, fp(0.1)), turnResult(1, "a", 1, fp(1)), turnResult(2, "a", 2, fp(0.8))}
	flat := []*eval.Result{gateResult(0, 0.5)}
	strict, _ := report.ParseLevels("faithfulness=0.9")
	type want struct {
		id             string
		turnsA, turnsB int
		meanA, meanB   *float64
		minA, minB     *float64
		firstA, firstB *int
	}
	one, two := 1, 2
	tests := []struct {
		name   string
		a, b   []*eval.Result
		la, lb report.Levels
		want   []want
	}{
		{"fixed turn 2; a conversation only after, one only before", a, b, report.Levels{}, report.Levels{},
			[]want{
				{"new", 0, 1, nil, fp(0.1), nil, fp(0.1), nil, &one},
				{"a", 2, 2, fp(0.6), fp(0.9), fp(0.2), fp(0.8), &two, nil},
				{"gone", 1, 0, fp(0.9), nil, fp(0.9), nil, nil, nil},
			}},
		{"each side at its own pass level", a[:2], b[1:], report.Levels{}, strict,
			[]want{{"a", 2, 2, fp(0.6), fp(0.9), fp(0.2), fp(0.8), &two, &two}}},
		{"no conversations before", flat, b, report.Levels{}, report.Levels{}, nil},
		{"no conversations after", a, flat, report.Levels{}, report.Levels{}, nil},
	}
	eqF := func(x, y *float64) bool {
		return x == nil && y == nil || x != nil && y != nil && *x-*y < 1e-9 && *y-*x < 1e-9
	}
	eqI := func(x, y *int) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Conversations(metrics, tt.a, tt.b, tt.la, tt.lb)
			if len(got) != len(tt.want) {
				t.Fatalf("%d conversations %+v; want %d", len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				g, md := got[i], got[i].Metrics[eval.Faithfulness]
				if g.ID != w.id || g.TurnsBefore != w.turnsA || g.TurnsAfter != w.turnsB || !eqF(md.MeanBefore, w.meanA) || !eqF(md.MeanAfter, w.meanB) ||
					!eqF(md.MinBefore, w.minA) || !eqF(md.MinAfter, w.minB) || !eqI(md.FirstFailingTurnBefore, w.firstA) || !eqI(md.FirstFailingTurnAfter, w.firstB) {
					t.Errorf("conversation %d: %s %d->%d %+v; want %+v", i, g.ID, g.TurnsBefore, g.TurnsAfter, md, w)
				}
			}
		})
	}
}

// The text diff lists the conversations after the means; the JSON has a
// conversations list; a run without conversations adds neither.
func TestDiffConversationsOutput(t *testing.T) {
	metrics := []eval.Metric{eval.Faithfulness}
	a := []*eval.Result{turnResult(0, "tax", 1, fp(1)), turnResult(1, "tax", 2, fp(0.2))}
	b := []*eval.Result{turnResult(0, "tax", 1, fp(1)), turnResult(1, "tax", 2, fp(1))}
	d := report.Diff(metrics, a, b)
	d.Conversations = Conversations(metrics, a, b, report.Levels{}, report.Levels{})
	var text bytes.Buffer
	Write(&text, report.RunInfo{ID: "A"}, report.RunInfo{ID: "B"}, metrics, d)
	for _, w := range []string{"1 conversations:", "conversation  turns   metric", "tax           2 -> 2  faithfulness  0.600 -> 1.000  0.200 -> 1.000  2 -> none"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text diff lacks %q:\n%s", w, text.String())
		}
	}
	body, err := json.Marshal(d)
	if err != nil || !strings.Contains(string(body), `"conversations":[{"id":"tax","turns_before":2,"turns_after":2,"metrics":{"faithfulness":{"mean_before":0.6,"mean_after":1,"min_before":0.2,"min_after":1,"first_failing_turn_before":2,"first_failing_turn_after":null}}}]`) {
		t.Errorf("JSON (%v): %s", err, body)
	}
	flat := report.Diff(metrics, []*eval.Result{gateResult(0, 0.5)}, []*eval.Result{gateResult(0, 0.6)})
	text.Reset()
	Write(&text, report.RunInfo{}, report.RunInfo{}, metrics, flat)
	body, _ = json.Marshal(flat)
	if strings.Contains(text.String(), "conversation") || strings.Contains(string(body), "conversations") {
		t.Errorf("a run without conversations:\n%s\n%s", text.String(), body)
	}
}
