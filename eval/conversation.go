package eval

import (
	"cmp"
	"context"
	"fmt"
)

// A conversation is judged turn by turn: each assistant turn is a sample
// carrying the turns before it (History). Its question is first rewritten
// to stand alone (a follow-up like "那发票抬头呢？" has no subject), the
// metrics run on that and the turn's own chunks, and faithfulness then
// looks back at what the earlier turns support or contradict.

// Turn is one earlier turn of a conversation as the judge sees it: the
// question, the answer and the chunks retrieved for it.
type Turn struct {
	Turn     int      `json:"turn"`
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Contexts []string `json:"contexts,omitempty"`
}

// AskedQuestion is the question as the user asked it.
func (s *Sample) AskedQuestion() string {
	return cmp.Or(s.Asked, s.Question)
}

// IsConversation reports whether the sample is a turn of a conversation.
func (s *Sample) IsConversation() bool { return s.Conversation != "" && s.Turn > 0 }

// HistorySupport says which support found earlier in a conversation counts
// as support for faithfulness (--history-support).
type HistorySupport string

const (
	// HistoryChunks counts what an earlier turn's retrieved chunks
	// support; what the user said does not count: a user's claim is not a
	// source. The default.
	HistoryChunks HistorySupport = "chunks"
	// HistoryConversation also counts what the user said.
	HistoryConversation HistorySupport = "conversation"
	// HistoryNone counts only the turn's own chunks.
	HistoryNone HistorySupport = "none"
)

// Where a statement found support earlier (StatementVerdict.Support).
const (
	// SupportEarlierChunks: an earlier turn's retrieved chunks support it.
	SupportEarlierChunks = "earlier_chunks"
	// SupportUser: what the user said in the conversation supports it.
	SupportUser = "user"
)

// Counts reports whether the policy counts support of the kind as support.
func (h HistorySupport) Counts(kind string) bool {
	switch kind {
	case SupportEarlierChunks:
		return h == HistoryChunks || h == HistoryConversation || h == ""
	case SupportUser:
		return h == HistoryConversation
	}
	return false
}

// HistoryVerdict is the judge's look back at one statement of a turn's
// answer: whether something earlier in the conversation supports it (Source
// SupportEarlierChunks or SupportUser, at Turn) and whether it contradicts
// an earlier answer (Contradicts, the turn; 0 for none).
type HistoryVerdict struct {
	Statement   string `json:"statement"`
	Source      string `json:"source,omitempty"`
	Turn        int    `json:"turn,omitempty"`
	Reason      string `json:"reason"`
	Contradicts int    `json:"contradicts,omitempty"`
}

// ConversationJudge is implemented by judges that can read a
// conversation's history; without it the standalone question is
// unsupported and only the turn's own chunks count.
type ConversationJudge interface {
	// Standalone rewrites the sample's question as a question that can be
	// understood without the history (conversation_standalone_question).
	Standalone(ctx context.Context, s *Sample) (string, error)
	// LookBack judges each statement against the sample's history
	// (conversation_history_verdicts): one verdict per statement, in order.
	// checked reports whether contradictions were looked for (the offline
	// judge cannot tell them).
	LookBack(ctx context.Context, s *Sample, statements []string) (verdicts []HistoryVerdict, contradictionsChecked bool, err error)
}

// StandaloneTrace is a turn's question rewritten to stand alone, which
// the metrics ran on, or why there is none (they then ran on the asked one).
type StandaloneTrace struct {
	Question string `json:"question,omitempty"`
	Status   Status `json:"status"`
	Reason   string `json:"reason,omitempty"`
}

// standaloneUnsupported is why a judge without ConversationJudge has none.
const standaloneUnsupported = "this judge cannot rewrite a question from the conversation's history; the metrics ran on the question as asked"

// lookBack judges a turn's statements against the earlier turns: a
// statement its own chunks do not back gets the class of what backs it
// earlier, counted as support when hs says so, and any statement may be
// flagged as contradicting an earlier answer.
func lookBack(ctx context.Context, j Judge, s *Sample, hs HistorySupport, tr *FaithfulnessTrace) error {
	hs = cmp.Or(hs, HistoryChunks)
	tr.HistorySupport = hs
	cj, ok := j.(ConversationJudge)
	if !ok {
		return nil
	}
	stmts := make([]string, len(tr.Statements))
	for i, v := range tr.Statements {
		stmts[i] = v.Statement
	}
	hv, checked, err := cj.LookBack(ctx, s, stmts)
	if err != nil {
		return err
	}
	if len(hv) != len(stmts) {
		return NewStepError(StatusParseError, "the judge looked back at %d statements of %d", len(hv), len(stmts))
	}
	tr.ContradictionsChecked = checked
	last := len(s.History) // the earlier turns are 1..last; the user's words may be this turn's too
	for i := range tr.Statements {
		v, h := &tr.Statements[i], hv[i]
		v.HistoryReason = h.Reason
		if h.Contradicts >= 1 && h.Contradicts <= last {
			v.Contradicts = h.Contradicts
		}
		if v.Verdict == 1 {
			continue
		}
		switch {
		case h.Source == SupportEarlierChunks && h.Turn >= 1 && h.Turn <= last,
			h.Source == SupportUser && h.Turn >= 1 && h.Turn <= last+1:
			v.Support, v.SupportTurn = h.Source, h.Turn
			if hs.Counts(h.Source) {
				v.Verdict = 1
			}
		}
	}
	return nil
}

// contradictionLines are the evidence of statements contradicting earlier answers.
func contradictionLines(vs []StatementVerdict) []string {
	return lines(vs, func(v StatementVerdict) bool { return v.Contradicts > 0 }, func(v StatementVerdict) string {
		return fmt.Sprintf("contradicts turn %d: %q: %s", v.Contradicts, v.Statement, v.HistoryReason)
	})
}
