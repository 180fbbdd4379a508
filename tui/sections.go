package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// metricSection is how the detail page shows one metric: its section, and
// what the judge decided differently between two results (it returns how
// many it drew). Adding a metric is its entry here.
type metricSection struct {
	render  func(m *Model, p *page, res *eval.Result)
	changes func(m *Model, p *page, before, after *eval.Result) int
	cited   func(*eval.Result) []judged // the statements citing evidence, labelled under task
	task    string
}

var metricSections = map[eval.Metric]metricSection{
	eval.Faithfulness: citing(eval.LabelFaithfulness, faithItems, judgedSection((*Model).faithfulnessSection,
		judgedList{faithItems, "supported", "not supported"})),
	eval.AnswerRelevancy: {
		render: (*Model).relevancySection,
		changes: func(m *Model, p *page, before, after *eval.Result) int {
			return m.questionChanges(p, before.AnswerRelevancy, after.AnswerRelevancy)
		},
	},
	eval.ContextPrecision: chunkSection(eval.ContextPrecision, func(r *eval.Result) *eval.ContextPrecisionTrace { return r.ContextPrecision },
		eval.LabelContextPrecision, ""),
	eval.ContextRecall: citing(eval.LabelContextRecall, recallItems, judgedSection((*Model).recallSection,
		judgedList{recallItems, "attributed", "not attributed"})),
	eval.ContextUtilization: chunkSection(eval.ContextUtilization, func(r *eval.Result) *eval.ContextPrecisionTrace { return r.ContextUtilization },
		eval.LabelContextUtilization, " for the answer"),
	eval.AnswerSimilarity: judgedSection(func(m *Model, p *page, res *eval.Result) {
		m.formulaLines(p, res, eval.AnswerSimilarity, &m.st.bold)
	}),
	eval.AnswerCorrectness: judgedSection((*Model).correctnessSection,
		judgedList{func(r *eval.Result) []judged { return correctnessItems(r.AnswerCorrectness, false) }, "TP", "FP"},
		judgedList{func(r *eval.Result) []judged { return correctnessItems(r.AnswerCorrectness, true) }, "covered", "FN"}),
	eval.FactualCorrectness: judgedSection((*Model).factualSection,
		judgedList{func(r *eval.Result) []judged { return factualItems(r.FactualCorrectness, false) }, "TP", "FP"},
		judgedList{func(r *eval.Result) []judged { return factualItems(r.FactualCorrectness, true) }, "in the answer", "FN"}),
	eval.ContextEntityRecall: judgedSection((*Model).entitySection,
		judgedList{entityItems, "found", "missing"}),
	eval.NoiseSensitivity: judgedSection((*Model).noiseSection,
		judgedList{noiseItems, "not noise", "noise"}),
}

// sectionTitle is the heading of the i-th column's section.
func (m *Model) sectionTitle(i int, mt eval.Metric) string {
	if m.isCriterion(mt) {
		return "criterion " + sanitize.Line(string(mt))
	}
	return fmt.Sprintf("%d %s", i+1, mt)
}

// judgedList reads a trace's judged statements, with its verdicts' words.
type judgedList struct {
	items   func(*eval.Result) []judged
	yes, no string
}

// judgedSection is the section of a metric whose judgements are lists of
// statements, compared statement by statement.
func judgedSection(render func(*Model, *page, *eval.Result), lists ...judgedList) metricSection {
	return metricSection{
		render: render,
		changes: func(m *Model, p *page, before, after *eval.Result) int {
			n := 0
			for _, l := range lists {
				n += m.statementChanges(p, l.items(before), l.items(after), l.yes, l.no)
			}
			return n
		},
	}
}

// citing is a section whose statements cite evidence.
func citing(task string, items func(*eval.Result) []judged, s metricSection) metricSection {
	s.cited, s.task = items, task
	return s
}

// chunkSection is the section of a metric with a verdict per chunk.
func chunkSection(mt eval.Metric, trace func(*eval.Result) *eval.ContextPrecisionTrace, task, what string) metricSection {
	return metricSection{
		render: func(m *Model, p *page, res *eval.Result) {
			m.precisionSection(p, trace(res), task, what)
			m.formulaLines(p, res, mt, &m.st.bold)
		},
		changes: func(m *Model, p *page, before, after *eval.Result) int {
			return m.chunkChanges(p, trace(before), trace(after))
		},
	}
}

