package eval

import (
	"context"
	"fmt"
	"strings"

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
	if missing := missingInputs(c, s); missing != "" {
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
	var score float64
	switch c.Kind {
	case criteria.YesNo:
		score = criteria.Majority(tr.Draws)
	case criteria.Rubric:
		if tr.Level == nil {
			part.set(m, StatusParseError, nil, "the judge gave no level")
			return
		}
		var err error
		if score, _, err = c.RubricScore(*tr.Level, ""); err != nil {
			part.set(m, StatusParseError, nil, err.Error())
			return
		}
	case criteria.Checklist:
		if len(tr.Items) != len(c.Items) {
			part.set(m, StatusParseError, nil, fmt.Sprintf("the judge gave %d item verdicts for %d items", len(tr.Items), len(c.Items)))
			return
		}
		score = criteria.ChecklistScore(tr.Items)
	}
	part.setCriterion(c.Name, tr)
	part.set(m, StatusOK, &score, "")
}

// missingInputs names the inputs a judged criterion reads that the sample
// lacks, "" when it has them all.
func missingInputs(c *criteria.Criterion, s *Sample) string {
	var missing []string
	for _, in := range c.Inputs {
		switch {
		case in == criteria.InputQuestion && strings.TrimSpace(s.Question) == "",
			in == criteria.InputContexts && len(nonEmpty(s.Contexts)) == 0,
			in == criteria.InputReference && strings.TrimSpace(s.Reference) == "":
			missing = append(missing, in)
		}
	}
	return strings.Join(missing, " and ")
}

func (r *Result) setCriterion(name string, tr *criteria.Trace) {
	if r.Criteria == nil {
		r.Criteria = map[string]*criteria.Trace{}
	}
	r.Criteria[name] = tr
}
