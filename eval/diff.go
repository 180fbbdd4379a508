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
		if !updated[c.MetricOf()] {
			out.Calls = append(out.Calls, c)
		}
	}
	out.Calls = append(out.Calls, update.Calls...)
	return &out
}

// takeTrace sets metric m's trace from another result of the same sample.
func (r *Result) takeTrace(m Metric, from *Result) {
	if d := Def(m); d != nil {
		d.CopyTrace(r, from)
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

// MetricsOfTask lists every metric whose steps make calls of task, the
// metric MetricOfTask names first: answer correctness, factual correctness
// and noise sensitivity reuse faithfulness's statement extraction, the
// last two share the entailment verdicts, and three metrics embed.
func MetricsOfTask(task string) []Metric {
	switch task {
	case TaskEmbeddings:
		return []Metric{AnswerRelevancy, AnswerSimilarity, AnswerCorrectness}
	case string(Faithfulness) + "_statements":
		return []Metric{Faithfulness, AnswerCorrectness, FactualCorrectness, NoiseSensitivity}
	case "entailment_verdicts":
		return []Metric{FactualCorrectness, NoiseSensitivity}
	}
	if m := MetricOfTask(task); m != "" {
		return []Metric{m}
	}
	return nil
}

// RunDiff is the comparison of two runs: the samples of run B matched
// with those of run A (see Matching), each metric's mean over the matched
// samples, and the samples that changed.
type RunDiff struct {
	A, B    string                 `json:"-"`
	Means   map[Metric]MeanChange  `json:"means"`
	Samples []SampleDiff           `json:"samples"` // only samples with a change
	Counts  map[Metric]ChangeCount `json:"counts"`
	// Shared is how many samples of B were matched with one of A, ByID
	// and ByContent how (the rest by index); Unmatched counts the samples
	// of B with no counterpart in A.
	Shared    int `json:"shared"`
	ByID      int `json:"by_id,omitempty"`
	ByContent int `json:"by_content,omitempty"`
	Unmatched int `json:"unmatched"`
}

// MeanChange is a metric's mean in both runs, each over the matched
// samples it scored.
type MeanChange struct {
	Before *float64 `json:"before"`
	After  *float64 `json:"after"`
	Delta  *float64 `json:"delta"`
	// ScoredBefore and ScoredAfter are how many matched samples each mean
	// is over.
	ScoredBefore int `json:"scored_before"`
	ScoredAfter  int `json:"scored_after"`
}

// ChangeCount counts samples whose score went up, down or changed status.
type ChangeCount struct {
	Up, Down, StatusChanged int
}

// SampleDiff lists what changed for one sample.
type SampleDiff struct {
	Index int    `json:"index"`
	ID    string `json:"id,omitempty"`
	// IndexBefore is the sample's index in run A (samples matched by id
	// or content may have moved).
	IndexBefore int                    `json:"index_before"`
	Scores      map[Metric]ScoreChange `json:"scores"`
	Changes     []JudgementChange      `json:"changes,omitempty"`
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

// changed says the score moved (beyond float noise) or the status changed.
func (c ScoreChange) changed() bool {
	if delta, ok := c.Delta(); ok && math.Abs(delta) > scoreEpsilon {
		return true
	}
	return c.StatusBefore != c.StatusAfter
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
	// Each side's own judged text, for the text form, which must not
	// show one side's statement as the other's; has* say the side has the
	// item at all, ownText that the metric's items have a text of their own.
	textBefore, textAfter string
	hasBefore, hasAfter   bool
	ownText               bool
}

// scoreEpsilon ignores float noise when deciding whether a score changed.
const scoreEpsilon = 1e-9

// diffTally counts a comparison one matched pair at a time, from scores
// and statuses alone: the means, the counts of changes. Diff feeds it from
// results, a run's comparison with its baseline from a KeyIndex.
type diffTally struct {
	metrics      []Metric
	sumA, sumB   []float64
	nA, nB       []int
	counts       []ChangeCount
	shared, byID int
	byContent    int
	unmatched    int
}

func newDiffTally(metrics []Metric) *diffTally {
	k := len(metrics)
	return &diffTally{metrics: metrics, sumA: make([]float64, k), sumB: make([]float64, k),
		nA: make([]int, k), nB: make([]int, k), counts: make([]ChangeCount, k)}
}

func (t *diffTally) pair(kind MatchKind) {
	t.shared++
	switch kind {
	case MatchByID:
		t.byID++
	case MatchByContent:
		t.byContent++
	}
}

// metric counts metric i of one pair: each side's score (ok false: none)
// and status. It returns the change of the score when both sides have one.
func (t *diffTally) metric(i int, va float64, okA bool, stA Status, vb float64, okB bool, stB Status) (float64, bool) {
	if okA {
		t.sumA[i] += va
		t.nA[i]++
	}
	if okB {
		t.sumB[i] += vb
		t.nB[i]++
	}
	if okA && okB && math.Abs(vb-va) > scoreEpsilon {
		if vb > va {
			t.counts[i].Up++
		} else {
			t.counts[i].Down++
		}
		return vb - va, true
	}
	if stA != stB {
		t.counts[i].StatusChanged++
	}
	return 0, okA && okB
}

// mean is metric i's mean before and after over the pairs.
func (t *diffTally) mean(i int) MeanChange {
	mc := MeanChange{ScoredBefore: t.nA[i], ScoredAfter: t.nB[i]}
	if t.nA[i] > 0 {
		v := t.sumA[i] / float64(t.nA[i])
		mc.Before = &v
	}
	if t.nB[i] > 0 {
		v := t.sumB[i] / float64(t.nB[i])
		mc.After = &v
	}
	if mc.Before != nil && mc.After != nil {
		delta := *mc.After - *mc.Before
		mc.Delta = &delta
	}
	return mc
}

// runDiff is the tally as a RunDiff, without samples.
func (t *diffTally) runDiff() *RunDiff {
	d := &RunDiff{Means: map[Metric]MeanChange{}, Counts: map[Metric]ChangeCount{},
		Shared: t.shared, ByID: t.byID, ByContent: t.byContent, Unmatched: t.unmatched}
	for i, m := range t.metrics {
		d.Means[m] = t.mean(i)
		d.Counts[m] = t.counts[i]
	}
	return d
}

// Diff compares two runs' results: each result of b with the result of a
// that match pairs it with.
func Diff(metrics []Metric, a, b []*Result, match Matching) *RunDiff {
	t := newDiffTally(metrics)
	var samples []SampleDiff
	for _, rb := range b {
		if rb == nil {
			continue
		}
		ra, kind := match.Match(rb)
		if ra == nil {
			t.unmatched++
			continue
		}
		t.pair(kind)
		for i, m := range metrics {
			va, okA := ra.Score(m)
			vb, okB := rb.Score(m)
			t.metric(i, va, okA && ra.Status[m] == StatusOK, ra.Status[m], vb, okB && rb.Status[m] == StatusOK, rb.Status[m])
		}
		if sd, changed := DiffSample(metrics, ra, rb); changed {
			samples = append(samples, sd)
		}
	}
	d := t.runDiff()
	d.Samples = samples
	return d
}

// DiffSample is what changed between two results of one sample: each
// metric's score and status, and the judgements; changed is false when
// nothing did.
func DiffSample(metrics []Metric, a, b *Result) (SampleDiff, bool) {
	sd := SampleDiff{Index: b.Index, ID: b.ID, IndexBefore: a.Index, Scores: map[Metric]ScoreChange{}}
	changed := false
	for _, m := range metrics {
		sc := ScoreChange{Before: a.Scores[m], After: b.Scores[m], StatusBefore: a.Status[m], StatusAfter: b.Status[m]}
		changed = changed || sc.changed()
		sd.Scores[m] = sc
	}
	sd.Changes = judgementChanges(a, b)
	return sd, changed || len(sd.Changes) > 0
}

func judgementChanges(a, b *Result) []JudgementChange {
	var out []JudgementChange
	for _, d := range metricDefs {
		out = append(out, d.Changes(a, b)...)
	}
	return out
}

// noiseJudgement is where an answer statement stands in noise
// sensitivity, in one line: correct or not, the chunks that back it, and
// whether it counts as noise.
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
// with its class: compared by position, as the statements were extracted,
// so a statement that moved from TP to FP is one change, not two.
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
