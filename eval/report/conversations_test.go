package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/internal/reporttest"
)

var turnResult = reporttest.Turn

func fp(v float64) *float64 { return &v }

func TestConversationAggregates(t *testing.T) {
	metrics := []eval.Metric{eval.Faithfulness, eval.AnswerRelevancy}
	type want struct {
		id           string
		turns        int
		mean, min    *float64
		firstFailing *int
	}
	two, three := 2, 3
	tests := []struct {
		name    string
		levels  string
		results []*eval.Result
		want    []want // faithfulness of each conversation, in first-seen order
	}{
		{
			name: "interleaved, first failing turn at the default level, a turn without a score",
			results: []*eval.Result{
				turnResult(0, "b", 1, fp(1)), turnResult(1, "a", 1, fp(0.8)), turnResult(2, "a", 2, fp(0.2)),
				turnResult(3, "b", 2, nil), turnResult(4, "a", 3, fp(0.4)),
			},
			want: []want{{"b", 2, fp(1), fp(1), nil}, {"a", 3, fp(0.4666666666666667), fp(0.2), &two}},
		},
		{
			name:    "a stricter pass level moves the first failing turn",
			levels:  "faithfulness=0.9",
			results: []*eval.Result{turnResult(0, "a", 1, fp(1)), turnResult(1, "a", 2, fp(0.5))},
			want:    []want{{"a", 2, fp(0.75), fp(0.5), &two}},
		},
		{
			name:    "turns in another order (a resumed run): the lowest failing turn",
			results: []*eval.Result{turnResult(0, "a", 3, fp(0.1)), turnResult(1, "a", 1, fp(1)), turnResult(2, "a", 2, fp(0.9))},
			want:    []want{{"a", 3, fp(2.0 / 3), fp(0.1), &three}},
		},
		{
			name:    "no turn scored",
			results: []*eval.Result{turnResult(0, "a", 1, nil)},
			want:    []want{{"a", 1, nil, nil, nil}},
		},
	}
	eq := func(a, b *float64) bool {
		return a == nil && b == nil || a != nil && b != nil && *a-*b < 1e-9 && *b-*a < 1e-9
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			levels, err := ParseLevels(tt.levels)
			if err != nil {
				t.Fatal(err)
			}
			got := tallyOf(metrics, tt.results, levels).Conversations()
			if len(got) != len(tt.want) {
				t.Fatalf("%d conversations, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				g := got[i]
				f := g.Metrics[eval.Faithfulness]
				if g.ID != w.id || g.Turns != w.turns || !eq(f.Mean, w.mean) || !eq(f.Min, w.min) ||
					(f.FirstFailingTurn == nil) != (w.firstFailing == nil) || f.FirstFailingTurn != nil && *f.FirstFailingTurn != *w.firstFailing {
					t.Errorf("conversation %d: %s turns %d faithfulness %+v, want %+v", i, g.ID, g.Turns, f, w)
				}
				if ar := g.Metrics[eval.AnswerRelevancy]; ar.FirstFailingTurn != nil || ar.Mean == nil || *ar.Mean != 1 {
					t.Errorf("answer relevancy %+v", ar)
				}
			}
		})
	}
	if got := tallyOf(metrics, []*eval.Result{{Index: 0, Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{}}}, Levels{}).Conversations(); got != nil {
		t.Errorf("a run without conversations has %+v", got)
	}
}

