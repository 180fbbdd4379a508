// Package eval is the evaluation engine: samples, the judge interfaces,
// the metrics behind one registry (Def), the runner, its events and the
// results. It knows nothing of the terminal, the store or the reports.
package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Sample is one (question, answer, contexts, reference) record of a dataset.
type Sample struct {
	Index     int      `json:"index"` // 0-based position among the loaded samples
	ID        string   `json:"id,omitempty"`
	Question  string   `json:"question"`
	Answer    string   `json:"answer"`
	Contexts  []string `json:"contexts"`
	Reference string   `json:"reference,omitempty"`
	// Line is the 1-based line (JSONL), row (CSV, header = row 1) or array
	// element number (JSON) the sample came from, for error messages.
	Line int `json:"-"`

	// Conversation and Turn place a sample that is a turn of a conversation;
	// History holds the turns before it, oldest first.
	Conversation string `json:"conversation_id,omitempty"`
	Turn         int    `json:"turn,omitempty"`
	History      []Turn `json:"history,omitempty"`
	// Asked is the turn's question as the user asked it while the metrics
	// run on the standalone one in Question; "" otherwise.
	Asked string `json:"-"`
}

// Metric names one of the RAGAS metrics; the string is the public name
// used in flags, reports and the cache.
type Metric string

const (
	Faithfulness     Metric = "faithfulness"
	AnswerRelevancy  Metric = "answer_relevancy"
	ContextPrecision Metric = "context_precision"
	ContextRecall    Metric = "context_recall"
	// ContextUtilization is context precision with the answer in place of
	// the reference: it needs no reference, so it can score a live log.
	ContextUtilization Metric = "context_utilization"
	// AnswerSimilarity is the cosine of the answer's and the reference's
	// embeddings (RAGAS SemanticSimilarity).
	AnswerSimilarity Metric = "answer_similarity"
	// AnswerCorrectness weighs the F-score of the answer's statements
	// against the reference's with answer similarity (see CorrectnessScore).
	AnswerCorrectness Metric = "answer_correctness"
	// FactualCorrectness checks the answer's claims against the reference
	// and the reference's against the answer (--fc-mode).
	FactualCorrectness Metric = "factual_correctness"
	// ContextEntityRecall is the share of the reference's entities that
	// occur among the contexts' entities.
	ContextEntityRecall Metric = "context_entity_recall"
	// NoiseSensitivity is the share of the answer's statements that are
	// incorrect and backed by a relevant chunk (or only by irrelevant ones:
	// --ns-mode). Lower is better.
	NoiseSensitivity Metric = "noise_sensitivity"
)

var allMetrics = [...]Metric{Faithfulness, AnswerRelevancy, ContextPrecision, ContextRecall, ContextUtilization, AnswerSimilarity, AnswerCorrectness, FactualCorrectness, ContextEntityRecall, NoiseSensitivity}

// LowerIsBetter reports whether a lower score of the metric is the better
// one (noise sensitivity): sorting "worst first", the diagnosis's bands,
// gates and regressions all turn round for it.
func LowerIsBetter(m Metric) bool {
	d := Def(m)
	return d != nil && d.LowerIsBetter
}

// Goodness is a score of m turned so that higher is better (1 - v for
// noise sensitivity), for the bands, the diagnosis and worst-first orders
// that read every metric the same way.
func Goodness(m Metric, v float64) float64 {
	if LowerIsBetter(m) {
		return 1 - v
	}
	return v
}

// NumMetrics is how many metrics there are: the size of an array with a
// slot per metric (indexed by position in AllMetrics), so that adding a
// metric grows such arrays at compile time instead of overflowing them.
const NumMetrics = len(allMetrics)

// AllMetrics is the canonical order used in tables and reports: every
// metric there is.
var AllMetrics = allMetrics[:]

// DefaultMetrics is what a run evaluates without --metrics: the four
// metrics of the RAGAS paper. Context utilization costs a call per chunk.
var DefaultMetrics = AllMetrics[:4:4]

// LookupMetric is the metric a name or short alias (f, ar, cp, cr, cu,
// faith, relevancy, precision, recall, utilization) stands for; name is
// lower-case.
func LookupMetric(name string) (Metric, bool) {
	m, ok := metricAliases[name]
	return m, ok
}

// MetricAbbrev is the metric's column title in narrow tables (F, AR, CP,
// CR, CU): its short filter alias in capitals.
func MetricAbbrev(m Metric) string {
	if d := Def(m); d != nil {
		return d.Abbrev
	}
	return string(m)
}

// KnownMetrics splits a run's metrics into those this version knows, in
// their order, and the names of the others (a run recorded by a newer
// ragscope).
func KnownMetrics(ms []Metric) (known []Metric, unknown []string) {
	for _, m := range ms {
		if slices.Contains(AllMetrics, m) {
			known = append(known, m)
		} else {
			unknown = append(unknown, string(m))
		}
	}
	return known, unknown
}

