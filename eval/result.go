package eval

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ragscope/ragscope/eval/criteria"
)

// Result is everything known about one evaluated sample: scores, statuses
// and every intermediate judgement the drill-down is built from.
type Result struct {
	Index     int      `json:"index"`
	ID        string   `json:"id"`
	Question  string   `json:"question"`
	Answer    string   `json:"answer"`
	Contexts  []string `json:"contexts"`
	Reference string   `json:"reference,omitempty"`

	// ConversationID and Turn place a turn of a conversation; History is
	// what was said before it, Standalone its question rewritten to stand
	// alone, which the metrics ran on.
	ConversationID string           `json:"conversation_id,omitempty"`
	Turn           int              `json:"turn,omitempty"`
	History        []Turn           `json:"history,omitempty"`
	Standalone     *StandaloneTrace `json:"standalone,omitempty"`

	Scores map[Metric]*float64 `json:"scores"`
	Status map[Metric]Status   `json:"status"`
	Errors map[Metric]string   `json:"errors,omitempty"`

	Faithfulness     *FaithfulnessTrace     `json:"faithfulness,omitempty"`
	AnswerRelevancy  *AnswerRelevancyTrace  `json:"answer_relevancy,omitempty"`
	ContextPrecision *ContextPrecisionTrace `json:"context_precision,omitempty"`
	ContextRecall    *ContextRecallTrace    `json:"context_recall,omitempty"`
	// ContextUtilization has the shape of context precision's trace: the
	// same per-chunk verdicts and precision@k, judged against the answer.
	ContextUtilization  *ContextPrecisionTrace   `json:"context_utilization,omitempty"`
	AnswerSimilarity    *AnswerSimilarityTrace   `json:"answer_similarity,omitempty"`
	AnswerCorrectness   *AnswerCorrectnessTrace  `json:"answer_correctness,omitempty"`
	FactualCorrectness  *FactualCorrectnessTrace `json:"factual_correctness,omitempty"`
	ContextEntityRecall *EntityRecallTrace       `json:"context_entity_recall,omitempty"`
	NoiseSensitivity    *NoiseSensitivityTrace   `json:"noise_sensitivity,omitempty"`
	// Criteria are the traces of a team's own criteria (eval/criteria),
	// by name; their scores and statuses are in Scores and Status.
	Criteria map[string]*criteria.Trace `json:"criteria,omitempty"`

	// Calls lists the judge calls made for this sample, in order, with their
	// cache keys, so the raw request and reply can be shown from the cache.
	Calls []CallRecord `json:"calls,omitempty"`
}

// Score returns the metric's score and whether it has one.
func (r *Result) Score(m Metric) (float64, bool) {
	if p := r.Scores[m]; p != nil {
		return *p, true
	}
	return 0, false
}

// Failed reports whether any metric of the result failed (judge, parse,
// cache or cancellation), as opposed to being not applicable.
func (r *Result) Failed() bool {
	return slices.ContainsFunc(slices.Collect(maps.Values(r.Status)), Status.Failed)
}

// FaithfulnessTrace keeps the statements and their verdicts.
type FaithfulnessTrace struct {
	Statements []StatementVerdict `json:"statements"`
	Supported  int                `json:"supported"`
	// In a conversation: the --history-support the verdicts were counted by,
	// and whether contradictions were looked for (the offline judge cannot).
	HistorySupport        HistorySupport `json:"history_support,omitempty"`
	ContradictionsChecked bool           `json:"contradictions_checked,omitempty"`
}

// AnswerRelevancyTrace keeps the generated questions and their cosines.
type AnswerRelevancyTrace struct {
	Questions []GeneratedQuestion `json:"questions"`
	// AllNoncommittal is true when every generated question was flagged
	// noncommittal, which zeroes the score.
	AllNoncommittal bool `json:"all_noncommittal,omitempty"`
	// Mode is "questions" (the RAGAS definition) or AnswerSimilarityMode
	// (the offline judge: AnswerCosine, the cosine of answer and question, is
	// kept, not scored; runs recorded before that scored it).
	Mode string `json:"mode"`
	// AnswerCosine is written in AnswerSimilarityMode even when it is 0
	// (see MarshalJSON), and left out in the questions mode.
	AnswerCosine     float64 `json:"answer_cosine,omitempty"`
	NoncommittalHint string  `json:"noncommittal_hint,omitempty"`
}

// AnswerSimilarityMode is the answer relevancy trace's mode when the judge
// generates no questions (the offline judge).
const AnswerSimilarityMode = "answer_similarity"

