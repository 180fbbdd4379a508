// Package report reads the results of a run: the run record with its
// usage and cost, the reports and the JSON report read back as a baseline,
// the tally, the diagnosis, the comparison of two runs, the CI gates, the
// pace of a live run and the status of a followed log. It imports eval;
// eval never imports it.
package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/internal/show"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// reportVersion is the version of the JSON report schema.
const reportVersion = 1

// RunInfo describes a run: what was evaluated, by which judge, with which
// prompts, and what it cost. It never holds the API key.
type RunInfo struct {
	ID          string `json:"id"`
	Parent      string `json:"parent,omitempty"` // the run this one re-ran
	Dataset     string `json:"dataset"`
	DatasetHash string `json:"dataset_sha256,omitempty"`
	// Interrupted is set by a reader (ragscope report) of a run that has no
	// end recorded and that no process evaluates: it was killed, and may be
	// resumed. Never stored.
	Interrupted bool `json:"interrupted,omitempty"`
	// DatasetPath is the dataset's absolute path: Dataset is as it was
	// given, and data.jsonl in two directories are two datasets.
	DatasetPath string     `json:"dataset_path,omitempty"`
	StartedAt   time.Time  `json:"started_at"`
	FinishedAt  *time.Time `json:"finished_at"`
	// AttemptStartedAt is when the latest attempt of a resumed run began;
	// zero for a run never resumed.
	AttemptStartedAt time.Time `json:"attempt_started_at,omitzero"`
	// ElapsedMS is what the attempts of a resumed run took, summed; 0 for a
	// run never resumed (see Duration).
	ElapsedMS int64          `json:"elapsed_ms,omitempty"`
	Judge     eval.JudgeInfo `json:"judge"`
	// Contract is the judge reply contract the traces follow
	// (prompts.ContractVersion); 0 in runs recorded before it, which follow 1.
	Contract int               `json:"contract,omitempty"`
	Prompts  map[string]string `json:"prompts"` // task.lang -> sha256
	Metrics  []eval.Metric     `json:"metrics"`
	// Criteria are a team's own criteria (--criteria) the run scored
	// beside Metrics, each under its name; nil without them.
	Criteria *CriteriaInfo     `json:"criteria,omitempty"`
	Config   map[string]string `json:"config,omitempty"` // flags that shaped the run, minus secrets
	Calls    eval.CallCounts   `json:"calls"`
	Tokens   eval.Usage        `json:"tokens"`
	Samples  int               `json:"samples"` // samples in the dataset (of them, the run's subset: see Subset)
	Skipped  int               `json:"skipped,omitempty"`
	// ConversationTurns counts the samples that are turns of a
	// conversation: the reports then place each by conversation and turn.
	ConversationTurns int  `json:"conversation_turns,omitempty"`
	Cancelled         bool `json:"cancelled,omitempty"`
	// Subset, when set, says the run evaluated Samples of Subset.Of, chosen
	// by Subset.Seed (run --sample); --resume evaluates the same subset.
	Subset *Subset `json:"subset,omitempty"`

	// Usage breaks Calls and Tokens down by metric and judge task, with
	// their cost; absent from runs recorded before it was kept.
	Usage map[eval.Metric]eval.MetricUsage `json:"usage,omitempty"`
	// CostUSD is what the run's tokens cost at Pricing: null when a model had
	// no price, or the run has not ended or predates costs.
	CostUSD *float64 `json:"cost_usd"`
	Pricing *Pricing `json:"pricing,omitempty"`
	// UsagePartial says an interrupted earlier attempt recorded no usage: the
	// calls, tokens and cost are a lower bound.
	UsagePartial bool `json:"usage_partial,omitempty"`
}

// CriteriaInfo records the criteria file a run scored: where it was, the
// digest of its contents, and each criterion in file order.
type CriteriaInfo struct {
	File   string          `json:"file"`
	SHA256 string          `json:"sha256"`
	Items  []CriterionInfo `json:"items"`
}

// CriterionInfo is one criterion of a run: its name, its kind and the
// score a sample needs on it.
type CriterionInfo struct {
	Name string  `json:"name"`
	Kind string  `json:"kind"`
	Pass float64 `json:"pass"`
}

// Names are the criteria's names in file order; nil for nil.
func (c *CriteriaInfo) Names() []string {
	if c == nil {
		return nil
	}
	out := make([]string, len(c.Items))
	for i, it := range c.Items {
		out[i] = it.Name
	}
	return out
}

// Passes are the criteria's pass levels by name; nil for nil.
func (c *CriteriaInfo) Passes() map[string]float64 {
	if c == nil {
		return nil
	}
	out := make(map[string]float64, len(c.Items))
	for _, it := range c.Items {
		out[it.Name] = it.Pass
	}
	return out
}