// The JSON report carries the contract: each turn's conversation_id, turn
// and standalone_question (null when there is none), and the top-level
// conversations with mean, min and first_failing_turn (null: none fails).
func TestReportJSONConversations(t *testing.T) {
	run := RunInfo{ID: "r", Metrics: []eval.Metric{eval.Faithfulness, eval.AnswerRelevancy}, ConversationTurns: 2}
	rep := NewReport(run, []*eval.Result{turnResult(0, "a", 1, fp(1)), turnResult(1, "a", 2, fp(0.25))})
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Conversations []struct {
			ID      string                    `json:"id"`
			Turns   int                       `json:"turns"`
			Metrics map[string]map[string]any `json:"metrics"`
		} `json:"conversations"`
		Samples []map[string]any `json:"samples"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Conversations) != 1 || out.Conversations[0].ID != "a" || out.Conversations[0].Turns != 2 {
		t.Fatalf("conversations %+v", out.Conversations)
	}
	m := out.Conversations[0].Metrics
	if f := m["faithfulness"]; f["mean"] != 0.625 || f["min"] != 0.25 || f["first_failing_turn"] != 2.0 {
		t.Errorf("faithfulness %v", f)
	}
	if ar, ok := m["answer_relevancy"]; !ok || ar["first_failing_turn"] != nil {
		t.Errorf("answer_relevancy %v", ar)
	} else if _, present := ar["first_failing_turn"]; !present {
		t.Error("first_failing_turn is left out, not null")
	}
	for i, s := range out.Samples {
		if s["conversation_id"] != "a" || s["turn"] != float64(i+1) {
			t.Errorf("sample %d: %v %v", i, s["conversation_id"], s["turn"])
		}
		q, present := s["standalone_question"]
		if !present || (i == 0) != (q == nil) || i == 1 && q != "standalone a" {
			t.Errorf("sample %d: standalone_question %v (present %v)", i, q, present)
		}
	}
	// A run without conversations has neither.
	b.Reset()
	plain := NewReport(RunInfo{ID: "p", Metrics: run.Metrics}, []*eval.Result{{Index: 0, Question: "q", Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{}}})
	if err := plain.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "conversation") || strings.Contains(b.String(), "standalone_question") {
		t.Errorf("a single-turn report mentions conversations:\n%s", b.String())
	}
}

func TestReportCSVConversationColumns(t *testing.T) {
	run := RunInfo{ID: "r", Metrics: []eval.Metric{eval.Faithfulness}, ConversationTurns: 2}
	rep := NewReport(run, []*eval.Result{turnResult(0, "a", 1, fp(1)), turnResult(1, "a", 2, fp(0.25))})
	var b bytes.Buffer
	if err := rep.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0][:7], ","); got != "index,id,conversation_id,turn,question,answer,standalone_question" {
		t.Errorf("header %s", got)
	}
	if got := strings.Join(rows[2][:7], ","); got != "1,a#2,a,2,q,a,standalone a" {
		t.Errorf("row %s", got)
	}
	b.Reset()
	run.ConversationTurns = 0
	if err := NewReport(run, nil).WriteCSV(&b); err != nil || strings.Contains(b.String(), "conversation_id") {
		t.Errorf("a single-turn CSV has conversation columns: %v\n%s", err, b.String())
	}
}

// The Markdown report lists the conversations with a failing turn, per
// metric its mean, minimum and first failing turn; nothing without
// conversations.
func TestReportMarkdownConversations(t *testing.T) {
	run := RunInfo{ID: "r", Metrics: []eval.Metric{eval.Faithfulness}, ConversationTurns: 3}
	rep := NewReport(run, []*eval.Result{turnResult(0, "a", 1, fp(1)), turnResult(1, "a", 2, fp(0.25)), turnResult(2, "b", 1, fp(1))})
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b, 5); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Conversations", "2 conversations, 1 with a turn below a pass level.", "| a | 2 | 0.625 / 0.250 / turn 2 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "| b |") {
		t.Error("a conversation without a failing turn is listed")
	}
	b.Reset()
	if err := NewReport(RunInfo{ID: "p", Metrics: run.Metrics}, nil).WriteMarkdown(&b, 5); err != nil || strings.Contains(b.String(), "Conversations") {
		t.Errorf("a single-turn Markdown report has conversations: %v", err)
	}
}

// nsTurn is turn n of conversation conv with noise sensitivity v (lower is better).
func nsTurn(index int, conv string, n int, v float64) *eval.Result {
	return &eval.Result{Index: index, ConversationID: conv, Turn: n,
		Scores: map[eval.Metric]*float64{eval.NoiseSensitivity: &v},
		Status: map[eval.Metric]eval.Status{eval.NoiseSensitivity: eval.StatusOK}}
}

// --fail-under-conversation: every conversation's worst turn against the
// threshold, the breaching ones named with their first failing turn,
// turns in any order, a ceiling for a lower-is-better metric, and no
// conversations (or no score) a check that cannot be made.
func TestConversationGate(t *testing.T) {
	f := func(v float64) []Threshold { return []Threshold{{eval.Faithfulness, v}} }
	tests := []struct {
		name    string
		gate    []Threshold
		results []*eval.Result
		state   GateState
		want    []string // in the message
		not     []string
	}{
		{"every turn at or above", f(0.5), []*eval.Result{turnResult(0, "a", 1, fp(0.5)), turnResult(1, "a", 2, fp(0.9)), turnResult(2, "b", 1, fp(1))},
			GatePassed, []string{"every turn of the 2 conversations >= 0.5"}, nil},
		{"one conversation breaches, its first failing turn named", f(0.5), []*eval.Result{
			turnResult(0, "a", 1, fp(1)), turnResult(1, "b", 1, fp(1)), turnResult(2, "b", 2, fp(0.4)), turnResult(3, "b", 3, fp(0.2)), turnResult(4, "a", 2, fp(0.6)),
		}, GateBreached, []string{"1 of 2 conversations breach", "conversation b first fails at turn 2 (worst turn 0.200 < 0.5)"}, []string{"conversation a"}},
		{"turns out of order: the lowest failing turn, conversations in sample order", f(0.5), []*eval.Result{
			turnResult(0, "z", 1, fp(0.1)), turnResult(1, "y", 3, fp(0.3)), turnResult(2, "y", 2, fp(0.4)), turnResult(3, "y", 1, fp(1)),
		}, GateBreached, []string{"2 of 2 conversations breach: conversation z first fails at turn 1 (worst turn 0.100 < 0.5); conversation y first fails at turn 2 (worst turn 0.300 < 0.5)"}, nil},
		{"unscored turns are not below", f(0.5), []*eval.Result{turnResult(0, "a", 1, nil), turnResult(1, "a", 2, fp(0.9))},
			GatePassed, []string{"every turn of the 1 conversations"}, nil},
		{"lower is better: a ceiling", []Threshold{{eval.NoiseSensitivity, 0.3}}, []*eval.Result{nsTurn(0, "a", 1, 0.1), nsTurn(1, "a", 2, 0.5), nsTurn(2, "b", 1, 0.3)},
			GateBreached, []string{"noise_sensitivity per conversation <= 0.3", "conversation a first fails at turn 2 (worst turn 0.500 > 0.3)"}, []string{"conversation b"}},
		{"a conversation id from the data is made visible", f(0.5), []*eval.Result{turnResult(0, "x\x1b]0;t\x07", 1, fp(0.1))},
			GateBreached, []string{`conversation x\x1b]0;t\x07 first fails`}, []string{"\x1b"}},
		{"no conversations: cannot gate", f(0.5), []*eval.Result{gateResult(0, 0.9)},
			GateCannot, []string{"the run has no conversations"}, nil},
		{"no score on any turn: cannot gate", f(0.5), []*eval.Result{turnResult(0, "a", 1, nil)},
			GateCannot, []string{"no score on any sample"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			metrics := []eval.Metric{eval.Faithfulness}
			if tt.gate[0].Metric == eval.NoiseSensitivity {
				metrics = []eval.Metric{eval.NoiseSensitivity}
			}
			g := Gate{Conversation: tt.gate}
			if !g.Active() {
				t.Fatal("a conversation gate is not active")
			}
			tally, gt := NewTally(metrics), NewGateTally(g, 3)
			for _, r := range tt.results {
				tally.Add(r)
				gt.Add(r)
			}
			o := gt.Outcome(tally)
			if len(o.Checks) != 1 || o.Checks[0].Kind != "conversation" || o.Checks[0].State != tt.state || o.Passed() != (tt.state == GatePassed) {
				t.Fatalf("checks %+v; want one conversation check %s", o.Checks, tt.state)
			}
			msg := o.Checks[0].Message
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(msg, w) {
					t.Errorf("message %q has %q", msg, w)
				}
			}
		})
	}
}

// A breaching conversation check is a JUnit failure of its own testcase.
func TestConversationGateJUnit(t *testing.T) {
	g := Gate{Conversation: []Threshold{{eval.Faithfulness, 0.5}}}
	tally, gt := NewTally([]eval.Metric{eval.Faithfulness}), NewGateTally(g, 3)
	for _, r := range []*eval.Result{turnResult(0, "tax", 1, fp(1)), turnResult(1, "tax", 2, fp(0.25))} {
		tally.Add(r)
		gt.Add(r)
	}
	o := gt.Outcome(tally)
	var b bytes.Buffer
	run := RunInfo{Metrics: []eval.Metric{eval.Faithfulness}}
	if err := WriteReportJUnit(&b, run, tally.Summary(), gt, o, func(yield func(*eval.Result) error) error { return nil }); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`name="faithfulness every turn of each conversation &gt;= 0.5"`, `classname="ragscope.gate.conversation.faithfulness"`, `type="gate_breached"`, "conversation tax first fails at turn 2"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("JUnit lacks %q:\n%s", w, b.String())
		}
	}
}
