package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/prompts"
)

// convJudge is an LLM judge over the fake judge's conversational replies.
func convJudge(t *testing.T) (*fakejudge.Server, *llm.Judge) {
	t.Helper()
	srv := fakejudge.New(fakejudge.Conversational)
	t.Cleanup(srv.Close)
	client, err := endpoint.New(endpoint.Config{BaseURL: srv.BaseURL(), Concurrency: 4, RequestTimeout: 5 * time.Second,
		MaxRetries: 1, BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return srv, llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "judge-model", EmbeddingModel: "embed-model", Lang: eval.LangEN},
		eval.Instrument(client), prompts.Embedded())
}

// taxTurn is the second turn of a conversation: one statement backed by
// its own chunk, one by the chunk of turn 1, one only by what the user
// said, one contradicting the answer of turn 1 and backed by nothing.
func taxTurn() eval.Sample {
	return eval.Sample{
		ID: "tax#2", Conversation: "tax", Turn: 2,
		Question: "Does it change the invoice title?",
		Answer:   "The invoice title stays the same. A converted company keeps its taxpayer ID. The company is small. The registration is not needed.",
		Contexts: []string{"After the conversion the invoice title stays the same."},
		History: []eval.Turn{{Turn: 1, Question: "We think the company is small; it converts to a general VAT taxpayer.",
			Answer: "Then the registration is needed.", Contexts: []string{"A converted company keeps its taxpayer ID under the rules."}}},
	}
}

func TestConversationTurnThroughTheFakeJudge(t *testing.T) {
	wantClass := []string{eval.ClassSupported, eval.ClassEarlierChunks, eval.ClassUser, eval.ClassUnsupported}
	tests := []struct {
		hs    eval.HistorySupport
		score float64
	}{
		{eval.HistoryChunks, 2.0 / 4},
		{eval.HistoryConversation, 3.0 / 4},
		{eval.HistoryNone, 1.0 / 4},
	}
	for _, tt := range tests {
		t.Run(string(tt.hs), func(t *testing.T) {
			srv, j := convJudge(t)
			r := &eval.Runner{Judge: j, Config: eval.RunnerConfig{Metrics: []eval.Metric{eval.Faithfulness}, Workers: 1, HistorySupport: tt.hs}}
			res := r.Run(context.Background(), []eval.Sample{taxTurn()})[0]
			if res.ConversationID != "tax" || res.Turn != 2 || len(res.History) != 1 || res.History[0].Contexts != nil {
				t.Errorf("result places the turn as %q %d with history %+v", res.ConversationID, res.Turn, res.History)
			}
			st := res.Standalone
			if st == nil || st.Status != eval.StatusOK || st.Question != "Does it change the invoice title? (earlier: We think the company is small; it converts to a general VAT taxpayer.)" {
				t.Fatalf("standalone %+v", st)
			}
			// The requests carry the history, and the metrics ran on the
			// standalone question.
			for _, req := range srv.Requests() {
				p := req.Messages[0].Content
				switch req.Task {
				case prompts.TaskConversationStandalone, prompts.TaskFaithfulnessStatements:
					if !strings.Contains(p, `<user n="1">We think the company is small`) || !strings.Contains(p, `<assistant n="1">Then the registration is needed.</assistant>`) {
						t.Errorf("%s request lacks the history:\n%s", req.Task, p)
					}
					if req.Task == prompts.TaskFaithfulnessStatements && !strings.Contains(p, "(earlier: ") {
						t.Errorf("statements were not extracted for the standalone question:\n%s", p)
					}
				case prompts.TaskConversationHistoryVerdict:
					if !strings.Contains(p, `<retrieved n="1">A converted company keeps its taxpayer ID under the rules.</retrieved>`) {
						t.Errorf("the look back does not show turn 1's chunks:\n%s", p)
					}
					if !strings.Contains(p, "<question>Does it change the invoice title?</question>") {
						t.Errorf("the look back does not show the question as the user asked it:\n%s", p)
					}
				}
			}
			if score(t, res, eval.Faithfulness) != tt.score {
				t.Errorf("faithfulness %v, want %v (%s)", score(t, res, eval.Faithfulness), tt.score, res.Errors[eval.Faithfulness])
			}
			tr := res.Faithfulness
			if tr.HistorySupport != tt.hs || !tr.ContradictionsChecked || len(tr.Statements) != 4 {
				t.Fatalf("trace %+v", tr)
			}
			for i, v := range tr.Statements {
				if v.Class() != wantClass[i] {
					t.Errorf("statement %d %q: class %s, want %s", i+1, v.Statement, v.Class(), wantClass[i])
				}
			}
			if v := tr.Statements[1]; v.SupportTurn != 1 || v.Verdict != 1 && tt.hs != eval.HistoryNone {
				t.Errorf("earlier-chunks statement %+v", v)
			}
			if v := tr.Statements[2]; v.SupportTurn != 1 {
				t.Errorf("the user's words of turn 1 back statement 3, not the rewrite of turn 2's question: %+v", v)
			}
			if v := tr.Statements[3]; v.Contradicts != 1 || tr.Statements[0].Contradicts != 0 {
				t.Errorf("contradiction of turn 1 not flagged alone: %+v", tr.Statements)
			}
			ev := eval.Def(eval.Faithfulness).Evidence(res)
			if !strings.Contains(strings.Join(ev, "\n"), "contradicts turn 1") {
				t.Errorf("evidence lacks the contradiction: %q", ev)
			}
		})
	}
}

