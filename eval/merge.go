package eval

import (
	"maps"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval/criteria"
)

// Merge returns a copy of base in which the given metrics (criteria too)
// come from update: score, status, error and trace. A re-run of some
// metrics of a sample thus yields a complete result.
func Merge(base, update *Result, metrics []Metric) *Result {
	if base == nil {
		return update
	}
	out := *base
	out.Scores = make(map[Metric]*float64, len(base.Scores))
	maps.Copy(out.Scores, base.Scores)
	out.Status = make(map[Metric]Status, len(base.Status))
	maps.Copy(out.Status, base.Status)
	out.Errors, out.Criteria = maps.Clone(base.Errors), maps.Clone(base.Criteria)
	for _, m := range metrics {
		out.Scores[m] = update.Scores[m]
		if st, ok := update.Status[m]; ok {
			out.Status[m] = st
		} else {
			delete(out.Status, m)
		}
		if e := update.Errors[m]; e != "" {
			if out.Errors == nil {
				out.Errors = map[Metric]string{}
			}
			out.Errors[m] = e
		} else {
			delete(out.Errors, m)
		}
		out.takeTrace(m, update)
	}
	// The calls of the metrics kept come from the base; those of the
	// metrics updated from the update alone, so a full re-run does not list
	// (and count) the parent's calls as well.
	out.Calls = nil
	for _, c := range base.Calls {
		if !slices.Contains(metrics, c.MetricOf()) {
			out.Calls = append(out.Calls, c)
		}
	}
	out.Calls = append(out.Calls, update.Calls...)
	return &out
}

// takeTrace sets metric m's trace from another result of the sample; a
// name that is no metric is a criterion's, traced in Criteria.
func (r *Result) takeTrace(m Metric, from *Result) {
	if d := Def(m); d != nil {
		d.CopyTrace(r, from)
		return
	}
	if tr := from.Criteria[string(m)]; tr != nil {
		r.setCriterion(string(m), tr)
	} else {
		delete(r.Criteria, string(m))
	}
}

// MetricOfTask is the metric a judge task serves: the task names start
// with their metric's, embeddings serve answer relevancy and the
// entailment verdicts factual correctness (noise sensitivity shares them).
func MetricOfTask(task string) Metric {
	switch task {
	case TaskEmbeddings:
		return AnswerRelevancy
	case "entailment_verdicts":
		return FactualCorrectness
	}
	for _, m := range AllMetrics {
		if strings.HasPrefix(task, string(m)) {
			return m
		}
	}
	return ""
}

// criterionTasks are the judge tasks of the kinds of criteria the LLM judges.
var criterionTasks = map[string]criteria.Kind{
	"criterion_yes_no":    criteria.YesNo,
	"criterion_rubric":    criteria.Rubric,
	"criterion_checklist": criteria.Checklist,
}

// CriteriaOfTask lists the criteria of set whose calls are of task, in the
// file's order: every criterion of the kind the task judges. A criterion
// is scored under its name, so these are the names an edit of the task's
// prompt re-scores; MetricsOfTask names the metrics.
func CriteriaOfTask(task string, set *criteria.Set) []Metric {
	kind, ok := criterionTasks[task]
	if !ok || set == nil {
		return nil
	}
	var out []Metric
	for _, c := range set.Criteria {
		if c.Kind == kind {
			out = append(out, Metric(c.Name))
		}
	}
	return out
}
