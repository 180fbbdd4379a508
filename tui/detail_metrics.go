package tui

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// factualSection lists the answer's claims (TP or FP) and the reference's
// (FN when the answer does not entail it), then the mode's formulas.
func (m *Model) factualSection(p *page, res *eval.Result) {
	t := res.FactualCorrectness
	st := m.st
	if t == nil {
		return
	}
	p.text(2, "", t.ModeLine(), &st.muted)

	holds := func(c eval.StatementVerdict) bool { return c.Verdict == 1 }
	tp := count(t.AnswerClaims, holds)
	fp := len(t.AnswerClaims) - tp
	p.text(2, "", fmt.Sprintf("answer claims checked against the reference: %d TP, %d FP", tp, fp), &st.accent)
	m.claimLines(p, factualItems(t, false), "TP ", "FP ")
	fn := len(t.ReferenceClaims) - count(t.ReferenceClaims, holds)
	if t.Mode == eval.FCModePrecision && len(t.ReferenceClaims) == 0 {
		p.text(2, "", "reference claims: not checked in precision mode", &st.muted)
	} else {
		p.text(2, "", fmt.Sprintf("reference claims checked against the answer: %d in the answer, %d FN", len(t.ReferenceClaims)-fn, fn), &st.accent)
		m.claimLines(p, factualItems(t, true), "ok ", "FN ")
	}
	if res.Status[eval.FactualCorrectness] != eval.StatusOK {
		p.text(2, "", fmt.Sprintf("%d answer claims, %d reference claims", len(t.AnswerClaims), len(t.ReferenceClaims)), &st.muted)
	}
	m.formulaLines(p, res, eval.FactualCorrectness, &st.bold)
}

// count is how many of vs f holds for.
func count[T any](vs []T, f func(T) bool) int {
	n := 0
	for _, v := range vs {
		n += b2i(f(v))
	}
	return n
}

// b2i is a verdict: 1 for true.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ratio is a/b, 0 when b is 0 (a count the mode does not divide by).
func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// claimLines draws judged texts with their mark, class and reason.
func (m *Model) claimLines(p *page, claims []judged, yes, no string) {
	if len(claims) == 0 {
		p.text(4, "", "none", &m.st.muted)
	}
	for _, c := range claims {
		m.verdictLine(p, 2, "  ", c.verdict, yes, no, c.text)
		p.note(6+len(yes), "", c.reason)
	}
}

// maxContextEntities is how many of the contexts' entities the page lists
// before "and N more".
const maxContextEntities = 60

// entitySection lists the reference's entities, found or missing, then
// the contexts', then the formula.
func (m *Model) entitySection(p *page, res *eval.Result) {
	t := res.ContextEntityRecall
	st := m.st
	if t == nil {
		return
	}
	found := count(t.Reference, func(e eval.EntityMatch) bool { return e.Found })
	p.text(2, "", fmt.Sprintf("reference entities: %d found in the contexts, %d missing", found, len(t.Reference)-found), &st.accent)
	m.claimLines(p, mapped(t.Reference, func(e eval.EntityMatch) judged {
		s := sanitize.Line(e.Entity)
		if e.Found && e.Match != "" && e.Match != e.Entity { // matched on a normalised form
			s += "  (as \"" + sanitize.Line(e.Match) + "\")"
		}
		return judged{text: s, verdict: b2i(e.Found)}
	}), "found   ", "missing ")
	p.text(2, "", fmt.Sprintf("context entities (%d)", len(t.Contexts)), &st.accent)
	if len(t.Contexts) == 0 {
		p.text(4, "", "none", &st.muted)
	} else {
		shown := t.Contexts[:min(len(t.Contexts), maxContextEntities)]
		s := strings.Join(mapped(shown, sanitize.Line), "; ")
		if n := len(t.Contexts) - len(shown); n > 0 {
			s += fmt.Sprintf(" %s and %d more", m.g.ellipsis, n)
		}
		p.text(4, "", s, nil)
	}
	m.formulaLines(p, res, eval.ContextEntityRecall, &st.bold)
}