// Scored are the names a run's results are scored under, which the
// reports, tallies and gates go through: its metrics, then its criteria.
func (r RunInfo) Scored() []eval.Metric {
	if r.Criteria == nil {
		return r.Metrics
	}
	return eval.Scored(r.Metrics, r.Criteria.Names())
}

// AttemptStart is when the run's latest attempt began: what a live view
// counts its elapsed time and ETA from.
func (r RunInfo) AttemptStart() time.Time {
	if !r.AttemptStartedAt.IsZero() {
		return r.AttemptStartedAt
	}
	return r.StartedAt
}

// Duration is what the run took, all attempts together; false while it runs.
func (r RunInfo) Duration() (time.Duration, bool) {
	if r.FinishedAt == nil {
		return 0, false
	}
	if r.ElapsedMS > 0 {
		return time.Duration(r.ElapsedMS) * time.Millisecond, true
	}
	return r.FinishedAt.Sub(r.StartedAt), true
}

// Subset is the seeded random subset a run evaluated.
type Subset struct {
	Of   int    `json:"of"`   // valid samples in the dataset
	Seed uint64 `json:"seed"` // what chose them (see app.ChooseSample)
}

// SamplesText is the run's samples in words: "14", or "20 of 500
// (seed 1)" for a subset.
func (r RunInfo) SamplesText() string {
	if r.Subset == nil {
		return strconv.Itoa(r.Samples)
	}
	return fmt.Sprintf("%d of %d (seed %d)", r.Samples, r.Subset.Of, r.Subset.Seed)
}

// MetricSummary aggregates one metric over a run. Mean is null when no
// sample scored; Scored and Failed always say how many did and did not.
type MetricSummary struct {
	Mean   *float64 `json:"mean"`
	Scored int      `json:"scored"`
	// Failed counts samples whose metric failed: judge_error, parse_error,
	// cache_miss, cancelled.
	Failed int `json:"failed"`
	// NotApplicable counts samples the metric is not defined for:
	// missing_input, no_statements, no_questions.
	NotApplicable int `json:"not_applicable"`
	// ByStatus breaks the unscored samples down by status.
	ByStatus map[eval.Status]int `json:"by_status,omitempty"`
}

