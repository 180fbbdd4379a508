package tui

import (
	"fmt"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// metricSection is how the detail page shows one metric: its section, and
// what the judge decided differently in it between two results of a
// sample (compare mode; it returns how many lines it drew). Adding a
// metric to the interface is its entry here and the two functions.
type metricSection struct {
	render  func(m *Model, p *page, res *eval.Result)
	changes func(m *Model, p *page, before, after *eval.Result) int
	// cited, when set, are the judged statements of the section that cite
	// evidence, in page order, labelled under task (see eachCitation).
	cited func(*eval.Result) []judged
	task  string
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
	eval.ContextPrecision: chunkSection(func(r *eval.Result) *eval.ContextPrecisionTrace { return r.ContextPrecision },
		eval.LabelContextPrecision, ""),
	eval.ContextRecall: citing(eval.LabelContextRecall, recallItems, judgedSection((*Model).recallSection,
		judgedList{recallItems, "attributed", "not attributed"})),
	eval.ContextUtilization: chunkSection(func(r *eval.Result) *eval.ContextPrecisionTrace { return r.ContextUtilization },
		eval.LabelContextUtilization, " for the answer"),
	eval.AnswerSimilarity: judgedSection((*Model).similaritySection),
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

// section is how the detail page shows a metric, or one of the run's
// criteria (criterionSection, one renderer for every kind).
func (m *Model) section(mt eval.Metric) (metricSection, bool) {
	if m.isCriterion(mt) {
		return metricSection{render: func(m *Model, p *page, res *eval.Result) { m.criterionSection(p, res, mt) }}, true
	}
	s, ok := metricSections[mt]
	return s, ok
}

// sectionTitle is the heading of the section of the i-th column: a
// metric's number (the key that jumps to it) and name, "criterion" and a
// criterion's name (tab reaches it).
func (m *Model) sectionTitle(i int, mt eval.Metric) string {
	if m.isCriterion(mt) {
		return "criterion " + sanitize.Line(string(mt))
	}
	return fmt.Sprintf("%d %s", i+1, mt)
}

// judgedList is a list of judged statements of a trace, as read from a
// result, with the words of its two verdicts.
type judgedList struct {
	items   func(*eval.Result) []judged
	yes, no string
}

// judgedSection is the section of a metric whose judgements are lists of
// statements (none: answer similarity, a cosine): what the judge decided
// differently is matched statement by statement, list by list.
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

// chunkSection is the section of a metric with a verdict per chunk, in the
// trace trace reads: context precision, and context utilization (useful
// "for the answer").
func chunkSection(trace func(*eval.Result) *eval.ContextPrecisionTrace, task, what string) metricSection {
	return metricSection{
		render: func(m *Model, p *page, res *eval.Result) { m.precisionSection(p, trace(res), task, what) },
		changes: func(m *Model, p *page, before, after *eval.Result) int {
			return m.chunkChanges(p, trace(before), trace(after))
		},
	}
}