// noiseSection shows the noise matrix (a row per answer statement, a
// column per chunk), or a list when too narrow; then the reference's
// statements with the chunks that entail them, then the formula.
func (m *Model) noiseSection(p *page, res *eval.Result) {
	t := res.NoiseSensitivity
	st := m.st
	if t == nil {
		return
	}
	mode := cmp.Or(t.Mode, eval.NSModeRelevant)
	explain := "incorrect (not in the reference) and backed by a relevant chunk"
	if mode == eval.NSModeIrrelevant {
		explain = "incorrect (not in the reference) and backed only by irrelevant chunks"
	}
	p.text(2, "", "mode "+sanitize.Line(mode)+": an answer statement counts when it is "+explain, &st.muted)
	p.text(2, "", fmt.Sprintf("answer statements by chunk (%d statements, %d chunks)", len(t.Statements), len(t.Chunks)), &st.accent)
	if len(t.Statements) == 0 {
		p.text(4, "", "none", &st.muted)
	} else if !m.noiseMatrix(p, t, mode) {
		m.noiseList(p, t, mode)
	}

	p.text(2, "", fmt.Sprintf("reference statements (%d): the chunks that entail them make those chunks relevant", len(t.ReferenceStatements)), &st.accent)
	if len(t.ReferenceStatements) == 0 {
		p.text(4, "", "none", &st.muted)
	}
	for i, s := range t.ReferenceStatements {
		where, _ := t.Entailing(i)
		p.text(4, fmt.Sprintf("%d ", i+1), s+"  "+m.g.arrow+" "+where, nil)
	}

	if res.Status[eval.NoiseSensitivity] != eval.StatusOK || len(t.Statements) == 0 {
		p.text(2, "", fmt.Sprintf("%d answer statements, %d reference statements", len(t.Statements), len(t.ReferenceStatements)), &st.muted)
	}
	m.formulaLines(p, res, eval.NoiseSensitivity, &st.muted)
}

// noiseCounted reports whether a statement counts against the score in mode.
func noiseCounted(s eval.NoiseStatement, mode string) bool {
	mode = cmp.Or(mode, eval.DefaultNSMode)
	return s.Noise != "" && s.Noise == mode
}

// noiseMatrix draws the matrix when the page is wide enough, and reports
// whether it did.
func (m *Model) noiseMatrix(p *page, t *eval.NoiseSensitivityTrace, mode string) bool {
	st, g := m.st, m.g
	const (
		indent   = 4
		correctW = 9  // "correct  "
		noiseW   = 10 // "irrelevant"
		minText  = 24
	)
	numW := len(strconv.Itoa(len(t.Statements))) + 1
	cellW := widest(t.Chunks, 4, func(c eval.NoiseChunk) int { return len(strconv.Itoa(c.Rank)) + 3 }) // "#1  "
	textW := p.w - indent - numW - len(t.Chunks)*cellW - correctW - noiseW - 1
	if textW < minText {
		return false
	}
	longest := minText
	for _, s := range t.Statements {
		for _, l := range wrap(s.Statement, textW) {
			longest = max(longest, lipgloss.Width(l))
		}
	}
	textW = min(textW, longest) // the marks stay next to the text
	pad := strings.Repeat(" ", indent)
	lead := pad + strings.Repeat(" ", numW+textW+1)
	var ranks, kinds strings.Builder
	for _, c := range t.Chunks {
		ranks.WriteString(fit(fmt.Sprintf("#%d", c.Rank), cellW, ""))
		kind := "irr"
		if c.Relevant {
			kind = "rel"
		}
		kinds.WriteString(fit(kind, cellW, ""))
	}
	p.lines = append(p.lines, st.muted.Render(lead+ranks.String()),
		st.muted.Render(lead+kinds.String()+fit("correct", correctW, "")+"noise"))
	for i, s := range t.Statements {
		counted := noiseCounted(s, mode)
		text := wrap(s.Statement, textW)
		var cells strings.Builder
		for _, c := range t.Chunks {
			mark := st.muted.Render(".")
			if i < len(c.Answer) && c.Answer[i].Verdict == 1 {
				mark = st.high.Render(g.ok)
			}
			cells.WriteString(mark + strings.Repeat(" ", cellW-1))
		}
		cells.WriteString(m.verdictMark(b2i(s.Correct)) + strings.Repeat(" ", correctW-2))
		noise := st.muted.Render("-")
		switch {
		case counted:
			noise = st.emph.Render(truncate(sanitize.Line(s.Noise), noiseW, g.ellipsis))
		case s.Noise != "":
			noise = st.warn.Render(truncate(sanitize.Line(s.Noise), noiseW, g.ellipsis))
		}
		cells.WriteString(noise)
		for j, l := range text {
			l = paint(!counted, fit(l, textW, ""), st.emph.Render)
			if j == 0 {
				p.lines = append(p.lines, pad+padLeft(strconv.Itoa(i+1), numW-1)+" "+l+" "+cells.String())
			} else {
				p.lines = append(p.lines, pad+strings.Repeat(" ", numW)+l)
			}
		}
	}
	return true
}

// noiseList is the matrix as a list, for a narrow page.
func (m *Model) noiseList(p *page, t *eval.NoiseSensitivityTrace, mode string) {
	st, g := m.st, m.g
	for _, s := range t.Statements {
		counted := noiseCounted(s, mode)
		m.verdictLine(p, 2, "  ", b2i(s.Correct), "", "", s.Statement)
		line := t.Backing(s)
		style := &st.muted
		if s.Noise != "" {
			line += "; noise: " + sanitize.Line(s.Noise)
		}
		if counted {
			style = &st.emph
		}
		p.text(6, g.arrow+" ", line, style)
	}
}
