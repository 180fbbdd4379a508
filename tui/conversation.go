package tui

import (
	"fmt"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// conversationTexts draws the turns before a conversation's turn.
func (m *Model) conversationTexts(p *page, res *eval.Result) {
	if res.ConversationID == "" {
		return
	}
	st := m.st
	p.heading(fmt.Sprintf("Conversation %s, turn %d", sanitize.Line(res.ConversationID), res.Turn))
	if len(res.History) == 0 {
		p.text(2, "", "the first turn: nothing before it", &st.muted)
	}
	for _, t := range res.History {
		p.text(2, fmt.Sprintf("%d user: ", t.Turn), t.Question, &st.muted)
		p.text(2, fmt.Sprintf("%d assistant: ", t.Turn), t.Answer, &st.muted)
	}
	p.blank()
}

// standaloneText draws the question the metrics judged the turn by, or
// why there is none.
func (m *Model) standaloneText(p *page, res *eval.Result) {
	s := res.Standalone
	if s == nil || len(res.History) == 0 {
		return
	}
	p.blank()
	p.heading("Standalone question")
	if s.Status == eval.StatusOK {
		p.text(2, "", s.Question, nil)
		return
	}
	style := m.st.muted
	if s.Status.Failed() {
		style = m.st.failed
	}
	p.text(2, "", string(s.Status)+": "+s.Reason, &style)
}

// lookBackLines draws the statements backed only by earlier turns and
// those contradicting an earlier answer.
func (m *Model) lookBackLines(p *page, t *eval.FaithfulnessTrace) {
	if t == nil || t.HistorySupport == "" {
		return
	}
	st := m.st
	shown := false
	head := func() {
		if !shown {
			p.text(2, "", fmt.Sprintf("looking back over the conversation (--history-support %s):", t.HistorySupport), &st.bold)
			shown = true
		}
	}
	for i, v := range t.Statements {
		if v.Support != "" {
			head()
			what := fmt.Sprintf("backed only by the chunks retrieved in turn %d", v.SupportTurn)
			if v.Support == eval.SupportUser {
				what = fmt.Sprintf("backed only by what the user said in turn %d", v.SupportTurn)
			}
			counted := "not counted"
			if v.Verdict == 1 {
				counted = "counted as supported"
			}
			p.text(4, fmt.Sprintf("statement %d: ", i+1), what+", "+counted+"; "+v.HistoryReason, &st.warn)
		}
		if v.Contradicts > 0 {
			head()
			p.text(4, fmt.Sprintf("statement %d: ", i+1), fmt.Sprintf("contradicts the answer of turn %d; %s", v.Contradicts, v.HistoryReason), &st.failed)
		}
	}
	if !t.ContradictionsChecked {
		head()
		p.text(4, "", "contradictions with earlier answers not looked for (this judge cannot tell them)", &st.muted)
	}
}
