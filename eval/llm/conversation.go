package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/prompts"
)

// The conversation tasks: a turn's question rewritten to stand alone, and
// its statements judged against the earlier turns.

var _ eval.ConversationJudge = (*Judge)(nil)

// history is a sample's earlier turns as the prompts show them.
func history(s *eval.Sample) []prompts.Turn {
	if len(s.History) == 0 {
		return nil
	}
	out := make([]prompts.Turn, len(s.History))
	for i, t := range s.History {
		out[i] = prompts.Turn{N: t.Turn, User: t.Question, Assistant: t.Answer, Chunks: t.Contexts}
	}
	return out
}

// Standalone implements eval.ConversationJudge (conversation_standalone_question).
func (j *Judge) Standalone(ctx context.Context, s *eval.Sample) (string, error) {
	out, _, err := ask(ctx, j, s, prompts.TaskConversationStandalone, prompts.Data{Question: s.Question, History: history(s)}, func(r *questionReply) error {
		if r.Question == nil {
			return errors.New(`missing field "question"`)
		}
		if strings.TrimSpace(*r.Question) == "" {
			return errors.New(`field "question" is empty`)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(*out.Question), nil
}

type historyReply struct {
	Statements []historyItem `json:"statements"`
}

type historyItem struct {
	Statement   string  `json:"statement"`
	Reason      string  `json:"reason"`
	Source      *string `json:"source"`
	Turn        turnNum `json:"turn"`
	Contradicts turnNum `json:"contradicts"`
}

// turnNum is a turn number of a reply: a number, a numeric string, or
// null (none, read as 0). Anything else fails the reply's check.
type turnNum struct {
	n   int
	bad string
}

func (t *turnNum) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case nil:
	case float64:
		if v != float64(int(v)) || v < 0 {
			t.bad = string(data)
		}
		t.n = int(v)
	case string:
		if strings.TrimSpace(v) == "" {
			return nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			t.bad = clip(string(data), 40)
		}
		t.n = n
	default:
		t.bad = clip(string(data), 40)
	}
	return nil
}

func checkHistory(r *historyReply) error {
	if err := checkList("statements", r.Statements, "", nil); err != nil {
		return err
	}
	for i, it := range r.Statements {
		if it.Source == nil {
			return fmt.Errorf(`statements[%d]: missing field "source"`, i)
		}
		switch strings.ToLower(strings.TrimSpace(*it.Source)) {
		case "chunks", "user", "none", "":
		default:
			return fmt.Errorf(`statements[%d]: field "source" is %q, want chunks, user or none`, i, *it.Source)
		}
		for name, t := range map[string]turnNum{"turn": it.Turn, "contradicts": it.Contradicts} {
			if t.bad != "" {
				return fmt.Errorf("statements[%d]: field %q is %s, want a turn number or null", i, name, t.bad)
			}
		}
	}
	return nil
}

// LookBack implements eval.ConversationJudge (conversation_history_verdicts):
// one call for every statement, answered one entry each, re-asked once
// when the count is wrong.
func (j *Judge) LookBack(ctx context.Context, s *eval.Sample, statements []string) ([]eval.HistoryVerdict, bool, error) {
	d := prompts.Data{Question: s.AskedQuestion(), History: history(s), Statements: statements}
	out, err := sendCounted(ctx, j, s, prompts.TaskConversationHistoryVerdict, d, checkHistory, func(r *historyReply) int { return len(r.Statements) })
	if err != nil {
		return nil, false, err
	}
	vs := make([]eval.HistoryVerdict, len(statements))
	for i, it := range out.Statements {
		v := eval.HistoryVerdict{Statement: statements[i], Reason: strings.TrimSpace(it.Reason), Contradicts: it.Contradicts.n}
		switch strings.ToLower(strings.TrimSpace(*it.Source)) {
		case "chunks":
			v.Source, v.Turn = eval.SupportEarlierChunks, it.Turn.n
		case "user":
			v.Source, v.Turn = eval.SupportUser, it.Turn.n
		}
		vs[i] = v
	}
	return vs, true, nil
}