// MarshalJSON writes the trace with its answer_cosine in
// AnswerSimilarityMode even when it is 0: there the cosine is the trace's
// one measurement, and a 0 left out would read as not measured.
func (t AnswerRelevancyTrace) MarshalJSON() ([]byte, error) {
	type plain AnswerRelevancyTrace // the fields without this method
	var v any = plain(t)
	if t.Mode == AnswerSimilarityMode {
		v = struct {
			plain
			AnswerCosine float64 `json:"answer_cosine"`
		}{plain(t), t.AnswerCosine}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the caller's encoder escapes, or not
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// ContextPrecisionTrace keeps each chunk's verdict and the average-precision
// terms, of context precision and of context utilization alike.
type ContextPrecisionTrace struct {
	Chunks []ChunkVerdict `json:"chunks"`
	// Precisions[k] is precision@k+1 (Σj≤k vj / k), kept for the formula display.
	Precisions []float64 `json:"precisions"`
}

// ContextRecallTrace keeps each reference statement's attribution.
type ContextRecallTrace struct {
	Classifications []Classification `json:"classifications"`
	Attributed      int              `json:"attributed"`
}

// AnswerSimilarityTrace keeps the cosine of the answer to the reference.
type AnswerSimilarityTrace struct {
	Cosine float64 `json:"cosine"`
}

// AnswerCorrectnessTrace keeps both statement lists, the judge's TP, FP and
// FN with reasons, and every term of the weighted score.
type AnswerCorrectnessTrace struct {
	AnswerStatements    []string           `json:"answer_statements"`
	ReferenceStatements []string           `json:"reference_statements"`
	Classes             CorrectnessClasses `json:"classes"`
	FScore              float64            `json:"f_score"`
	// Similarity is nil when its weight is 0: it is then not computed.
	Similarity *float64   `json:"similarity,omitempty"`
	Weights    [2]float64 `json:"weights"` // factuality, similarity
}

// FactualCorrectnessTrace keeps the claims of both sides with their
// verdicts and the counts the score is made of.
type FactualCorrectnessTrace struct {
	Mode string  `json:"mode"` // f1, precision or recall (--fc-mode)
	Beta float64 `json:"beta"`
	// AnswerClaims are the answer's claims, each judged against the
	// reference (verdict 1: the reference entails it, a TP; 0: an FP).
	AnswerClaims []StatementVerdict `json:"answer_claims"`
	// ReferenceClaims are the reference's claims, each judged against the
	// answer (verdict 0: an FN); empty in precision mode, which needs none.
	ReferenceClaims []StatementVerdict `json:"reference_claims"`
	TP              int                `json:"tp"`
	FP              int                `json:"fp"`
	FN              int                `json:"fn"`
}

// EntityRecallTrace keeps the entity lists of context entity recall.
type EntityRecallTrace struct {
	Reference []EntityMatch `json:"reference_entities"` // distinct, in the judge's order
	Contexts  []string      `json:"context_entities"`
	Found     int           `json:"found"`
}

// NoiseSensitivityTrace keeps the noise matrix: every chunk's verdicts on
// the reference's and the answer's statements, and each answer statement's
// standing.
type NoiseSensitivityTrace struct {
	Mode                string   `json:"mode"` // relevant or irrelevant (--ns-mode)
	ReferenceStatements []string `json:"reference_statements"`
	// ByReference judges each answer statement against the reference.
	ByReference []StatementVerdict `json:"by_reference"`
	Chunks      []NoiseChunk       `json:"chunks"`
	Statements  []NoiseStatement   `json:"statements"`
	// Relevant / Irrelevant count the answer statements whose Noise is that
	// mode; the score is the mode's count over len(Statements).
	Relevant   int `json:"relevant"`
	Irrelevant int `json:"irrelevant"`
}

// CallRecord is one judge call made for a sample.
type CallRecord struct {
	Task      string `json:"task"`
	Key       string `json:"key"`
	Cached    bool   `json:"cached"`
	Tokens    Usage  `json:"tokens"`
	LatencyMS int64  `json:"latency_ms"`
	Retries   int    `json:"retries,omitempty"`
	Error     string `json:"error,omitempty"`
	// Cancelled marks a call cut short because the run was stopped: no error
	// of the judge, counted in no count of errors.
	Cancelled bool `json:"cancelled,omitempty"`
	// Metric is the metric whose step made the call, kept only where it is
	// not the task's own (MetricOfTask). See MetricOf.
	Metric Metric `json:"metric,omitempty"`
	// Reasoning is the start of the judge model's reasoning before its reply,
	// for the detail page; the whole of it is in the cache.
	Reasoning string `json:"reasoning,omitempty"`
}

// reasoningPreview is how many runes of a call's reasoning its record keeps.
const reasoningPreview = 240

// Reasoning is the start of what a reasoning judge model thought in the
// last successful call of task ("" for none).
func (r *Result) Reasoning(task string) string {
	for _, c := range slices.Backward(r.Calls) {
		if c.Task == task && c.Error == "" {
			return c.Reasoning
		}
	}
	return ""
}

// ReasoningPreview is the start of a reply's reasoning (its first choice's)
// that results keep, on one line; "" when it has none.
func ReasoningPreview(resp ChatResponse) string {
	if len(resp.Reasoning) == 0 {
		return ""
	}
	r := []rune(strings.Join(strings.Fields(resp.Reasoning[0]), " "))
	if len(r) > reasoningPreview {
		r = append(r[:reasoningPreview], []rune("...")...)
	}
	return string(r)
}

// MetricOf is the metric the call is billed to: the one whose step made
// it, or for a record without one (older runs) the task's.
func (c CallRecord) MetricOf() Metric {
	return cmp.Or(c.Metric, MetricOfTask(c.Task))
}

// attributeShared makes the billing of a sample's calls deterministic:
// two metrics that send the same request at once share one call, and
// which pays is a race, so the paid call goes to the first of them in the
// run's metric order. A record's Metric is then cleared where it is the
// task's own.
func attributeShared(calls []CallRecord, order []Metric) {
	rank := func(m Metric) int {
		if i := slices.Index(order, m); i >= 0 {
			return i
		}
		return len(order)
	}
	byKey := map[string][]int{}
	for i, c := range calls {
		if c.Key != "" && c.Metric != "" {
			byKey[c.Key] = append(byKey[c.Key], i)
		}
	}
	for _, idx := range byKey {
		if len(idx) < 2 {
			continue
		}
		first := idx[0]
		for _, i := range idx[1:] {
			if rank(calls[i].Metric) < rank(calls[first].Metric) {
				first = i
			}
		}
		for _, i := range idx {
			if i != first && !calls[i].Cached && calls[i].Error == "" && calls[first].Cached {
				calls[i].Metric, calls[first].Metric = calls[first].Metric, calls[i].Metric
				break
			}
		}
	}
	for i := range calls {
		if calls[i].Metric == MetricOfTask(calls[i].Task) {
			calls[i].Metric = ""
		}
	}
}

// EventKind tells what happened in the runner.
type EventKind int

const (
	EventRunStarted EventKind = iota
	EventSampleStarted
	EventSampleFinished
	EventCall  // a chat or embedding call finished (cached or not)
	EventRetry // a call is being retried after an error
	EventError // a metric of a sample ended in a failure status
	EventRunFinished
	// EventNotice is a run-level line for the user (Err): what the run
	// learned of its endpoint, said once.
	EventNotice
	// EventProgress carries the running totals of a run evaluated by
	// another process (Totals), for a watcher.
	EventProgress
)

// Totals are a run's calls and tokens so far, as its evaluator counts them.
type Totals struct {
	Calls  CallCounts
	Tokens Usage
}

// Event is one item of the runner's event stream. The TUI coalesces EventCall
// and EventRetry into periodic ticks; per-sample events are always delivered.
type Event struct {
	Kind   EventKind
	Time   time.Time
	Sample int     // sample index, -1 for run-level events
	Result *Result // EventSampleFinished
	Call   *CallRecord
	Metric Metric // EventError
	Err    string // EventError, EventRetry
	Wait   time.Duration
	Total  int     // EventRunStarted: number of samples
	Totals *Totals // EventProgress
	// InFlight is the number of judge calls in flight when the event was
	// emitted (a gauge snapshot, so consumers need no call-started events).
	InFlight int
}

// Interrupted reports a result of a sample the run's stop cut short: some
// metric ended cancelled. It is neither done (--resume evaluates it again)
// nor failed by the judge; progress counts it apart.
func (r *Result) Interrupted() bool {
	return slices.Contains(slices.Collect(maps.Values(r.Status)), StatusCancelled)
}

// Backing says which chunks entail statement s (by rank, each relevant or
// irrelevant) and whether the reference does: the line the detail page
// and the HTML report show under it.
func (t *NoiseSensitivityTrace) Backing(s NoiseStatement) string {
	relevant := map[int]bool{}
	for _, c := range t.Chunks {
		relevant[c.Rank] = c.Relevant
	}
	ranks := slices.Sorted(slices.Values(slices.Concat(s.Relevant, s.Irrelevant)))
	var by []string
	for _, k := range ranks {
		kind := "irrelevant"
		if relevant[k] {
			kind = "relevant"
		}
		by = append(by, fmt.Sprintf("#%d (%s)", k, kind))
	}
	line := "backed by no chunk"
	if len(by) > 0 {
		line = "backed by " + strings.Join(by, ", ")
	}
	if s.Correct {
		return line + "; correct (the reference entails it)"
	}
	return line + "; not in the reference"
}

// Entailing says which chunks entail reference statement i (by rank):
// what makes those chunks relevant; any: some chunk does.
func (t *NoiseSensitivityTrace) Entailing(i int) (line string, any bool) {
	var by []string
	for _, c := range t.Chunks {
		if i < len(c.Reference) && c.Reference[i].Verdict == 1 {
			by = append(by, fmt.Sprintf("#%d", c.Rank))
		}
	}
	if len(by) == 0 {
		return "entailed by no chunk", false
	}
	return "entailed by " + strings.Join(by, ", "), true
}
