package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/labels"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// critSet is a run's own criteria (eval/criteria) as the interface grades
// them: scored under their names like metrics, in file order, criterion i
// in row slot eval.NumMetrics+i, each with its pass level.
type critSet struct {
	names []eval.Metric
	pass  map[eval.Metric]float64
}

func newCritSet(names []string, pass map[string]float64) critSet {
	c := critSet{names: mapped(names, func(n string) eval.Metric { return eval.Metric(n) }), pass: make(map[eval.Metric]float64, len(pass))}
	for n, v := range pass {
		c.pass[eval.Metric(n)] = v
	}
	return c
}

// levels are l with the criteria's pass levels, for the diagnosis.
func (c critSet) levels(l report.Levels) report.Levels {
	if len(c.names) == 0 {
		return l
	}
	return l.WithCriteria(&report.CriteriaInfo{Items: mapped(c.names, func(n eval.Metric) report.CriterionInfo {
		return report.CriterionInfo{Name: string(n), Pass: c.level(n)}
	})})
}

// slot is the row slot of a criterion, -1 for any other name.
func (c critSet) slot(name eval.Metric) int {
	if i := slices.Index(c.names, name); i >= 0 {
		return eval.NumMetrics + i
	}
	return -1
}

// list is ", a criterion (NAME, ...)" for a filter error; "" without criteria.
func (c critSet) list() string {
	if len(c.names) == 0 {
		return ""
	}
	names := mapped(c.names, func(n eval.Metric) string { return sanitize.Line(string(n)) })
	return ", a criterion (" + strings.Join(names, ", ") + ")"
}

// passes says a score v of criterion name reaches its pass level.
func (c critSet) passes(name eval.Metric, v float64) bool { return v >= c.level(name) }

// level is a criterion's pass level, the metrics' default when none.
func (c critSet) level(name eval.Metric) float64 {
	if lv, ok := c.pass[name]; ok {
		return lv
	}
	return report.DiagLow
}

// slotOf is the row slot of a metric or of one of the run's criteria.
func (m *Model) slotOf(mt eval.Metric) int {
	if s := metricSlot(mt); s >= 0 {
		return s
	}
	return m.st.crit.slot(mt)
}

// isCriterion says mt is one of the run's criteria, not a metric.
func (m *Model) isCriterion(mt eval.Metric) bool { return m.st.crit.slot(mt) >= 0 }

// criterionSection draws what decided a criterion's score, by the shape of
// its trace: a yes_no's draws, a rubric's level, a checklist's items or an
// exact check's matches in the answer, with the human's label.
func (m *Model) criterionSection(p *page, res *eval.Result, name eval.Metric) {
	t := res.Criteria[string(name)]
	st := m.st
	if t == nil {
		return
	}
	switch {
	case len(t.Draws) > 0:
		yes := 0
		for i, d := range t.Draws {
			yes += d.Verdict
			m.verdictLine(p, 2, "", d.Verdict, fmt.Sprintf("draw %d ", i+1), fmt.Sprintf("draw %d ", i+1), d.Reason)
			m.quoteLine(p, d.Quote)
		}
		verdict := "no"
		if 2*yes > len(t.Draws) {
			verdict = "yes"
		}
		p.text(2, "", fmt.Sprintf("%d of %d draws yes: the majority says %s = %.3f", yes, len(t.Draws), verdict,
			criteria.Majority(t.Draws)), &st.bold)
		m.labelLine(p, string(name), eval.CriterionVerdict)
	case t.Level != nil:
		level := fmt.Sprintf("level %d", *t.Level)
		if t.Description != "" {
			level += ": " + t.Description
		}
		p.text(2, "", level, &st.bold)
		p.note(4, "", t.Reason)
		m.quoteLine(p, t.Quote)
	case len(t.Items) > 0:
		yes := 0
		for _, it := range t.Items {
			yes += it.Verdict
			m.verdictLine(p, 2, "", it.Verdict, "", "", it.Item)
			p.note(4, "", it.Reason)
			m.quoteLine(p, it.Quote)
			m.labelLine(p, string(name), it.Item)
		}
		p.text(2, "", fmt.Sprintf("%d of %d items passed = %.3f", yes, len(t.Items), criteria.ChecklistScore(t.Items)), &st.bold)
	default:
		if t.Reason != "" {
			p.text(2, "", t.Reason, &st.bold)
		}
		m.labelLine(p, string(name), eval.CriterionVerdict)
		if len(t.Matches) == 0 {
			return
		}
		spans := make([]span, len(t.Matches))
		for i, mt := range t.Matches {
			spans[i] = span{mt.Start, mt.End}
			what := fmt.Sprintf("%q (%s)", mt.Text, mt.What)
			if mt.InContext {
				what += ", also in a chunk: allowed"
			}
			p.text(2, "match ", what, &st.muted)
		}
		p.text(2, "", "in the answer:", &st.muted)
		p.wrapped(4, "", res.Answer, nil, func(lines []string) []string {
			return markQuote(lines, res.Answer, spans, st.selected)
		})
	}
}

// quoteLine shows the words a criterion's verdict rests on, if given.
func (m *Model) quoteLine(p *page, quote string) {
	if quote != "" {
		p.text(4, "quote ", "\""+quote+"\"", &m.st.muted)
	}
}

// pageOrder sorts a result's labellable items as the page shows them.
func (m *Model) pageOrder(items []labels.Item) []labels.Item {
	slices.SortStableFunc(items, func(a, b labels.Item) int { return m.slotOf(a.Metric) - m.slotOf(b.Metric) })
	return items
}

// failingCriteria names the criteria res fails, in the file's order.
func (m *Model) failingCriteria(res *eval.Result) []string {
	failing := m.st.levels.FailingCriteria(res)
	names := slices.DeleteFunc(slices.Clone(m.st.crit.names), func(n eval.Metric) bool { return !slices.Contains(failing, string(n)) })
	return mapped(names, func(n eval.Metric) string { return sanitize.Line(string(n)) })
}
