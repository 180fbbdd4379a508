package tui

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
)

// conversationOptions is the fixture's taxpayer sample as turn 2 of a
// conversation: a history, a standalone question, a statement backed only
// by turn 1's chunks and one contradicting turn 1's answer.
func conversationOptions(standalone *eval.StandaloneTrace, checked bool) Options {
	opts := fixtureOptions()
	res := *opts.Results[0]
	res.ConversationID, res.Turn, res.Standalone = "tax-zh", 2, standalone
	res.History = []eval.Turn{{Turn: 1, Question: "我们公司下个月转为一般纳税人。", Answer: "转为一般纳税人后，按一般计税方法计算增值税。"}}
	tr := *res.Faithfulness
	tr.Statements = append([]eval.StatementVerdict(nil), tr.Statements...)
	tr.HistorySupport, tr.ContradictionsChecked = eval.HistoryChunks, checked
	tr.Statements[0].Support, tr.Statements[0].SupportTurn, tr.Statements[0].HistoryReason = eval.SupportEarlierChunks, 1, "第1轮检索到的段落写明"
	tr.Statements[0].Verdict = 1
	tr.Statements[2].Contradicts, tr.Statements[2].HistoryReason = 1, "第1轮的回答说的是一般计税方法"
	tr.Supported = 2
	f := 2.0 / 3
	res.Scores = maps.Clone(res.Scores)
	res.Scores[eval.Faithfulness] = &f
	res.Faithfulness = &tr
	opts.Results = []*eval.Result{&res}
	return opts
}

func TestDetailConversationTurn(t *testing.T) {
	tests := []struct {
		name       string
		standalone *eval.StandaloneTrace
		checked    bool
		want, not  []string
	}{
		{
			name:       "LLM judge",
			standalone: &eval.StandaloneTrace{Question: "小规模纳税人转为一般纳税人后，纳税人识别号会变吗？", Status: eval.StatusOK},
			checked:    true,
			want: []string{
				"Conversation tax-zh, turn 2", "1 user: 我们公司下个月转为一般纳税人。", "1 assistant: 转为一般纳税人后",
				"Standalone question", "小规模纳税人转为一般纳税人后，纳税人识别号会变吗？",
				"looking back over the conversation (--history-support chunks):",
				"statement 1: backed only by the chunks retrieved in turn 1, counted as supported",
				"statement 3: contradicts the answer of turn 1",
			},
			not: []string{"not looked for"},
		},
		{
			name:       "offline judge",
			standalone: &eval.StandaloneTrace{Status: eval.StatusUnsupported, Reason: "the offline judge cannot rewrite a question"},
			want:       []string{"unsupported: the offline judge cannot rewrite a question", "contradictions with earlier answers not looked for"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(t, conversationOptions(tt.standalone, tt.checked), 160, 200)
			press(m, "right", "j", "enter") // expand the conversation, open its turn
			s := flat(screenText(m))
			for _, w := range tt.want {
				if !strings.Contains(s, flat(w)) {
					t.Errorf("the turn's page lacks %q:\n%s", w, screenText(m))
				}
			}
			for _, w := range tt.not {
				if strings.Contains(s, w) {
					t.Errorf("the turn's page has %q", w)
				}
			}
		})
	}
}

// A single-turn sample's page has no conversation parts.
func TestDetailSingleTurnHasNoConversation(t *testing.T) {
	m := newTestModel(t, fixtureOptions(), 160, 200)
	press(m, "enter")
	s := screenText(m)
	for _, w := range []string{"Conversation", "Standalone question", "looking back"} {
		if strings.Contains(s, w) {
			t.Errorf("a single-turn page has %q", w)
		}
	}
}

// The top of a turn's page (the conversation before it, the standalone
// question) and its faithfulness section (the look back).
func TestGoldenConversationTurn(t *testing.T) {
	for _, tt := range []struct {
		name string
		keys []string
		wait string
	}{
		{"top", []string{"right", "j", "enter"}, "Standalone question"},
		{"faithfulness", []string{"right", "j", "enter", "1"}, "looking back over the conversation"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := New(conversationOptions(&eval.StandaloneTrace{Question: "小规模纳税人转为一般纳税人后，纳税人识别号会变吗？", Status: eval.StatusOK}, true))
			m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
			requireGoldenFrame(t, m, [2]int{120, 40}, tt.keys, tt.wait)
		})
	}
}
