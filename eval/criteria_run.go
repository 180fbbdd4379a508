package eval

import (
	"context"
	"fmt"

	"github.com/ragscope/ragscope/eval/criteria"
)

// CriteriaJudge is a judge that can judge the kinds of a team's criteria
// that need one (yes_no, rubric, checklist): the LLM judge. With any other
// judge those criteria are unsupported; the exact checks run everywhere.
// It returns the judge's raw judgements; the scores are computed here, by
// the criterion's own formula, whatever the judge.
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
