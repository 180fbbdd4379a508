package offline

import (
	"context"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// Offline, a turn's standalone question is unsupported and its statements
// are checked against its own chunks, then the earlier turns' chunks and
// the user's words; contradictions are not looked for.
func TestConversationOffline(t *testing.T) {
	s := eval.Sample{
		Conversation: "tax", Turn: 2,
		Question: "那发票抬头呢？",
		Answer:   "发票抬头不需要变更。纳税人识别号保持不变。公司年营业额为八百万元。",
		Contexts: []string{"转为一般纳税人后，发票抬头不需要变更。"},
		History: []eval.Turn{{Turn: 1, Question: "我们公司年营业额为八百万元，转一般纳税人了，纳税人识别号会变吗？",
			Answer: "不会变。", Contexts: []string{"纳税人由小规模纳税人转为一般纳税人的，其纳税人识别号保持不变。"}}},
	}
	tests := []struct {
		hs    eval.HistorySupport
		score float64
	}{{eval.HistoryChunks, 2.0 / 3}, {eval.HistoryConversation, 1}, {eval.HistoryNone, 1.0 / 3}}
	for _, tt := range tests {
		t.Run(string(tt.hs), func(t *testing.T) {
			r := &eval.Runner{Judge: New(), Config: eval.RunnerConfig{Metrics: []eval.Metric{eval.Faithfulness}, Workers: 1, HistorySupport: tt.hs}}
			res := r.Run(context.Background(), []eval.Sample{s})[0]
			if st := res.Standalone; st == nil || st.Status != eval.StatusUnsupported || st.Question != "" {
				t.Errorf("standalone %+v", st)
			}
			tr := res.Faithfulness
			if tr == nil || len(tr.Statements) != 3 {
				t.Fatalf("trace %+v (%s)", tr, res.Errors[eval.Faithfulness])
			}
			want := []struct {
				class string
				turn  int
			}{{eval.ClassSupported, 0}, {eval.ClassEarlierChunks, 1}, {eval.ClassUser, 1}}
			for i, w := range want {
				if v := tr.Statements[i]; v.Class() != w.class || v.SupportTurn != w.turn {
					t.Errorf("statement %d %q: %s turn %d (%s), want %s turn %d", i+1, v.Statement, v.Class(), v.SupportTurn, v.HistoryReason, w.class, w.turn)
				}
			}
			if tr.ContradictionsChecked {
				t.Error("the offline judge says it looked for contradictions")
			}
			if v, _ := res.Score(eval.Faithfulness); v != tt.score {
				t.Errorf("faithfulness %v, want %v", v, tt.score)
			}
		})
	}
}
