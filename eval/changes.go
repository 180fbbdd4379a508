package eval

import (
	"fmt"
	"strings"
)

// JudgementChange is one intermediate judgement that differs: a verdict, a
// generated question, an attribution.
type JudgementChange struct {
	Metric Metric `json:"metric"`
	What   string `json:"what"`   // "statement 2", "question 1", "chunk 3", "reference statement 1"
	Text   string `json:"text"`   // the statement, question or chunk rank
	Before string `json:"before"` // e.g. "0: not stated in the context"
	After  string `json:"after"`
	// Each side's own judged text, for the text form, which must not
	// show one side's statement as the other's; has* say the side has the
	// item at all, ownText that the metric's items have a text of their own.
	textBefore, textAfter string
	hasBefore, hasAfter   bool
	ownText               bool
}

// SameText reports whether one text (Text) names the item on both sides:
// the items have no text of their own, or both sides judged the same one.
func (c JudgementChange) SameText() bool {
	return !c.ownText || (c.hasBefore && c.hasAfter && c.textBefore == c.textAfter) || (!c.hasBefore && !c.hasAfter)
}

// Side is one side's own judged text (after false: the before side) and
// whether that side has the item at all.
func (c JudgementChange) Side(after bool) (text string, ok bool) {
	if after {
		return c.textAfter, c.hasAfter
	}
	return c.textBefore, c.hasBefore
}

// noiseJudgement is where an answer statement stands in noise sensitivity.
func noiseJudgement(st NoiseStatement) string {
	var b strings.Builder
	if st.Correct {
		b.WriteString("correct")
	} else {
		b.WriteString("incorrect")
	}
	fmt.Fprintf(&b, "; relevant chunks %s; irrelevant chunks %s", ranks(st.Relevant), ranks(st.Irrelevant))
	if st.Noise != "" {
		b.WriteString("; noise: " + st.Noise)
	}
	return b.String()
}

func ranks(rs []int) string {
	if len(rs) == 0 {
		return "none"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprint(r)
	}
	return strings.Join(parts, ",")
}

// entityChanges compares the reference's entities by their matching key
// (EntityKey), not by position: one entity more or less in the judge's
// list must not shift every entity after it. An entity on both sides
// changed when it was found on one side and not the other; one on a
// single side is listed as added or gone.
func entityChanges(a, b *EntityRecallTrace) []JudgementChange {
	judgement := func(m EntityMatch) string {
		if m.Found {
			return fmt.Sprintf("found (as %q)", m.Match)
		}
		return "missing from the contexts"
	}
	byKey := map[string]int{}
	for i, m := range a.Reference {
		byKey[EntityKey(m.Entity)] = i
	}
	seen := map[string]bool{}
	var out []JudgementChange
	for i, mb := range b.Reference {
		k := EntityKey(mb.Entity)
		seen[k] = true
		c := JudgementChange{Metric: ContextEntityRecall, What: fmt.Sprintf("entity %d", i+1), Text: mb.Entity, After: judgement(mb),
			textAfter: mb.Entity, hasAfter: true, ownText: true}
		if j, ok := byKey[k]; ok {
			ma := a.Reference[j]
			if ma.Found == mb.Found {
				continue
			}
			c.Before, c.textBefore, c.hasBefore = judgement(ma), ma.Entity, true
			if ma.Entity != mb.Entity {
				c.Text = joinChange(ma.Entity, mb.Entity)
			}
		}
		out = append(out, c)
	}
	for i, ma := range a.Reference {
		if !seen[EntityKey(ma.Entity)] {
			out = append(out, JudgementChange{Metric: ContextEntityRecall, What: fmt.Sprintf("entity %d before", i+1), Text: ma.Entity,
				Before: judgement(ma), textBefore: ma.Entity, hasBefore: true, ownText: true})
		}
	}
	return out
}

type correctnessJudgement struct{ text, judgement string }

// answerJudgements are the answer's statements in extraction order, each
// with its class, so a statement moved from TP to FP is one change.
func answerJudgements(t *AnswerCorrectnessTrace) []correctnessJudgement {
	out := make([]correctnessJudgement, len(t.AnswerStatements))
	for i, st := range t.AnswerStatements {
		out[i] = correctnessJudgement{st, "not classified"}
		for _, c := range []struct {
			name  string
			items []CorrectnessItem
		}{{"TP", t.Classes.TP}, {"FP", t.Classes.FP}} {
			for _, it := range c.items {
				if it.Statement == st {
					out[i].judgement = c.name + ": " + it.Reason
				}
			}
		}
	}
	return out
}

func referenceJudgements(t *AnswerCorrectnessTrace) []correctnessJudgement {
	out := make([]correctnessJudgement, len(t.ReferenceStatements))
	for i, st := range t.ReferenceStatements {
		out[i] = correctnessJudgement{st, "covered by the answer"}
		for _, it := range t.Classes.FN {
			if it.Statement == st {
				out[i].judgement = "FN: " + it.Reason
			}
		}
	}
	return out
}

// listChanges compares two lists of judgements item by item; item gives an
// item's judged text ("" when the judgement is the text) and judgement.
func listChanges[T any](m Metric, what string, a, b []T, item func(T) (text, judgement string)) []JudgementChange {
	var out []JudgementChange
	na, nb := len(a), len(b)
	for i := 0; i < max(na, nb); i++ {
		var ta, ja, tb, jb string
		if i < na {
			ta, ja = item(a[i])
		}
		if i < nb {
			tb, jb = item(b[i])
		}
		if i < na && i < nb && ta == tb && ja == jb {
			continue
		}
		c := JudgementChange{Metric: m, What: fmt.Sprintf("%s %d", what, i+1), Text: ta, Before: ja, After: jb,
			textBefore: ta, textAfter: tb, hasBefore: i < na, hasAfter: i < nb, ownText: m == Faithfulness || m == ContextRecall || m == AnswerCorrectness ||
				m == FactualCorrectness || m == NoiseSensitivity}
		if tb != ta {
			c.Text = joinChange(ta, tb)
		}
		out = append(out, c)
	}
	return out
}

func joinChange(a, b string) string {
	if a == "" {
		return b
	}
	return a + " -> " + b
}
