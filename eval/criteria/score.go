package criteria

import (
	"fmt"
	"strings"
)

// Draw is one yes_no verdict of the judge, 1 (yes) or 0, with its reason.
type Draw struct {
	Verdict int    `json:"verdict"`
	Reason  string `json:"reason"`
	// Quote is the words of the answer or a chunk the verdict rests on.
	Quote string `json:"quote,omitempty"`
}

// ItemVerdict is the judge's verdict on one checklist item.
type ItemVerdict struct {
	Item    string `json:"item"`
	Verdict int    `json:"verdict"`
	Reason  string `json:"reason"`
	Quote   string `json:"quote,omitempty"`
}

// Trace is what decided a criterion's score, as the JSON report's
// criteria.NAME holds it: the draws of a yes_no, the level of a rubric,
// the items of a checklist, the matches of an exact check.
type Trace struct {
	Draws       []Draw        `json:"draws,omitempty"`
	Level       *int          `json:"level,omitempty"`
	Description string        `json:"description,omitempty"`
	Items       []ItemVerdict `json:"items,omitempty"`
	Matches     []Match       `json:"matches,omitempty"`
	// Reason says why: a rubric's level, an exact check's outcome; Quote
	// is what a rubric's level rests on.
	Reason string `json:"reason,omitempty"`
	Quote  string `json:"quote,omitempty"`
}

// Majority is a yes_no's score: 1 when more than half the draws say yes.
// With an odd strictness there is no tie.
func Majority(draws []Draw) float64 {
	yes := 0
	for _, d := range draws {
		yes += d.Verdict
	}
	return pass(len(draws) > 0 && 2*yes > len(draws))
}

// RubricScore normalises a level of the rubric's scale to 0–1: the lowest
// level is 0, the highest 1. A level the scale does not define is an error
// (the judge answered outside the scale), never a score. The level's
// description is returned in lang.
func (c *Criterion) RubricScore(level int, lang string) (float64, string, error) {
	lo, hi := c.Levels[0].Score, c.Levels[len(c.Levels)-1].Score
	for _, l := range c.Levels {
		if l.Score == level {
			return float64(level-lo) / float64(hi-lo), l.Description.In(lang), nil
		}
	}
	return 0, "", fmt.Errorf("level %d is not on the scale %d–%d of %s", level, lo, hi, c.Name)
}

// ChecklistScore is the share of items that passed.
func ChecklistScore(items []ItemVerdict) float64 {
	if len(items) == 0 {
		return 0
	}
	yes := 0
	for _, it := range items {
		yes += it.Verdict
	}
	return float64(yes) / float64(len(items))
}

// Score is the criterion's score of a judge's trace, by the kind's
// formula; a trace that does not fit the criterion (no level, a level off
// the scale, a checklist of another length) is an error, never a score.
func (c *Criterion) Score(tr *Trace) (float64, error) {
	switch c.Kind {
	case YesNo:
		if len(tr.Draws) == 0 {
			return 0, fmt.Errorf("the judge gave no verdict")
		}
		return Majority(tr.Draws), nil
	case Rubric:
		if tr.Level == nil {
			return 0, fmt.Errorf("the judge gave no level")
		}
		score, _, err := c.RubricScore(*tr.Level, "")
		return score, err
	case Checklist:
		if len(tr.Items) != len(c.Items) {
			return 0, fmt.Errorf("the judge gave %d item verdicts for %d items", len(tr.Items), len(c.Items))
		}
		return ChecklistScore(tr.Items), nil
	}
	return 0, fmt.Errorf("a %s criterion is an exact check, not judged", c.Kind)
}

// Missing names the inputs a judged criterion reads that a sample lacks
// ("" when it has them all), so it is not sent to the judge for nothing.
func (c *Criterion) Missing(question, reference string, contexts []string) string {
	var missing []string
	for _, in := range c.Inputs {
		switch {
		case in == InputQuestion && strings.TrimSpace(question) == "",
			in == InputContexts && len(contexts) == 0,
			in == InputReference && strings.TrimSpace(reference) == "":
			missing = append(missing, in)
		}
	}
	return strings.Join(missing, " and ")
}

// Evidence is what a poor score of the criterion rests on, one line each:
// the no of each draw and of each unmet item with its reason, a rubric's
// level with its description, an exact check's outcome.
func (t *Trace) Evidence() []string {
	if t == nil {
		return nil
	}
	var out []string
	for i, d := range t.Draws {
		if d.Verdict == 0 {
			out = append(out, fmt.Sprintf("draw %d: no: %s", i+1, d.Reason))
		}
	}
	if t.Level != nil {
		out = append(out, fmt.Sprintf("level %d: %s", *t.Level, t.Description))
	}
	for _, it := range t.Items {
		if it.Verdict == 0 {
			out = append(out, fmt.Sprintf("not met: %s: %s", it.Item, it.Reason))
		}
	}
	if t.Reason != "" {
		out = append(out, t.Reason)
	}
	return out
}