// Scored are the names results are scored under: the metrics, then the
// criteria named, each under its name.
func Scored(metrics []Metric, criteria []string) []Metric {
	out := slices.Clone(metrics)
	for _, n := range criteria {
		out = append(out, Metric(n))
	}
	return out
}

// Status is how a (sample, metric) evaluation ended. Only StatusOK carries a score.
type Status string

const (
	StatusOK           Status = "ok"
	StatusNoStatements Status = "no_statements"
	StatusMissingInput Status = "missing_input"
	StatusParseError   Status = "parse_error"
	StatusJudgeError   Status = "judge_error"
	StatusCancelled    Status = "cancelled"
	StatusCacheMiss    Status = "cache_miss"
	StatusNoQuestions  Status = "no_questions"
	// StatusTruncated is a reply the judge model could not finish within
	// the largest token budget allowed (--max-tokens): no verdict to read.
	StatusTruncated Status = "truncated"
	// StatusUnsupported is a metric the judge cannot compute honestly:
	// reported with the reason, never an invented score, and no failure.
	StatusUnsupported Status = "unsupported"
)

// Failed reports whether the status is a failure of the judge or the run, as
// opposed to an input that makes the metric undefined (no_statements,
// missing_input), which is reported but not counted as a failure of the tool.
func (s Status) Failed() bool {
	switch s {
	case StatusParseError, StatusJudgeError, StatusCancelled, StatusCacheMiss, StatusTruncated:
		return true
	}
	return false
}

// StepError is an error that carries the status the metric must end with.
type StepError struct {
	Status Status
	Err    error
}

func (e *StepError) Error() string { return e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }

// NewStepError wraps err with a status.
func NewStepError(st Status, format string, args ...any) *StepError {
	return &StepError{Status: st, Err: fmt.Errorf(format, args...)}
}

// ErrCacheMiss is returned by a --cache-only cache for a request it does not hold.
var ErrCacheMiss = errors.New("not in cache (--cache-only)")

// StatusOf maps an error returned by a judge step to the status a metric ends with.
func StatusOf(err error) Status {
	var se *StepError
	switch {
	case err == nil:
		return StatusOK
	case errors.As(err, &se):
		return se.Status
	case errors.Is(err, ErrCacheMiss):
		return StatusCacheMiss
	case errors.Is(err, context.Canceled):
		return StatusCancelled
	default:
		return StatusJudgeError
	}
}

// StatementVerdict is the judge's verdict on one statement of the answer
// (faithfulness) against the retrieved contexts.
type StatementVerdict struct {
	Statement string `json:"statement"`
	Verdict   int    `json:"verdict"` // 1 supported, 0 not
	Reason    string `json:"reason"`
	// Evidence is the chunk and quote the verdict rests on; nil when the
	// judge gave none (see Citation).
	Evidence *Citation `json:"evidence,omitempty"`
	// Conflict is what of the statement the judge found the context
	// contradicts, where it says (the offline judge does, an LLM judge's
	// verdict does not): ConflictNumber, ConflictNegation or ConflictName;
	// "" for none or unsaid. It is the judge's finding: a person's label
	// or the conversation's history may still make the statement
	// supported, and then it counts for nothing (NumberContradicted).
	Conflict string `json:"conflict,omitempty"`

	// In a conversation (faithfulness): Support is where a statement its
	// turn's chunks do not back found backing earlier (SupportEarlierChunks,
	// SupportUser, ""), SupportTurn the turn, and Verdict whether that counted
	// (--history-support). Contradicts is the earlier turn whose answer it
	// contradicts (0: none); HistoryReason the judge's reason for both.
	Support       string `json:"support,omitempty"`
	SupportTurn   int    `json:"support_turn,omitempty"`
	Contradicts   int    `json:"contradicts_turn,omitempty"`
	HistoryReason string `json:"history_reason,omitempty"`
}

// What of a statement the context contradicts (StatementVerdict.Conflict).
const (
	ConflictNumber   = "number"   // a quantity the context gives otherwise
	ConflictNegation = "negation" // the statement denies what it says, or says what it denies
	ConflictName     = "name"     // a name or a party the context does not have there
)

// NumberContradicted is the first statement of vs that gives a number the
// context contradicts, or nil.
func NumberContradicted(vs []StatementVerdict) *StatementVerdict {
	for i := range vs {
		if vs[i].Verdict == 0 && vs[i].Conflict == ConflictNumber {
			return &vs[i]
		}
	}
	return nil
}

// Verdict classes of a faithfulness statement (StatementVerdict.Class).
const (
	ClassSupported     = "supported"      // by the turn's own chunks
	ClassEarlierChunks = "earlier_chunks" // only by an earlier turn's retrieved chunks
	ClassUser          = "user"           // only by what the user said
	ClassUnsupported   = "unsupported"
)