// The history is part of the request: the same turn with another history
// is another cache key, the same history the same key.
func TestConversationCacheKeysFollowTheHistory(t *testing.T) {
	_, j := convJudge(t)
	a, b, c := taxTurn(), taxTurn(), taxTurn()
	c.Index, b.Index = 1, 2
	b.History = []eval.Turn{{Turn: 1, Question: "Our shop is small; it converts.", Answer: "Then the registration is needed.", Contexts: a.History[0].Contexts}}
	r := &eval.Runner{Judge: j, Config: eval.RunnerConfig{Metrics: []eval.Metric{eval.Faithfulness}, Workers: 1}}
	res := r.Run(context.Background(), []eval.Sample{a, c, b})
	keys := func(res *eval.Result) map[string]string {
		out := map[string]string{}
		for _, call := range res.Calls {
			out[call.Task] = call.Key
		}
		return out
	}
	ka, kc, kb := keys(res[0]), keys(res[1]), keys(res[2])
	for _, task := range []string{prompts.TaskConversationStandalone, prompts.TaskFaithfulnessStatements, prompts.TaskConversationHistoryVerdict} {
		if ka[task] == "" || ka[task] != kc[task] {
			t.Errorf("%s: the same turn and history gave keys %q and %q", task, ka[task], kc[task])
		}
		if ka[task] == kb[task] {
			t.Errorf("%s: another history gave the same key", task)
		}
	}
}

// A first turn has nothing to lean on: no rewrite, no look back, and its
// statements are extracted without a history, as a single turn's are.
func TestConversationFirstTurn(t *testing.T) {
	srv, j := convJudge(t)
	s := eval.Sample{Conversation: "c", Turn: 1, Question: "Is the title kept?", Answer: "The title is kept.", Contexts: []string{"The title is kept."}}
	r := &eval.Runner{Judge: j, Config: eval.RunnerConfig{Metrics: []eval.Metric{eval.Faithfulness}, Workers: 1}}
	res := r.Run(context.Background(), []eval.Sample{s})[0]
	if res.Standalone == nil || res.Standalone.Question != s.Question || res.Standalone.Status != eval.StatusOK {
		t.Errorf("standalone %+v", res.Standalone)
	}
	if srv.Count(prompts.TaskConversationStandalone) != 0 || srv.Count(prompts.TaskConversationHistoryVerdict) != 0 {
		t.Error("a first turn asked the conversation tasks")
	}
	if score(t, res, eval.Faithfulness) != 1 || res.Faithfulness.HistorySupport != "" {
		t.Errorf("first turn trace %+v", res.Faithfulness)
	}
}
