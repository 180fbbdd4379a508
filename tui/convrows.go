package tui

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// A run with conversations draws each as one line (its worst score per
// metric, its first failing turn), its turns indented under it when it is
// expanded: collapsed by default, expanded under a filter. The rows stay
// one per sample (a turn is a sample); only Model.lines groups them, each
// conversation where its first turn stands in the sorted order.

// convs is what the table knows of a run's conversations; nil in a run
// without them.
type convs struct {
	ids   []string // in the order their first turn arrived
	byID  map[string]int
	turns [][]convTurn    // each conversation's samples and turn numbers
	of    map[int]convRef // by sample index
	open  map[int]bool    // the user's fold; absent: collapsed, expanded under a filter
}

type convTurn struct{ index, turn int }

type convRef struct{ conv, turn int }

// noteConversation records that res is a turn of a conversation.
func (m *Model) noteConversation(index int, res *eval.Result) {
	if res == nil || res.ConversationID == "" {
		return
	}
	m.noteTurn(index, res.ConversationID, res.Turn)
}

// noteTurn places sample index as turn of conversation conv.
func (m *Model) noteTurn(index int, conv string, turn int) {
	c := m.convs
	if c == nil {
		c = &convs{byID: map[string]int{}, of: map[int]convRef{}, open: map[int]bool{}}
		m.convs = c
	}
	if _, ok := c.of[index]; ok {
		return
	}
	n, ok := c.byID[conv]
	if !ok {
		n = len(c.ids)
		c.ids = append(c.ids, conv)
		c.byID[conv] = n
		c.turns = append(c.turns, nil)
	}
	c.of[index] = convRef{conv: n, turn: turn}
	t := append(c.turns[n], convTurn{index: index, turn: turn})
	slices.SortStableFunc(t, func(a, b convTurn) int { return a.turn - b.turn })
	c.turns[n] = t
}

// convLine is the line of conversation n in Model.lines: negative, where
// a sample's line is its row's position.
func convLine(n int) int32 { return ^int32(n) }

// lineConv is the conversation of a line, false for a sample's line.
func lineConv(l int32) (int, bool) { return int(^l), l < 0 }

// isOpen reports whether conversation n shows its turns.
func (m *Model) isOpen(n int) bool {
	if o, ok := m.convs.open[n]; ok {
		return o
	}
	return !m.filter.empty()
}

// groupLines is the lines the table draws for the rows shown: each
// conversation's line where its first turn stands, then, expanded, its
// turns shown in turn order.
func (m *Model) groupLines(shown []int32) []int32 {
	c := m.convs
	if c == nil {
		return shown
	}
	in := make([][]int32, len(c.ids))
	for _, p := range shown {
		if ref, ok := c.of[m.rows[p].index]; ok {
			in[ref.conv] = append(in[ref.conv], p)
		}
	}
	out := make([]int32, 0, len(shown))
	for _, p := range shown {
		ref, ok := c.of[m.rows[p].index]
		if !ok {
			out = append(out, p)
			continue
		}
		turns := in[ref.conv]
		if turns == nil {
			continue // placed at its first turn
		}
		in[ref.conv] = nil
		out = append(out, convLine(ref.conv))
		if m.isOpen(ref.conv) {
			slices.SortStableFunc(turns, func(a, b int32) int {
				return c.of[m.rows[a].index].turn - c.of[m.rows[b].index].turn
			})
			out = append(out, turns...)
		}
	}
	return out
}

// cursorRow is the position in m.rows of the sample under the cursor,
// false on a conversation's line or when nothing is shown.
func (m *Model) cursorRow() (int32, bool) {
	if m.cursor < 0 || m.cursor >= len(m.lines) || m.lines[m.cursor] < 0 {
		return 0, false
	}
	return m.lines[m.cursor], true
}

// cursorConv is the conversation of the line under the cursor, its own
// line's or its turn's, and whether the cursor is on its line.
func (m *Model) cursorConv() (n int, own, ok bool) {
	if m.convs == nil || m.cursor < 0 || m.cursor >= len(m.lines) {
		return 0, false, false
	}
	l := m.lines[m.cursor]
	if n, ok := lineConv(l); ok {
		return n, true, true
	}
	ref, ok := m.convs.of[m.rows[l].index]
	return ref.conv, false, ok
}

// fold expands or collapses the conversation under the cursor; collapsing
// from a turn lands on its conversation's line.
func (m *Model) fold(open bool) {
	n, own, ok := m.cursorConv()
	if !ok || (!own && open) {
		return
	}
	m.convs.open[n] = open
	if pos := slices.Index(m.lines, convLine(n)); !own && pos >= 0 {
		m.cursor = pos // from a turn, onto its conversation's line
	}
	m.derive()
}

// convSummary is what a conversation's line shows: a row of the worst
// score of its turns per metric (the highest where lower is better), the
// turns and the first failing turn.
func (m *Model) convSummary(n int) (*row, int, int) {
	turns := m.convs.turns[n]
	s := &row{index: -1, done: true, mark: markOK}
	fillNaN(s.scores[:])
	firstFail := 0
	// The line's mark is its worst turn's: failed, low, running, then warn.
	rank := [...]int{markOK: 0, markWarn: 1, markRunning: 2, markLow: 3, markFailed: 4}
	slots := eval.NumMetrics + len(m.st.crit.names)
	for _, t := range turns {
		p, ok := m.byIndex.get(t.index)
		if !ok {
			continue
		}
		r := m.rows[p]
		if rank[r.mark] > rank[s.mark] {
			s.mark = r.mark
		}
		if (r.mark == markFailed || r.mark == markLow) && firstFail == 0 {
			firstFail = t.turn
			s.diag = r.diag
		}
		for slot := range slots {
			st, ok := r.statusAt(slot)
			if !ok {
				continue
			}
			score, code := s.cell(slot)
			v := r.score(slot)
			if st == eval.StatusOK && !math.IsNaN(v) {
				worse := math.IsNaN(*score) || v < *score
				if slot < eval.NumMetrics && eval.LowerIsBetter(eval.AllMetrics[slot]) {
					worse = math.IsNaN(*score) || v > *score
				}
				if worse {
					*score = v
				}
				*code = statusCodes.code(eval.StatusOK)
			} else if *code == 0 {
				*code = statusCodes.code(st)
			}
		}
	}
	s.done = s.mark != markRunning
	if s.done && firstFail == 0 {
		s.diag = diagCodes.code(report.DiagOK)
	}
	return s, len(turns), firstFail
}

// renderConv draws conversation n's line.
func (m *Model) renderConv(n int, selected bool) string {
	s, turns, firstFail := m.convSummary(n)
	fold := "[+]"
	if m.isOpen(n) {
		fold = "[-]"
	}
	text := fmt.Sprintf("%s %s  %d %s", fold, sanitize.Line(m.convs.ids[n]), turns, plural(turns, "turn", "turns"))
	if firstFail > 0 {
		text += ", fails from turn " + strconv.Itoa(firstFail)
	}
	return m.drawRow(s, selected, "", text, true)
}

// turnText is the indent and number before a turn's question.
func (m *Model) turnText(r *row) string {
	if m.convs == nil {
		return ""
	}
	if ref, ok := m.convs.of[r.index]; ok {
		return fmt.Sprintf("    t%d ", ref.turn)
	}
	return ""
}

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
