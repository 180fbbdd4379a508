package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
)

// Answer correctness end to end through the LLM judge: both statement
// lists from faithfulness_statements (the reference as the text), one
// classification call that shows both lists, the RAGAS vector's F1 and the
// weighted mean with the similarity of the embeddings.
func TestAnswerCorrectnessFormula(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply string
		st    eval.Status
	}{
		{"ragas vector", `{"TP": [{"statement": "A1", "reason": "r"}, {"statement": "A2", "reason": "r"}, {"statement": "A3", "reason": "r"}],` +
			` "FP": [{"statement": "A4", "reason": "not in the reference"}], "FN": [{"statement": "R4", "reason": "missing"}, {"statement": "R5", "reason": "missing"}]}`, eval.StatusOK},
		{"a list missing", `{"TP": [], "FP": []}`, eval.StatusParseError},
		// Four answer statements were sent: a classification that leaves one
		// out, or counts one twice, would give a score the definition cannot.
		{"an answer statement left out", `{"TP": [{"statement": "A1", "reason": "r"}], "FP": [{"statement": "A4", "reason": "r"}], "FN": []}`, eval.StatusParseError},
		{"an answer statement twice", `{"TP": [{"statement": "A1", "reason": "r"}, {"statement": "A1", "reason": "r"}, {"statement": "A2", "reason": "r"}, {"statement": "A3", "reason": "r"}, {"statement": "A4", "reason": "r"}], "FP": [], "FN": []}`, eval.StatusParseError},
		{"one statement in TP and FP, another in neither", `{"TP": [{"statement": "A1", "reason": "r"}, {"statement": "A2", "reason": "r"}, {"statement": "A3", "reason": "r"}], "FP": [{"statement": "A1", "reason": "r"}], "FN": []}`, eval.StatusParseError},
		{"more missing than the reference has", `{"TP": [{"statement": "A1", "reason": "r"}, {"statement": "A2", "reason": "r"}, {"statement": "A3", "reason": "r"}], "FP": [{"statement": "A4", "reason": "r"}],` +
			` "FN": [{"statement": "R1", "reason": "r"}, {"statement": "R2", "reason": "r"}, {"statement": "R3", "reason": "r"}, {"statement": "R4", "reason": "r"}, {"statement": "R5", "reason": "r"}, {"statement": "R6", "reason": "r"}]}`, eval.StatusParseError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrain()
			answer, reference := "ANSWER-AC text", "REFERENCE-AC text"
			b.statements[answer] = []string{"A1", "A2", "A3", "A4"}
			b.statements[reference] = []string{"R1", "R2", "R3", "R4", "R5"}
			var prompt string
			b.override = func(r *fakejudge.Request, _ int) (fakejudge.Reply, bool) {
				if r.Task != "answer_correctness_classifications" {
					return fakejudge.Reply{}, false
				}
				prompt = r.Messages[0].Content
				return fakejudge.Reply{Choices: []string{tc.reply}}, true
			}
			st := newStack(t, b, stackOpt{maxRetries: -1})
			res := st.run(t, context.Background(), []eval.Metric{eval.AnswerSimilarity, eval.AnswerCorrectness},
				eval.Sample{Question: "q?", Answer: answer, Reference: reference})[0]
			if got := res.Status[eval.AnswerCorrectness]; got != tc.st {
				t.Fatalf("status %s (%s), want %s", got, res.Errors[eval.AnswerCorrectness], tc.st)
			}
			b.mu.Lock()
			n := b.calls["faithfulness_statements"]
			b.mu.Unlock()
			if n != 2 {
				t.Errorf("%d statement calls, want 2 (answer, reference)", n)
			}
			for _, want := range []string{`<statement n="4">A4</statement>`, `<fact n="5">R5</fact>`} {
				if !strings.Contains(prompt, want) {
					t.Errorf("the classification prompt lacks %s", want)
				}
			}
			if tc.st != eval.StatusOK {
				return
			}
			tr := res.AnswerCorrectness
			sim := score(t, res, eval.AnswerSimilarity)
			if tr.Similarity == nil || !near(*tr.Similarity, sim) {
				t.Errorf("correctness similarity %v, answer_similarity %v", tr.Similarity, sim)
			}
			if !near(tr.FScore, 2.0/3) || !near(score(t, res, eval.AnswerCorrectness), 0.75*2.0/3+0.25*sim) {
				t.Errorf("F1 %v, score %v (similarity %v)", tr.FScore, score(t, res, eval.AnswerCorrectness), sim)
			}
			if tr.Classes.FP[0].Reason != "not in the reference" || len(tr.ReferenceStatements) != 5 {
				t.Errorf("trace %+v", tr)
			}
		})
	}
}
