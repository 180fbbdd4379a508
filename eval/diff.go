package eval

import (
	"fmt"
	"math"
	"strings"
)

// Merge returns a copy of base in which the given metrics come from update:
// score, status, error and trace. A re-run of some metrics of a sample thus
// yields a complete result, and every run in the store stays complete.
func Merge(base, update *Result, metrics []Metric) *Result {
	if base == nil {
		return update
	}
	out := *base
	out.Scores = map[Metric]*float64{}
	out.Status = map[Metric]Status{}
	out.Errors = nil
	for m, v := range base.Scores {
		out.Scores[m] = v
	}
	for m, st := range base.Status {
		out.Status[m] = st
	}
	for m, e := range base.Errors {
		if out.Errors == nil {
			out.Errors = map[Metric]string{}
		}
		out.Errors[m] = e
	}
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
		} else if out.Errors != nil {
			delete(out.Errors, m)
		}
		out.takeTrace(m, update)
	}
	// The calls of the metrics kept come from the base; those of the
	// metrics updated from the update alone, so a full re-run does not list
	// (and count) the parent's calls as well.
	updated := map[Metric]bool{}
	for _, m := range metrics {
		updated[m] = true
	}
	out.Calls = nil
	for _, c := range base.Calls {
		if !updated[MetricOfTask(c.Task)] {
			out.Calls = append(out.Calls, c)
		}
	}
	out.Calls = append(out.Calls, update.Calls...)
	return &out
}

// takeTrace sets metric m's trace from another result of the same sample.
func (r *Result) takeTrace(m Metric, from *Result) {
	switch m {
	case Faithfulness:
		r.Faithfulness = from.Faithfulness
	case AnswerRelevancy:
		r.AnswerRelevancy = from.AnswerRelevancy
	case ContextPrecision:
		r.ContextPrecision = from.ContextPrecision
	case ContextRecall:
		r.ContextRecall = from.ContextRecall
	}
}

// MetricOfTask is the metric a judge task serves: the task names start
// with their metric's, and embeddings serve answer relevancy.
func MetricOfTask(task string) Metric {
	if task == "embeddings" {
		return AnswerRelevancy
	}
	for _, m := range AllMetrics {
		if strings.HasPrefix(task, string(m)) {
			return m
		}
	}
	return ""
}

// RunDiff is the comparison of two runs of the same dataset.
type RunDiff struct {
	A, B    string                 `json:"-"`
	Means   map[Metric]MeanChange  `json:"means"`
	Samples []SampleDiff           `json:"samples"` // only samples with a change
	Counts  map[Metric]ChangeCount `json:"counts"`
}

// MeanChange is a metric's mean in both runs.
type MeanChange struct {
	Before *float64 `json:"before"`
	After  *float64 `json:"after"`
	Delta  *float64 `json:"delta"`
}

// ChangeCount counts samples whose score went up, down or changed status.
type ChangeCount struct {
	Up, Down, StatusChanged int
}

// SampleDiff lists what changed for one sample.
type SampleDiff struct {
	Index   int                    `json:"index"`
	ID      string                 `json:"id,omitempty"`
	Scores  map[Metric]ScoreChange `json:"scores"`
	Changes []JudgementChange      `json:"changes,omitempty"`
}

// ScoreChange is one metric's score and status before and after.
type ScoreChange struct {
	Before       *float64 `json:"before"`
	After        *float64 `json:"after"`
	StatusBefore Status   `json:"status_before"`
	StatusAfter  Status   `json:"status_after"`
}

// Delta is after - before when both scored.
func (c ScoreChange) Delta() (float64, bool) {
	if c.Before == nil || c.After == nil {
		return 0, false
	}
	return *c.After - *c.Before, true
}

// JudgementChange is one intermediate judgement that differs: a statement's
// verdict, a generated question, a chunk's verdict, a reference statement's
// attribution.
type JudgementChange struct {
	Metric Metric `json:"metric"`
	What   string `json:"what"`   // "statement 2", "question 1", "chunk 3", "reference statement 1"
	Text   string `json:"text"`   // the statement, question or chunk rank
	Before string `json:"before"` // e.g. "0: not stated in the context"
	After  string `json:"after"`
}

// scoreEpsilon ignores float noise when deciding whether a score changed.
const scoreEpsilon = 1e-9