// The detail page of a compared sample shows each score as before -> after
// and, above the current trace, every judgement that changed.

// scoreText is a metric's score, or its status when it has none.
func scoreText(r *eval.Result, mt eval.Metric) string {
	if v, ok := scored(r, mt); ok {
		return fmt.Sprintf("%.3f", v)
	}
	if st, ok := r.Status[mt]; ok {
		return sanitize.Line(string(st))
	}
	return "-"
}

// correctnessItems are answer correctness's answer statements (1 TP, 0 FP)
// or, with reference, the reference's (0 FN, 1 covered).
func correctnessItems(t *eval.AnswerCorrectnessTrace, reference bool) []judged {
	if t == nil {
		return nil
	}
	find := func(items []eval.CorrectnessItem, st string) (string, bool) {
		i := slices.IndexFunc(items, func(it eval.CorrectnessItem) bool { return it.Statement == st })
		if i < 0 {
			return "", false
		}
		return items[i].Reason, true
	}
	if reference {
		return mapped(t.ReferenceStatements, func(st string) judged {
			if r, ok := find(t.Classes.FN, st); ok {
				return judged{text: st, verdict: 0, reason: r}
			}
			return judged{text: st, verdict: 1}
		})
	}
	return mapped(t.AnswerStatements, func(st string) judged {
		if r, ok := find(t.Classes.TP, st); ok {
			return judged{text: st, verdict: 1, reason: r}
		}
		r, _ := find(t.Classes.FP, st)
		return judged{text: st, verdict: 0, reason: r}
	})
}

// factualItems are factual correctness's answer claims (1 a TP, 0 an FP)
// or, with reference, the reference's claims (0 an FN).
func factualItems(t *eval.FactualCorrectnessTrace, reference bool) []judged {
	if t == nil {
		return nil
	}
	claims := t.AnswerClaims
	if reference {
		claims = t.ReferenceClaims
	}
	return mapped(claims, func(c eval.StatementVerdict) judged {
		return judged{text: c.Statement, verdict: c.Verdict, reason: c.Reason}
	})
}

// entityItems are the reference's entities, 1 when found in the contexts.
func entityItems(r *eval.Result) []judged {
	t := r.ContextEntityRecall
	if t == nil {
		return nil
	}
	return mapped(t.Reference, func(e eval.EntityMatch) judged {
		if e.Found {
			return judged{text: e.Entity, verdict: 1, reason: "found as \"" + e.Match + "\""}
		}
		return judged{text: e.Entity, reason: "not among the contexts' entities"}
	})
}

// noiseItems are noise sensitivity's answer statements, 0 for those that
// count against the score.
func noiseItems(r *eval.Result) []judged {
	t := r.NoiseSensitivity
	if t == nil {
		return nil
	}
	return mapped(t.Statements, func(s eval.NoiseStatement) judged {
		v := 1 - b2i(noiseCounted(s, t.Mode))
		ranks := slices.Concat(s.Relevant, s.Irrelevant)
		slices.Sort(ranks)
		by := mapped(ranks, func(k int) string { return fmt.Sprintf("#%d", k) })
		reason := "correct (the reference entails it)"
		if !s.Correct {
			reason = "not in the reference"
		}
		if len(by) > 0 {
			reason += "; backed by " + strings.Join(by, ", ")
		}
		if s.Noise != "" {
			reason += "; noise: " + s.Noise
		}
		return judged{text: s.Statement, verdict: v, reason: reason}
	})
}

// judged is a statement with its verdict, the judge's reason and evidence.
type judged struct {
	text     string
	verdict  int
	reason   string
	evidence *eval.Citation
}

// faithItems are faithfulness's statements, with their evidence.
func faithItems(r *eval.Result) []judged {
	t := r.Faithfulness
	if t == nil {
		return nil
	}
	return mapped(t.Statements, func(s eval.StatementVerdict) judged { return judged{s.Statement, s.Verdict, s.Reason, s.Evidence} })
}

// recallItems are context recall's reference statements.
func recallItems(r *eval.Result) []judged {
	t := r.ContextRecall
	if t == nil {
		return nil
	}
	return mapped(t.Classifications, func(c eval.Classification) judged { return judged{c.Statement, c.Attributed, c.Reason, c.Evidence} })
}

