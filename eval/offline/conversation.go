package offline

import (
	"context"
	"errors"
	"fmt"

	"github.com/ragscope/ragscope/eval"
)

var _ eval.ConversationJudge = (*Judge)(nil)

// ErrNoStandalone is why the offline judge has no standalone question.
var ErrNoStandalone = errors.New("the offline judge cannot rewrite a question from the conversation's history (that takes reading, not matching words)")

// Standalone implements eval.ConversationJudge: always unsupported.
func (j *Judge) Standalone(ctx context.Context, s *eval.Sample) (string, error) {
	return "", &eval.StepError{Status: eval.StatusUnsupported, Err: ErrNoStandalone}
}

// LookBack implements eval.ConversationJudge with the support test: each
// statement against the earlier turns' chunks, latest first, then what the
// user said. It cannot tell a contradiction, so it reports none checked.
func (j *Judge) LookBack(ctx context.Context, s *eval.Sample, statements []string) ([]eval.HistoryVerdict, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	type source struct {
		kind, what string
		turn       int
		sents      []*span
	}
	var sources []source
	for i := len(s.History) - 1; i >= 0; i-- {
		t := s.History[i]
		if len(t.Contexts) == 0 {
			continue
		}
		sources = append(sources, source{eval.SupportEarlierChunks, fmt.Sprintf("the chunks retrieved in turn %d", t.Turn), t.Turn, j.contextSentences(j.readAll(t.Contexts))})
	}
	user := func(turn int, text string) {
		sources = append(sources, source{eval.SupportUser, fmt.Sprintf("what the user said in turn %d", turn), turn, j.contextSentences([]string{j.read(text)})})
	}
	user(s.Turn, s.AskedQuestion())
	for i := len(s.History) - 1; i >= 0; i-- {
		user(s.History[i].Turn, s.History[i].Question)
	}
	q := analyze(j.read(s.Question))
	out := make([]eval.HistoryVerdict, len(statements))
	for i, st := range statements {
		out[i] = eval.HistoryVerdict{Statement: st, Reason: "nothing earlier in the conversation states it"}
		for _, src := range sources {
			ev := verdict(j.read(st), s.Question, q, src.sents, "", "")
			if ev.Verdict != 1 {
				continue
			}
			out[i].Source, out[i].Turn = src.kind, src.turn
			out[i].Reason = src.what + ": " + ev.Reason
			break
		}
	}
	return out, false, nil
}
