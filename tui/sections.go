package tui

import "github.com/ragscope/ragscope/eval"

// metricSection is how the detail page shows one metric: its section, and
// what the judge decided differently in it between two results of a
// sample (compare mode; it returns how many lines it drew). Adding a
// metric to the interface is its entry here and the two functions.
type metricSection struct {
	render  func(m *Model, p *page, res *eval.Result)
	changes func(m *Model, p *page, before, after *eval.Result) int
}

var metricSections = map[eval.Metric]metricSection{
	eval.Faithfulness: {
		render: (*Model).faithfulnessSection,
		changes: func(m *Model, p *page, before, after *eval.Result) int {
			return m.statementChanges(p, faithItems(before.Faithfulness), faithItems(after.Faithfulness), "supported", "not supported")
		},
	},
	eval.AnswerRelevancy: {
		render: (*Model).relevancySection,
		changes: func(m *Model, p *page, before, after *eval.Result) int {
			return m.questionChanges(p, before.AnswerRelevancy, after.AnswerRelevancy)
		},
	},
	eval.ContextPrecision: chunkSection(func(r *eval.Result) *eval.ContextPrecisionTrace { return r.ContextPrecision },
		eval.LabelContextPrecision, ""),
	eval.ContextRecall: {
		render: (*Model).recallSection,
		changes: func(m *Model, p *page, before, after *eval.Result) int {
			return m.statementChanges(p, recallItems(before.ContextRecall), recallItems(after.ContextRecall), "attributed", "not attributed")
		},
	},
	eval.ContextUtilization: chunkSection(func(r *eval.Result) *eval.ContextPrecisionTrace { return r.ContextUtilization },
		eval.LabelContextUtilization, " for the answer"),
	eval.AnswerSimilarity: {
		render:  (*Model).similaritySection,
		changes: func(*Model, *page, *eval.Result, *eval.Result) int { return 0 },
	},
	eval.AnswerCorrectness: {
		render: (*Model).correctnessSection,
		changes: func(m *Model, p *page, before, after *eval.Result) int {
			return m.statementChanges(p, correctnessItems(before.AnswerCorrectness, false), correctnessItems(after.AnswerCorrectness, false), "TP", "FP") +
				m.statementChanges(p, correctnessItems(before.AnswerCorrectness, true), correctnessItems(after.AnswerCorrectness, true), "covered", "FN")
		},
	},
	eval.FactualCorrectness: {
		render: (*Model).factualSection,
		changes: func(m *Model, p *page, before, after *eval.Result) int {
			return m.statementChanges(p, factualItems(before.FactualCorrectness, false), factualItems(after.FactualCorrectness, false), "TP", "FP") +
				m.statementChanges(p, factualItems(before.FactualCorrectness, true), factualItems(after.FactualCorrectness, true), "in the answer", "FN")
		},
	},
	eval.ContextEntityRecall: {
		render: (*Model).entitySection,
		changes: func(m *Model, p *page, before, after *eval.Result) int {
			return m.statementChanges(p, entityItems(before.ContextEntityRecall), entityItems(after.ContextEntityRecall), "found", "missing")
		},
	},
	eval.NoiseSensitivity: {
		render: (*Model).noiseSection,
		changes: func(m *Model, p *page, before, after *eval.Result) int {
			return m.statementChanges(p, noiseItems(before.NoiseSensitivity), noiseItems(after.NoiseSensitivity), "not noise", "noise")
		},
	},
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