// Class is the statement's verdict class: backed by its turn's chunks,
// only by an earlier turn's chunks or by the user's words (whatever
// --history-support made of that), or by nothing.
func (v StatementVerdict) Class() string {
	switch {
	case v.Support == SupportEarlierChunks:
		return ClassEarlierChunks
	case v.Support == SupportUser:
		return ClassUser
	case v.Verdict == 1:
		return ClassSupported
	}
	return ClassUnsupported
}

// GeneratedQuestion is one reverse-generated question of answer relevancy.
type GeneratedQuestion struct {
	Question     string  `json:"question"`
	Noncommittal int     `json:"noncommittal"` // 1 when the answer is evasive
	Cosine       float64 `json:"cosine"`
}

// ChunkVerdict is the verdict of context precision (useful to arrive at the
// reference) or context utilization (useful to arrive at the answer) on
// one retrieved chunk.
type ChunkVerdict struct {
	Rank    int    `json:"rank"` // 1-based
	Verdict int    `json:"verdict"`
	Reason  string `json:"reason"`
	// Reasoning is the start of what a reasoning judge model thought
	// before this verdict (each chunk's verdict is a call of its own).
	Reasoning string `json:"reasoning,omitempty"`
}

// Classification is context recall's verdict on one reference statement.
type Classification struct {
	Statement  string `json:"statement"`
	Attributed int    `json:"attributed"`
	Reason     string `json:"reason"`
	// Evidence is the chunk and quote the attribution rests on; nil when
	// the judge gave none (see Citation).
	Evidence *Citation `json:"evidence,omitempty"`
	// FoundInPart: not attributed, but a sentence of the contexts has much
	// of it and contradicts none of it. Set by a judge that cannot read a
	// paraphrase (the offline judge), for which that is no evidence that
	// retrieval failed.
	FoundInPart bool `json:"found_in_part,omitempty"`
}

// CorrectnessItem is one statement answer correctness classified as TP,
// FP or FN, with the judge's reason.
type CorrectnessItem struct {
	Statement string `json:"statement"`
	Reason    string `json:"reason"`
}

// CorrectnessClasses is the judge's classification of the answer's and
// the reference's statements (answer_correctness_classifications).
type CorrectnessClasses struct {
	TP []CorrectnessItem `json:"TP"`
	FP []CorrectnessItem `json:"FP"`
	FN []CorrectnessItem `json:"FN"`
}

// CorrectnessList is one class of CorrectnessClasses as its views show
// it: a title, its items, and the verdict an item of it counts as (1:
// for the score).
type CorrectnessList struct {
	Title   string
	Items   []CorrectnessItem
	Verdict int
}

// Lists are the three classes in the order the views show them.
func (c CorrectnessClasses) Lists() []CorrectnessList {
	return []CorrectnessList{
		{"TP: answer statements the reference supports", c.TP, 1},
		{"FP: answer statements the reference does not support", c.FP, 0},
		{"FN: reference statements missing from the answer", c.FN, 0},
	}
}

// EntityMatch is one entity of the reference and whether context entity
// recall found it among the contexts' entities.
type EntityMatch struct {
	Entity string `json:"entity"`
	Found  bool   `json:"found"`
	// Match is the context entity it matched ("" when not found); it may
	// differ from Entity in case, width or spacing (see MatchEntities).
	Match string `json:"match,omitempty"`
}

// NoiseChunk is noise sensitivity's judgement of one retrieved chunk: which
// reference statements it entails (a chunk that entails any is relevant)
// and which answer statements it entails.
type NoiseChunk struct {
	Rank      int                `json:"rank"` // 1-based
	Relevant  bool               `json:"relevant"`
	Reference []StatementVerdict `json:"reference"` // one verdict per reference statement, in order
	Answer    []StatementVerdict `json:"answer"`    // one verdict per answer statement, in order
}

// NoiseStatement is where one answer statement stands in noise
// sensitivity: whether the reference entails it, which chunks do, and
// whether it counts against the score.
type NoiseStatement struct {
	Statement string `json:"statement"`
	Correct   bool   `json:"correct"` // the reference entails it
	// Relevant / Irrelevant: 1-based ranks of relevant / irrelevant chunks that entail it.
	Relevant   []int `json:"relevant"`
	Irrelevant []int `json:"irrelevant"`
	// Noise is "relevant" when the statement is incorrect and a relevant
	// chunk entails it, "irrelevant" when only irrelevant chunks do.
	Noise string `json:"noise,omitempty"`
}

// Lang is the language prompts are rendered in.
type Lang string

const (
	LangAuto Lang = "auto"
	LangEN   Lang = "en"
	LangZH   Lang = "zh"
)
