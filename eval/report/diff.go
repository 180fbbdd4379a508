package report

import (
	"math"

	"github.com/ragscope/ragscope/eval"
)

// RunDiff is the comparison of two runs: the samples of B matched with
// A's, each metric's mean over them, and the samples that changed.
type RunDiff struct {
	A, B    string                      `json:"-"`
	Means   map[eval.Metric]MeanChange  `json:"means"`
	Samples []SampleDiff                `json:"samples"` // only samples with a change
	Counts  map[eval.Metric]ChangeCount `json:"counts"`
	// Shared is how many samples of B were matched with one of A, ByID
	// and ByContent how (the rest by index); Unmatched counts the samples
	// of B with no counterpart in A.
	Shared    int `json:"shared"`
	ByID      int `json:"by_id,omitempty"`
	ByContent int `json:"by_content,omitempty"`
	Unmatched int `json:"unmatched"`
	// Conversations compares the runs' conversations (diff.Conversations);
	// absent unless both runs have some.
	Conversations []ConversationDiff `json:"conversations,omitempty"`
}

// ConversationDiff is one conversation in two runs: per metric its mean,
// minimum and first failing turn before and after, each side at its own
// pass levels; a side without it has nulls and 0 turns.
type ConversationDiff struct {
	ID          string                                 `json:"id"`
	TurnsBefore int                                    `json:"turns_before"`
	TurnsAfter  int                                    `json:"turns_after"`
	Metrics     map[eval.Metric]ConversationMetricDiff `json:"metrics"`
}

// ConversationMetricDiff is one metric of a conversation before and after.
type ConversationMetricDiff struct {
	MeanBefore             *float64 `json:"mean_before"`
	MeanAfter              *float64 `json:"mean_after"`
	MinBefore              *float64 `json:"min_before"`
	MinAfter               *float64 `json:"min_after"`
	FirstFailingTurnBefore *int     `json:"first_failing_turn_before"`
	FirstFailingTurnAfter  *int     `json:"first_failing_turn_after"`
}

// MeanChange is a metric's mean in both runs over the matched samples.
type MeanChange struct {
	Before *float64 `json:"before"`
	After  *float64 `json:"after"`
	Delta  *float64 `json:"delta"`
	// ScoredBefore and ScoredAfter are how many matched samples each mean is over.
	ScoredBefore int `json:"scored_before"`
	ScoredAfter  int `json:"scored_after"`
}

// ChangeCount counts samples whose score went up, down or changed status.
type ChangeCount struct {
	Up            int `json:"up"`
	Down          int `json:"down"`
	StatusChanged int `json:"status_changed"`
}

// SampleDiff lists what changed for one sample.
type SampleDiff struct {
	Index int    `json:"index"`
	ID    string `json:"id,omitempty"`
	// IndexBefore is the sample's index in run A (samples matched by id
	// or content may have moved).
	IndexBefore int                         `json:"index_before"`
	Scores      map[eval.Metric]ScoreChange `json:"scores"`
	Changes     []eval.JudgementChange      `json:"changes,omitempty"`
}

// ScoreChange is one metric's score and status before and after.
type ScoreChange struct {
	Before       *float64    `json:"before"`
	After        *float64    `json:"after"`
	StatusBefore eval.Status `json:"status_before"`
	StatusAfter  eval.Status `json:"status_after"`
}

// Delta is after - before when both scored.
func (c ScoreChange) Delta() (float64, bool) {
	if c.Before == nil || c.After == nil {
		return 0, false
	}
	return *c.After - *c.Before, true
}

// Changed says the score moved (beyond float noise) or the status changed.
func (c ScoreChange) Changed() bool {
	if delta, ok := c.Delta(); ok && math.Abs(delta) > scoreEpsilon {
		return true
	}
	return c.StatusBefore != c.StatusAfter
}

// scoreEpsilon ignores float noise when deciding whether a score changed.
const scoreEpsilon = 1e-9

// meanOf is sum / n, nil for n 0.
func meanOf(sum float64, n int) *float64 {
	if n == 0 {
		return nil
	}
	v := sum / float64(n)
	return &v
}

// Diff compares two runs' results: each result of b with the result of a
// it matches by id, else by content (see KeyIndex.Match).
func Diff(metrics []eval.Metric, a, b []*eval.Result) *RunDiff {
	x := NewKeyIndex(metrics, len(a))
	var before []*eval.Result
	for _, r := range a {
		if r != nil {
			x.Add(r)
			before = append(before, r)
		}
	}
	c := NewComparison(x, BaselineGate{}, 0)
	samples := []SampleDiff{} // [] in the JSON when none changed, not null
	for _, rb := range b {
		if pos := c.Add(rb); pos >= 0 {
			if sd, changed := DiffSample(metrics, before[pos], rb); changed {
				samples = append(samples, sd)
			}
		}
	}
	d := c.Diff()
	d.Samples = samples
	return d
}

// DiffSample is what changed between two results of one sample: scores,
// statuses and judgements; changed is false when nothing did.
func DiffSample(metrics []eval.Metric, a, b *eval.Result) (SampleDiff, bool) {
	sd := SampleDiff{Index: b.Index, ID: b.ID, IndexBefore: a.Index, Scores: map[eval.Metric]ScoreChange{}}
	changed := false
	for _, m := range metrics {
		sc := ScoreChange{Before: a.Scores[m], After: b.Scores[m], StatusBefore: a.Status[m], StatusAfter: b.Status[m]}
		changed = changed || sc.Changed()
		sd.Scores[m] = sc
	}
	sd.Changes = judgementChanges(a, b)
	return sd, changed || len(sd.Changes) > 0
}

func judgementChanges(a, b *eval.Result) []eval.JudgementChange {
	var out []eval.JudgementChange
	for _, m := range eval.AllMetrics {
		out = append(out, eval.Def(m).Changes(a, b)...)
	}
	return out
}