// Why says why samples were not scored, e.g. "1 missing_input, 2 judge_error".
func (ms MetricSummary) Why() string {
	var parts []string
	for _, st := range statusCodes[2:] {
		if n := ms.ByStatus[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	return strings.Join(parts, ", ")
}

// tallyOf is the tally of results all at hand, for the reports written whole.
func tallyOf(metrics []eval.Metric, results []*eval.Result, levels Levels) *Tally {
	t := NewTallyAt(metrics, levels)
	for _, r := range results {
		t.Add(r)
	}
	return t
}

// Report is the JSON report of a run (schema version ReportVersion).
type Report struct {
	Version int                           `json:"version"`
	Run     RunInfo                       `json:"run"`
	Summary map[eval.Metric]MetricSummary `json:"summary"`
	// Diagnoses counts the samples per diagnosis (every diagnosis listed,
	// 0 included). In the JSON it is always recomputed from Samples.
	Diagnoses map[Diagnosis]int `json:"diagnoses"`
	// Conversations aggregate the turns of each conversation (a run of
	// conversation turns only; see ConversationSummary).
	Conversations []ConversationSummary `json:"conversations,omitempty"`
	// Samples are the results; in the JSON each carries its "diagnosis".
	Samples []*eval.Result `json:"samples"`
}

// reportSample is a result as the JSON report writes it: the result's own
// fields plus its diagnosis. Result has no MarshalJSON of its own, so its
// fields are promoted (TestReportJSONDiagnosis guards that).
type reportSample struct {
	*eval.Result
	Diagnosis Diagnosis `json:"diagnosis"`
	// FailingCriteria names the criteria below their pass levels, which
	// the diagnosis criterion stands for.
	FailingCriteria []string `json:"failing_criteria,omitempty"`
	// StandaloneQuestion is a turn's question as the metrics judged it (null
	// when not rewritten); absent for a single-turn sample.
	StandaloneQuestion json.RawMessage `json:"standalone_question,omitempty"`
}

func newReportSample(r *eval.Result, levels Levels) reportSample {
	rs := reportSample{Result: r, Diagnosis: levels.Diagnose(r), FailingCriteria: levels.FailingCriteria(r)}
	if r.ConversationID != "" {
		rs.StandaloneQuestion = json.RawMessage("null")
		if st := r.Standalone; st != nil && st.Question != "" {
			rs.StandaloneQuestion, _ = json.Marshal(st.Question)
		}
	}
	return rs
}

// MarshalJSON writes the report as WriteJSON does, with the diagnosis
// counts and each sample's diagnosis computed from the samples at the
// run's levels, so they always agree. Decoding needs no counterpart: a
// sample's "diagnosis" is recomputed.
func (r Report) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	err := r.WriteJSON(&b)
	return b.Bytes(), err
}

// NewReport builds a run's report from its results, unfinished (nil) ones left out.
func NewReport(run RunInfo, results []*eval.Result) *Report {
	samples := slices.DeleteFunc(append([]*eval.Result{}, results...), func(r *eval.Result) bool { return r == nil })
	t := tallyOf(run.Scored(), samples, RunLevels(run))
	return &Report{Version: reportVersion, Run: run, Summary: t.Summary(), Diagnoses: t.Diagnoses(), Conversations: t.Conversations(), Samples: samples}
}

// WriteJSON writes the report as indented JSON (see WriteReportJSON).
func (r *Report) WriteJSON(w io.Writer) error {
	t := tallyOf(r.Run.Scored(), r.Samples, RunLevels(r.Run))
	return WriteReportJSON(w, r.Run, r.Summary, t.Diagnoses(), t.Conversations(), r.each)
}

// each yields the report's samples, the stream the report writers take.
func (r *Report) each(yield func(*eval.Result) error) error {
	for _, s := range r.Samples {
		if s == nil {
			continue
		}
		if err := yield(s); err != nil {
			return err
		}
	}
	return nil
}

// WriteReportJSON writes a run's report without holding its samples: the
// header first (summary, diagnosis counts and conversations, from a first
// pass over the run), then each sample as each yields it, diagnosed at the
// run's levels (RunLevels). A report of a million samples streams from the
// store in the memory of one.
func WriteReportJSON(w io.Writer, run RunInfo, summary map[eval.Metric]MetricSummary, diagnoses map[Diagnosis]int, conversations []ConversationSummary, each func(yield func(*eval.Result) error) error) error {
	enc := NewSampleEncoder(RunLevels(run))
	return WriteReportJSONEncoded(w, run, summary, diagnoses, conversations, func(yield func([]byte) error) error {
		return each(func(r *eval.Result) error {
			b, err := enc.Encode(r)
			if err != nil {
				return err
			}
			return yield(b)
		})
	})
}

// WriteReportJSONEncoded is WriteReportJSON over samples already encoded
// by a SampleEncoder of the run's levels: a headless run encodes each
// sample as it finishes, so that its report is a copy once the run ends.
func WriteReportJSONEncoded(w io.Writer, run RunInfo, summary map[eval.Metric]MetricSummary, diagnoses map[Diagnosis]int, conversations []ConversationSummary, each func(yield func([]byte) error) error) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	var err error // the first encoding error: the fields after it are not written
	field := func(prefix, name string, v any) {
		if err != nil {
			return
		}
		buf.Reset()
		if err = enc.Encode(v); err == nil {
			bw.WriteString(prefix + `  "` + name + `": `)
			bw.Write(sanitize.JSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))))
		}
	}
	field("{\n", "version", reportVersion)
	field(",\n", "run", run)
	field(",\n", "summary", summary)
	field(",\n", "diagnoses", diagnoses)
	if conversations != nil {
		field(",\n", "conversations", conversations)
	}
	if err != nil {
		return err
	}
	bw.WriteString(",\n  \"samples\": [")
	n := 0
	err = each(func(b []byte) error {
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		bw.WriteString("\n    ")
		bw.Write(b)
		// A write error (a full disk) surfaces here, not after the last sample.
		return show.WriteErr(bw)
	})
	if err != nil {
		return err
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}

// SampleEncoder encodes samples as the JSON report writes them: indented
// for its samples array, sanitised, diagnosed at its levels.
type SampleEncoder struct {
	levels Levels
	buf    bytes.Buffer
	enc    *json.Encoder
}

// NewSampleEncoder encodes samples diagnosed at levels (the run's RunLevels).
func NewSampleEncoder(levels Levels) *SampleEncoder {
	e := newSampleEncoder(levels)
	e.enc.SetIndent("    ", "  ")
	return e
}

// newSampleEncoder encodes samples compact, one line each.
func newSampleEncoder(levels Levels) *SampleEncoder {
	e := &SampleEncoder{levels: levels}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// Encode encodes r; the bytes are valid until the next call.
func (e *SampleEncoder) Encode(r *eval.Result) ([]byte, error) {
	e.buf.Reset()
	if err := e.enc.Encode(newReportSample(r, e.levels)); err != nil {
		return nil, err
	}
	return sanitize.JSON(bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))), nil
}
