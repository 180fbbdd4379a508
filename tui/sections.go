package tui

import (
	"fmt"

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
