package offline

import (
	"context"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// The offline judge cites the sentence that decided each verdict, with
// the rank of its chunk; the run's quote check finds every one of them.
func TestOfflineEvidence(t *testing.T) {
	s := eval.Sample{
		ID:       "tax",
		Question: "小规模纳税人转为一般纳税人后，纳税人识别号会变吗？",
		Answer:   "会的，纳税人识别号会变更。一般纳税人可以抵扣进项税额。企业需要每年提交年报。",
		Contexts: []string{
			"一般纳税人资格生效后，企业可以抵扣进项税额。",
			"小规模纳税人登记为一般纳税人后，纳税人识别号保持不变，无需重新办理税务登记。",
		},
		Reference: "纳税人识别号保持不变。",
	}
	r := &eval.Runner{Judge: New(), Config: eval.RunnerConfig{Metrics: []eval.Metric{eval.Faithfulness, eval.ContextRecall}, Workers: 1}}
	res := r.Run(context.Background(), []eval.Sample{s})[0]
	// The opening "会的" affirms the question's proposition, a statement of
	// its own (refuted as the answer's own first claim is); the rest follow.
	st := res.Faithfulness.Statements
	if len(st) != 4 || st[0].Statement != "是的，小规模纳税人转为一般纳税人后，纳税人识别号会变" {
		t.Fatalf("statements %+v", st)
	}
	if ev := st[0].Evidence; st[0].Verdict != 0 || ev == nil || ev.Chunk != 2 {
		t.Errorf("the affirmed proposition: %d %+v", st[0].Verdict, ev)
	}
	st = st[1:]
	// Refuted by chunk 2: the negated clause is the quote.
	if ev := st[0].Evidence; st[0].Verdict != 0 || ev == nil || ev.Chunk != 2 || ev.Quote != "纳税人识别号保持不变" || ev.QuoteNotFound {
		t.Errorf("the refuted statement: %d %+v", st[0].Verdict, ev)
	}
	if ev := st[1].Evidence; st[1].Verdict != 1 || ev == nil || ev.Chunk != 1 || ev.Quote != "一般纳税人资格生效后，企业可以抵扣进项税额。" || ev.QuoteNotFound {
		t.Errorf("the supported statement: %d %+v", st[1].Verdict, ev)
	}
	// Unsupported: the closest sentence is still cited, so the page shows
	// what the statement was compared with.
	if ev := st[2].Evidence; st[2].Verdict != 0 || ev == nil || ev.Chunk == 0 || ev.Quote == "" || ev.QuoteNotFound {
		t.Errorf("the unsupported statement: %d %+v", st[2].Verdict, ev)
	}
	cl := res.ContextRecall.Classifications
	if len(cl) != 1 || cl[0].Evidence == nil || cl[0].Evidence.Chunk != 2 || cl[0].Evidence.QuoteNotFound {
		t.Errorf("recall: %+v", cl)
	}

	// No context sentence to compare with: no chunk cited.
	v, err := New().Verdicts(context.Background(), &eval.Sample{Contexts: []string{"。"}}, []string{"随便一句话"})
	if err != nil || v[0].Evidence == nil || *v[0].Evidence != (eval.Citation{}) {
		t.Errorf("no sentences: %+v, %v", v, err)
	}
}
