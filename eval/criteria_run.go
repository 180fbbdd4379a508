package eval

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/ragscope/ragscope/eval/criteria"
)

// CriteriaJudge can judge the kinds of criteria that need a judge (the LLM
// judge; with any other they are unsupported). It returns raw judgements;
// the scores are computed here, by each criterion's own formula.
type CriteriaJudge interface {
	Criterion(ctx context.Context, s *Sample, c *criteria.Criterion) (*criteria.Trace, error)
}

// runCriterion evaluates one criterion of a sample into part: its score
// under the criterion's name, its status and its trace.
func runCriterion(ctx context.Context, j Judge, s *Sample, c *criteria.Criterion, part *Result) {
	m := Metric(c.Name)
	if !c.Kind.NeedsJudge() {
		out := c.Check(s.Answer, s.Contexts)
		part.setCriterion(c.Name, &criteria.Trace{Matches: out.Matches, Reason: out.Reason})
		part.set(m, StatusOK, &out.Score, "")
		return
	}
	if missing := c.Missing(s.Question, s.Reference, nonEmpty(s.Contexts)); missing != "" {
		part.set(m, StatusMissingInput, nil, fmt.Sprintf("criterion %s reads the %s, which this sample does not have", c.Name, missing))
		return
	}
	cj, ok := j.(CriteriaJudge)
	if !ok {
		part.set(m, StatusUnsupported, nil, fmt.Sprintf("a %s criterion needs an LLM judge: this judge only runs the exact checks", c.Kind))
		return
	}
	tr, err := cj.Criterion(ctx, s, c)
	if err != nil {
		part.fail(m, err)
		return
	}
	score, err := c.Score(tr)
	if err != nil {
		part.set(m, StatusParseError, nil, err.Error())
		return
	}
	part.setCriterion(c.Name, tr)
	part.set(m, StatusOK, &score, "")
}

func (r *Result) setCriterion(name string, tr *criteria.Trace) {
	if r.Criteria == nil {
		r.Criteria = map[string]*criteria.Trace{}
	}
	r.Criteria[name] = tr
}

// CriterionVerdict is the item text of a criterion's own verdict on a
// sample in a label (the label file's "item" under the criterion's name as
// its "task"): a yes_no's majority, an exact check's pass or fail.
const CriterionVerdict = "verdict"

// CriterionLabelItems lists what a person may label of criterion name's
// judgement of r, by position: each checklist item with the judge's
// verdict, else the criterion's verdict on the sample. A rubric's level is
// no yes or no, and a criterion that did not score has nothing to correct.
func CriterionLabelItems(r *Result, name string) []LabelledItem {
	tr := r.Criteria[name]
	v, ok := r.Score(Metric(name))
	if tr == nil || !ok || r.Status[Metric(name)] != StatusOK || tr.Level != nil {
		return nil
	}
	if len(tr.Items) > 0 {
		out := make([]LabelledItem, len(tr.Items))
		for i, it := range tr.Items {
			out[i] = LabelledItem{it.Item, it.Verdict}
		}
		return out
	}
	verdict := 0
	if v >= 1 {
		verdict = 1
	}
	return []LabelledItem{{CriterionVerdict, verdict}}
}

// RescoreCriterion gives c, a shallow copy of a result, the values at the
// positions of CriterionLabelItems in place of the judge's and returns the
// criterion's score of them by its own formula: a checklist's share of
// items met, else the verdict itself.
func RescoreCriterion(c *Result, name string, values map[int]int) float64 {
	tr := c.Criteria[name]
	if tr == nil || len(tr.Items) == 0 {
		score, _ := c.Score(Metric(name))
		if v, ok := values[0]; ok {
			score = float64(v)
		}
		return score
	}
	t := *tr
	t.Items = slices.Clone(tr.Items)
	for pos, v := range values {
		t.Items[pos].Verdict = v
	}
	crit := maps.Clone(c.Criteria)
	crit[name] = &t
	c.Criteria = crit
	return criteria.ChecklistScore(t.Items)
}

// CriteriaNames are the names of the criteria r has a trace of, sorted.
func (r *Result) CriteriaNames() []string {
	return slices.Sorted(maps.Keys(r.Criteria))
}