// Diff compares two runs' results, matched by sample index.
func Diff(metrics []Metric, a, b []*Result) *RunDiff {
	d := &RunDiff{Means: map[Metric]MeanChange{}, Counts: map[Metric]ChangeCount{}}
	sa, sb := Summarize(metrics, a), Summarize(metrics, b)
	for _, m := range metrics {
		mc := MeanChange{Before: sa[m].Mean, After: sb[m].Mean}
		if mc.Before != nil && mc.After != nil {
			delta := *mc.After - *mc.Before
			mc.Delta = &delta
		}
		d.Means[m] = mc
	}
	byIndex := map[int]*Result{}
	for _, r := range a {
		if r != nil {
			byIndex[r.Index] = r
		}
	}
	for _, rb := range b {
		if rb == nil {
			continue
		}
		ra := byIndex[rb.Index]
		if ra == nil {
			continue
		}
		sd := SampleDiff{Index: rb.Index, ID: rb.ID, Scores: map[Metric]ScoreChange{}}
		changed := false
		for _, m := range metrics {
			sc := ScoreChange{Before: ra.Scores[m], After: rb.Scores[m], StatusBefore: ra.Status[m], StatusAfter: rb.Status[m]}
			cc := d.Counts[m]
			if delta, ok := sc.Delta(); ok && math.Abs(delta) > scoreEpsilon {
				changed = true
				if delta > 0 {
					cc.Up++
				} else {
					cc.Down++
				}
			} else if sc.StatusBefore != sc.StatusAfter {
				changed = true
				cc.StatusChanged++
			}
			d.Counts[m] = cc
			sd.Scores[m] = sc
		}
		sd.Changes = judgementChanges(ra, rb)
		if changed || len(sd.Changes) > 0 {
			d.Samples = append(d.Samples, sd)
		}
	}
	return d
}

func judgementChanges(a, b *Result) []JudgementChange {
	var out []JudgementChange
	if a.Faithfulness != nil && b.Faithfulness != nil {
		sa, sb := a.Faithfulness.Statements, b.Faithfulness.Statements
		out = append(out, listChanges(Faithfulness, "statement", len(sa), len(sb), func(side, i int) (string, string) {
			v := sa
			if side == 1 {
				v = sb
			}
			return v[i].Statement, fmt.Sprintf("%d: %s", v[i].Verdict, v[i].Reason)
		})...)
	}
	if a.AnswerRelevancy != nil && b.AnswerRelevancy != nil {
		qa, qb := a.AnswerRelevancy.Questions, b.AnswerRelevancy.Questions
		out = append(out, listChanges(AnswerRelevancy, "question", len(qa), len(qb), func(side, i int) (string, string) {
			q := qa
			if side == 1 {
				q = qb
			}
			// The question is the judgement itself: no separate text.
			return "", fmt.Sprintf("%s (cosine %.3f, noncommittal %d)", q[i].Question, q[i].Cosine, q[i].Noncommittal)
		})...)
	}
	if a.ContextPrecision != nil && b.ContextPrecision != nil {
		ca, cb := a.ContextPrecision.Chunks, b.ContextPrecision.Chunks
		out = append(out, listChanges(ContextPrecision, "chunk", len(ca), len(cb), func(side, i int) (string, string) {
			c := ca
			if side == 1 {
				c = cb
			}
			return "", fmt.Sprintf("%d: %s", c[i].Verdict, c[i].Reason)
		})...)
	}
	if a.ContextRecall != nil && b.ContextRecall != nil {
		ca, cb := a.ContextRecall.Classifications, b.ContextRecall.Classifications
		out = append(out, listChanges(ContextRecall, "reference statement", len(ca), len(cb), func(side, i int) (string, string) {
			c := ca
			if side == 1 {
				c = cb
			}
			return c[i].Statement, fmt.Sprintf("%d: %s", c[i].Attributed, c[i].Reason)
		})...)
	}
	return out
}

// listChanges compares two lists of judgements item by item; item(side, i)
// gives the judged text (empty when the judgement is the text) and the
// judgement of item i of side 0 (before) or 1 (after).
func listChanges(m Metric, what string, na, nb int, item func(side, i int) (text, judgement string)) []JudgementChange {
	var out []JudgementChange
	for i := 0; i < max(na, nb); i++ {
		var ta, ja, tb, jb string
		if i < na {
			ta, ja = item(0, i)
		}
		if i < nb {
			tb, jb = item(1, i)
		}
		if i < na && i < nb && ta == tb && ja == jb {
			continue
		}
		c := JudgementChange{Metric: m, What: fmt.Sprintf("%s %d", what, i+1), Text: ta, Before: ja, After: jb}
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
