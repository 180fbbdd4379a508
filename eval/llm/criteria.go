package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/prompts"
)

// The reply shapes of the criteria tasks: the quote, the reason, then the
// verdict or level.
type criterionReply struct {
	Quote string `json:"quote"`
	reasonedVerdict
}

type rubricReply struct {
	Quote  string `json:"quote"`
	Reason string `json:"reason"`
	Level  *int   `json:"level"`
}

type checklistReply struct {
	Items []checklistItem `json:"items"`
}

type checklistItem struct {
	Item string `json:"item"`
	criterionReply
}

// Criterion implements eval.CriteriaJudge: the judged kinds of a team's
// own criteria. The prompt shows only the inputs the criterion lists, and
// its wording in the sample's language; both are part of the request, so
// a changed criterion is asked again and an unchanged one comes from the
// cache. A yes_no's strictness draws are separate replies, each kept.
func (j *Judge) Criterion(ctx context.Context, s *eval.Sample, c *criteria.Criterion) (*criteria.Trace, error) {
	lang := j.lang(s)
	d := prompts.Data{Answer: s.Answer}
	for _, in := range c.Inputs {
		switch in {
		case criteria.InputQuestion:
			d.Question = s.Question
		case criteria.InputContexts:
			d.Contexts = s.Contexts
		case criteria.InputReference:
			d.Reference = s.Reference
		}
	}
	switch c.Kind {
	case criteria.YesNo:
		return j.yesNo(ctx, s, c, d, lang)
	case criteria.Rubric:
		return j.rubric(ctx, s, c, d, lang)
	case criteria.Checklist:
		return j.checklist(ctx, s, c, d, lang)
	}
	return nil, fmt.Errorf("llm: criterion %s of kind %s needs no judge", c.Name, c.Kind)
}

func (j *Judge) yesNo(ctx context.Context, s *eval.Sample, c *criteria.Criterion, d prompts.Data, lang string) (*criteria.Trace, error) {
	d.Criterion = c.Text.In(lang)
	base, err := j.request(s, prompts.TaskCriterionYesNo, d)
	if err != nil {
		return nil, err
	}
	if c.Strictness > 1 {
		// Draws at the verdict temperature would all say the same: a
		// majority of copies is one opinion.
		base.Temperature = j.cfg.QuestionTemperature
	}
	check := func(r *criterionReply) error { return binary("verdict", r.Verdict) }
	tr := &criteria.Trace{}
	err = draw(ctx, j, base, c.Strictness, check, func(r *criterionReply) {
		tr.Draws = append(tr.Draws, criteria.Draw{Verdict: r.Verdict.n, Reason: strings.TrimSpace(r.Reason), Quote: strings.TrimSpace(r.Quote)})
	})
	if err != nil {
		return nil, err
	}
	return tr, nil
}

func (j *Judge) rubric(ctx context.Context, s *eval.Sample, c *criteria.Criterion, d prompts.Data, lang string) (*criteria.Trace, error) {
	d.Criterion = c.Text.In(lang)
	for _, l := range c.Levels {
		d.Levels = append(d.Levels, prompts.Level{Score: l.Score, Description: l.Description.In(lang)})
	}
	// A level off the scale is a reply that breaks the contract: retried,
	// never scored as the nearest level.
	check := func(r *rubricReply) error {
		if r.Level == nil {
			return fmt.Errorf("missing field %q", "level")
		}
		_, _, err := c.RubricScore(*r.Level, lang)
		return err
	}
	r, _, err := ask(ctx, j, s, prompts.TaskCriterionRubric, d, check)
	if err != nil {
		return nil, err
	}
	_, desc, _ := c.RubricScore(*r.Level, lang)
	return &criteria.Trace{Level: r.Level, Description: desc, Reason: strings.TrimSpace(r.Reason), Quote: strings.TrimSpace(r.Quote)}, nil
}

func (j *Judge) checklist(ctx context.Context, s *eval.Sample, c *criteria.Criterion, d prompts.Data, lang string) (*criteria.Trace, error) {
	for _, it := range c.Items {
		d.Items = append(d.Items, it.In(lang))
	}
	check := func(r *checklistReply) error {
		if err := checkList("items", r.Items, "verdict", func(it checklistItem) *bit { return it.Verdict }); err != nil {
			return err
		}
		return inSentOrder("items", r.Items, func(it checklistItem) string { return it.Item }, d.Items)
	}
	r, err := sendCounted(ctx, j, s, prompts.TaskCriterionChecklist, d, check, func(r *checklistReply) int { return len(r.Items) })
	if err != nil {
		return nil, err
	}
	tr := &criteria.Trace{}
	for i, it := range r.Items {
		// The item is ours, by position (inSentOrder put back one the judge
		// answered out of order): a judge that rewords it does not rename
		// the check.
		tr.Items = append(tr.Items, criteria.ItemVerdict{Item: d.Items[i], Verdict: it.Verdict.n, Reason: strings.TrimSpace(it.Reason), Quote: strings.TrimSpace(it.Quote)})
	}
	return tr, nil
}