// statementChanges matches statements by their text: a changed prompt may
// split the answer differently.
func (m *Model) statementChanges(p *page, before, after []judged, yes, no string) int {
	st := m.st
	word := func(v int) string { return verdictWord(v, yes, no) }
	old := map[string]judged{}
	for _, b := range before {
		old[strings.TrimSpace(b.text)] = b
	}
	seen := map[string]bool{}
	n := 0
	for _, a := range after {
		k := strings.TrimSpace(a.text)
		seen[k] = true
		b, ok := old[k]
		switch {
		case !ok:
			n++
			p.text(2, "new: ", fmt.Sprintf("%s (%d, %s)", a.text, a.verdict, word(a.verdict)), &st.accent)
			p.note(4, "", a.reason)
		case b.verdict != a.verdict:
			n++
			style := st.high
			if a.verdict < b.verdict {
				style = st.low
			}
			p.text(2, style.Render(fmt.Sprintf("%d %s %d", b.verdict, m.g.arrow, a.verdict))+" ", a.text, &st.bold)
			p.text(4, "before: ", b.reason, &st.muted)
			p.text(4, "after:  ", a.reason, &st.muted)
		}
	}
	for _, b := range before {
		if k := strings.TrimSpace(b.text); !seen[k] {
			seen[k] = true
			n++
			p.text(2, "dropped: ", fmt.Sprintf("%s (was %d, %s)", b.text, b.verdict, word(b.verdict)), &st.muted)
		}
	}
	return n
}

// questionChanges pairs generated questions by position: they are samples
// of the judge, not matched statements.
func (m *Model) questionChanges(p *page, before, after *eval.AnswerRelevancyTrace) int {
	st := m.st
	var bq, aq []eval.GeneratedQuestion
	if before != nil {
		bq = before.Questions
	}
	if after != nil {
		aq = after.Questions
	}
	n := 0
	for i := range max(len(bq), len(aq)) {
		switch {
		case i >= len(bq):
			n++
			p.text(2, fmt.Sprintf("q%d new: ", i+1), fmt.Sprintf("%.3f %s", aq[i].Cosine, aq[i].Question+flag(aq[i])), &st.accent)
		case i >= len(aq):
			n++
			p.text(2, fmt.Sprintf("q%d dropped: ", i+1), fmt.Sprintf("%.3f %s", bq[i].Cosine, bq[i].Question+flag(bq[i])), &st.muted)
		case bq[i].Question != aq[i].Question || bq[i].Noncommittal != aq[i].Noncommittal ||
			fmt.Sprintf("%.3f", bq[i].Cosine) != fmt.Sprintf("%.3f", aq[i].Cosine):
			n++
			p.text(2, fmt.Sprintf("q%d ", i+1), fmt.Sprintf("cosine %.3f %s %.3f", bq[i].Cosine, m.g.arrow, aq[i].Cosine), &st.bold)
			if bq[i].Question+flag(bq[i]) == aq[i].Question+flag(aq[i]) {
				p.text(4, "", aq[i].Question, &st.muted)
			} else {
				p.text(4, "before: ", bq[i].Question+flag(bq[i]), &st.muted)
				p.text(4, "after:  ", aq[i].Question+flag(aq[i]), &st.muted)
			}
		}
	}
	return n
}

// verdictWord is yes for a verdict of 1, else no.
func verdictWord(v int, yes, no string) string {
	if v == 1 {
		return yes
	}
	return no
}

func flag(q eval.GeneratedQuestion) string {
	if q.Noncommittal == 1 {
		return " [noncommittal]"
	}
	return ""
}

func (m *Model) chunkChanges(p *page, before, after *eval.ContextPrecisionTrace) int {
	st := m.st
	if before == nil || after == nil {
		return 0
	}
	old := map[int]eval.ChunkVerdict{}
	for _, c := range before.Chunks {
		old[c.Rank] = c
	}
	word := func(v int) string { return verdictWord(v, "useful", "not useful") }
	n := 0
	for _, a := range after.Chunks {
		b, ok := old[a.Rank]
		if !ok || b.Verdict == a.Verdict {
			continue
		}
		n++
		p.text(2, fmt.Sprintf("[%d] ", a.Rank), fmt.Sprintf("%s %s %s", word(b.Verdict), m.g.arrow, word(a.Verdict)), &st.bold)
		p.text(6, "before: ", b.Reason, &st.muted)
		p.text(6, "after:  ", a.Reason, &st.muted)
	}
	return n
}
