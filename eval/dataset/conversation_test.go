package dataset

import (
	"slices"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

// turn builds an expected conversation turn sample.
func turn(line int, id, conv string, n int, q, a string, ctx []string, ref string, history ...eval.Turn) eval.Sample {
	if len(history) == 0 {
		history = nil
	}
	return eval.Sample{Line: line, ID: id, Question: q, Answer: a, Contexts: ctx, Reference: ref, Conversation: conv, Turn: n, History: history}
}

func TestReadConversations(t *testing.T) {
	t1 := eval.Turn{Turn: 1, Question: "我们公司转一般纳税人了", Answer: "好的", Contexts: []string{"c1"}}
	t2 := eval.Turn{Turn: 2, Question: "识别号会变吗？", Answer: "不变", Contexts: []string{"c2"}}
	checkReads(t, []readCase{
		{
			name: "flat, interleaved conversations, ids derived", file: "d.jsonl", format: FormatJSONL,
			in: `{"conversation_id":"a","turn":1,"question":"我们公司转一般纳税人了","answer":"好的","contexts":["c1"]}` + "\n" +
				`{"conversation_id":"b","turn":1,"question":"hi","answer":"hello"}` + "\n" +
				`{"conversation_id":"a","turn":2,"user_input":"识别号会变吗？","response":"不变","retrieved_contexts":["c2"],"reference":"r"}` + "\n" +
				`{"conversation_id":"a","turn":3,"id":"own","question":"发票呢？","answer":"也不变"}`,
			want: []eval.Sample{
				turn(1, "a#1", "a", 1, t1.Question, t1.Answer, t1.Contexts, ""),
				turn(2, "b#1", "b", 1, "hi", "hello", nil, ""),
				turn(3, "a#2", "a", 2, t2.Question, t2.Answer, t2.Contexts, "r", t1),
				turn(4, "own", "a", 3, "发票呢？", "也不变", nil, "", t1, t2),
			},
		},
		{
			name: "nested, type human/ai, contexts on either message, top-level reference on the last turn", file: "d.jsonl", format: FormatJSONL,
			in: `{"conversation_id":"a","user_input":[{"type":"human","content":"我们公司转一般纳税人了","retrieved_contexts":["c1"]},{"type":"ai","content":"好的"},` +
				`{"type":"human","content":"识别号会变吗？"},{"type":"ai","content":"不变","retrieved_contexts":["c2"]}],"reference":"r"}`,
			want: []eval.Sample{
				turn(1, "a#1", "a", 1, t1.Question, t1.Answer, t1.Contexts, ""),
				turn(1, "a#2", "a", 2, t2.Question, t2.Answer, t2.Contexts, "r", t1),
			},
		},
		{
			name: "nested, role user/assistant, per-turn reference, id from the record, no conversation id", file: "d.json", format: FormatJSON,
			in: `[{"id":"x","user_input":[{"role":"user","content":"q1"},{"role":"assistant","content":"a1","reference":"r1"},` +
				`{"role":"user","content":"q2"},{"role":"user","content":"more"},{"role":"assistant","content":"a2"},{"role":"user","content":"unanswered"}]}]`,
			want: []eval.Sample{
				turn(1, "x#1", "x", 1, "q1", "a1", nil, "r1"),
				turn(1, "x#2", "x", 2, "q2\nmore", "a2", nil, "", eval.Turn{Turn: 1, Question: "q1", Answer: "a1"}),
			},
		},
		{
			name: "nested record on one line of a .json file is not a column-oriented object", file: "d.json", format: FormatJSONL,
			in:   `{"user_input":[{"type":"human","content":"q"},{"type":"ai","content":"a"}]}`,
			want: []eval.Sample{turn(1, "line-1#1", "line-1", 1, "q", "a", nil, "")},
		},
	})
}

func TestReadConversationErrors(t *testing.T) {
	checkReadErrors(t, []readErrCase{
		{
			name: "flat turn order gap", file: "d.jsonl",
			in: `{"conversation_id":"a","turn":1,"question":"q","answer":"a"}` + "\n" + `{"conversation_id":"b","turn":1,"question":"q","answer":"a"}` + "\n" +
				`{"conversation_id":"a","turn":3,"question":"q","answer":"a"}`,
			line: 3, field: "turn", skippable: true,
			want: []string{`d.jsonl:3: field "turn": turn 3 of conversation "a" follows turn 1 (line 1) — a turn order gap`},
		},
		{
			name: "flat conversation starting past turn 1", file: "d.jsonl", in: `{"conversation_id":"a","turn":2,"question":"q","answer":"a"}`,
			line: 1, field: "turn", skippable: true, want: []string{`conversation "a" starts at turn 2`},
		},
		{
			name: "flat turn repeated", file: "d.jsonl",
			in:   `{"conversation_id":"a","turn":1,"question":"q","answer":"a"}` + "\n" + `{"conversation_id":"a","turn":1,"question":"q","answer":"a"}`,
			line: 2, field: "turn", skippable: true, want: []string{`turn 1 of conversation "a" follows turn 1 (line 1) — the turn is repeated`},
		},
		{
			name: "flat turn not a number", file: "d.jsonl", in: `{"conversation_id":"a","turn":"1","question":"q","answer":"a"}`,
			line: 1, field: "turn", skippable: true, want: []string{`is "1", not a whole number from 1`},
		},
		{
			name: "flat turn without a conversation", file: "d.jsonl", in: `{"turn":1,"question":"q","answer":"a"}`,
			line: 1, field: "conversation_id", skippable: true, want: []string{"needs both"},
		},
		{
			name: "nested ai turn first", file: "d.jsonl",
			in:   `{"question":"q","answer":"a"}` + "\n" + `{"user_input":[{"type":"ai","content":"hello"},{"type":"human","content":"q"}]}`,
			line: 2, field: "question", skippable: true,
			want: []string{`d.jsonl:2: field "question": message 1 is an ai turn without a human turn before it`},
		},
		{
			name: "nested two ai turns in a row", file: "d.jsonl",
			in:   `{"user_input":[{"type":"human","content":"q"},{"type":"ai","content":"a"},{"type":"ai","content":"b"}]}`,
			line: 1, field: "question", skippable: true, want: []string{"message 3 is an ai turn without a human turn"},
		},
		{
			name: "nested mixed conversation ids", file: "d.jsonl",
			in:   `{"conversation_id":"a","user_input":[{"type":"human","content":"q","conversation_id":"a"},{"type":"ai","content":"x","conversation_id":"b"}]}`,
			line: 1, field: "conversation_id", skippable: true, want: []string{`message 2 says conversation "b" but the record is conversation "a" — mixed conversation ids`},
		},
		{
			name: "nested unknown type", file: "d.jsonl", in: `{"user_input":[{"type":"tool","content":"q"}]}`,
			line: 1, field: "question", skippable: true, want: []string{`message 1 has type "tool"`},
		},
		{
			name: "nested without an ai turn", file: "d.jsonl", in: `{"user_input":[{"type":"human","content":"q"}]}`,
			line: 1, field: "question", skippable: true, want: []string{"no ai turn"},
		},
	})
}

// A log followed line by line (ragscope watch) assembles its
// conversations as the turns arrive; it may have been joined midway or
// thinned by the service, so a missing turn is no error, but a repeated
// or reordered one is not evaluated.
func TestLineDecoderAssemblesConversations(t *testing.T) {
	d, err := NewLineDecoder(Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines := []struct {
		in      string
		turn    int
		history []int // the turns of its history
		err     string
	}{
		{in: `{"conversation_id":"a","turn":1,"question":"q1","answer":"a1","contexts":["c1"]}`, turn: 1},
		{in: `{"conversation_id":"b","turn":4,"question":"joined midway","answer":"x"}`, turn: 4},
		{in: `{"question":"a single turn","answer":"y"}`},
		{in: `{"conversation_id":"a","turn":2,"question":"q2","answer":"a2"}`, turn: 2, history: []int{1}},
		{in: `{"conversation_id":"a","turn":4,"question":"q4","answer":"a4"}`, turn: 4, history: []int{1, 2}},
		{in: `{"conversation_id":"a","turn":3,"question":"late","answer":"a3"}`, err: `turn 3 of conversation "a" comes after its turn 4 (line 5)`},
		{in: `{"conversation_id":"b","turn":5,"question":"q5","answer":"a5"}`, turn: 5, history: []int{4}},
	}
	for i, l := range lines {
		s, err := d.Decode("app.jsonl", i+1, []byte(l.in))
		if l.err != "" {
			if err == nil || !strings.Contains(err.Error(), l.err) {
				t.Errorf("line %d: error %v, want %q", i+1, err, l.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		var got []int
		for _, h := range s.History {
			got = append(got, h.Turn)
		}
		if s.Turn != l.turn || !slices.Equal(got, l.history) {
			t.Errorf("line %d: turn %d with history %v, want %d with %v", i+1, s.Turn, got, l.turn, l.history)
		}
	}
}

// The flat form in CSV: conversation_id and turn columns.
func TestReadConversationsCSV(t *testing.T) {
	t1 := eval.Turn{Turn: 1, Question: "q1", Answer: "a1", Contexts: []string{"c1"}}
	checkReads(t, []readCase{{
		name: "csv turns", file: "d.csv", format: FormatCSV,
		in: "conversation_id,turn,question,answer,contexts\na,1,q1,a1,\"[\"\"c1\"\"]\"\nb,1,q,x,\na,2,q2,a2,\n",
		want: []eval.Sample{
			turn(2, "a#1", "a", 1, "q1", "a1", []string{"c1"}, ""),
			turn(3, "b#1", "b", 1, "q", "x", nil, ""),
			turn(4, "a#2", "a", 2, "q2", "a2", nil, "", t1),
		},
	}})
	checkReadErrors(t, []readErrCase{{
		name: "csv turn gap", file: "d.csv", in: "conversation_id,turn,question,answer\na,1,q,a\na,x,q,a\n",
		line: 3, unit: read.UnitRow, field: "turn", skippable: true, want: []string{`d.csv: row 3: field "turn": is "x", not a whole number from 1`},
	}})
}
