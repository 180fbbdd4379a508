package report

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/internal/show"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// WriteCSV writes the CSV report of the run (see WriteReportCSV).
func (r *Report) WriteCSV(w io.Writer) error {
	return WriteReportCSV(w, r.Run.Judge.Name, r.Run.Scored(), RunLevels(r.Run), r.Run.ConversationTurns > 0, r.each)
}

// reportMetrics are the metrics a CSV or Markdown report of a run of
// metrics has columns for: DefaultMetrics, then any other metric the run
// evaluated, in the order of AllMetrics.
func reportMetrics(metrics []eval.Metric) []eval.Metric {
	out := append([]eval.Metric(nil), eval.DefaultMetrics...)
	for _, m := range eval.AllMetrics {
		if !slices.Contains(out, m) && slices.Contains(metrics, m) {
			out = append(out, m)
		}
	}
	// Then the run's criteria, in their file's order.
	for _, m := range metrics {
		if eval.Def(m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// The CSV report's columns that are no metric's: before the scores (of a
// run of conversations, or not), and after the statuses.
var (
	csvHead     = []string{"index", "id", "question", "answer"}
	csvConvHead = []string{"index", "id", "conversation_id", "turn", "question", "answer", "standalone_question"}
	csvTail     = []string{"diagnosis", "errors", "judge"}
)

// IsReportColumn reports whether name is a CSV report column of its own
// (answer, diagnosis, …) or ends as a status column does: a criterion of
// that name would make two columns of one name.
func IsReportColumn(name string) bool {
	return slices.Contains(csvConvHead, name) || slices.Contains(csvTail, name) || strings.HasSuffix(name, "_status")
}

// WriteReportCSV writes the CSV report, a row per sample as it comes:
// identity, scores, statuses, the diagnosis at levels and the errors. The
// four default metrics always have their columns, so a script reads any
// report by position; conv adds conversation_id, turn and standalone
// question. Every cell goes through sanitize.CSVCell, so that a
// spreadsheet runs no formula from the data and a terminal no escape.
func WriteReportCSV(w io.Writer, judge string, metrics []eval.Metric, levels Levels, conv bool, each func(yield func(*eval.Result) error) error) error {
	cols := reportMetrics(metrics)
	cw := &csvWriter{csv.NewWriter(w)}
	head := slices.Clone(csvHead)
	if conv {
		head = slices.Clone(csvConvHead)
	}
	for _, m := range cols {
		head = append(head, string(m))
	}
	for _, m := range cols {
		head = append(head, string(m)+"_status")
	}
	// The judge on every row: a CSV travels without its run record, and an
	// offline (lexical) score must never pass for an LLM judge's.
	head = append(head, csvTail...)
	if err := cw.Write(head); err != nil {
		return err
	}
	err := each(func(s *eval.Result) error {
		row := []string{strconv.Itoa(s.Index), s.ID, s.Question, s.Answer}
		if conv {
			turn, standalone := "", ""
			if s.Turn > 0 {
				turn = strconv.Itoa(s.Turn)
			}
			if s.Standalone != nil {
				standalone = s.Standalone.Question
			}
			row = []string{strconv.Itoa(s.Index), s.ID, s.ConversationID, turn, s.Question, s.Answer, standalone}
		}
		scores, statuses := make([]string, len(cols)), make([]string, len(cols))
		var errs []string
		for i, m := range cols {
			if v, ok := s.Score(m); ok {
				scores[i] = strconv.FormatFloat(v, 'f', 4, 64)
			}
			statuses[i] = string(s.Status[m])
			if e := s.Errors[m]; e != "" {
				errs = append(errs, string(m)+": "+e)
			}
		}
		row = append(append(row, scores...), statuses...)
		row = append(row, string(levels.Diagnose(s)), strings.Join(errs, "; "), judge)
		if err := cw.Write(row); err != nil {
			return err
		}
		// csv.Writer buffers: a write error (a full disk) shows at a flush.
		cw.Flush()
		return cw.Error()
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// csvWriter writes every cell through sanitize.CSVCell.
type csvWriter struct{ *csv.Writer }

func (w *csvWriter) Write(record []string) error {
	cells := make([]string, len(record))
	for i, c := range record {
		cells[i] = sanitize.CSVCell(c)
	}
	return w.Writer.Write(cells)
}

// WriteMarkdown writes the summary and the `worst` lowest-scoring samples
// (see WriteReportMarkdown).
func (r *Report) WriteMarkdown(w io.Writer, worst int) error {
	ws := NewWorst(worst)
	for _, s := range r.Samples {
		ws.Add(s)
	}
	t := tallyOf(r.Run.Scored(), r.Samples, RunLevels(r.Run))
	if err := WriteReportMarkdown(w, r.Run, r.Summary, t.Diagnoses(), ws.Samples()); err != nil {
		return err
	}
	return WriteConversationsMarkdown(w, r.Run, t.Conversations())
}

// Fact is a line of a report's header: what it gives, and its value.
type Fact struct{ Name, Value string }

// HeaderFacts are what a report's header says of the run: its dataset
// (as the report writes its name), judge, start, calls and cost; took is
// what the run took, when it has ended. results is how many samples have
// a result (each has one diagnosis): fewer than the run's samples is said.
func (run RunInfo) HeaderFacts(dataset string, took time.Duration, ended bool, results int) []Fact {
	samples := run.SamplesText() + " samples"
	if run.Skipped > 0 {
		samples += fmt.Sprintf(", %d skipped as invalid", run.Skipped)
	}
	judge := sanitize.Line(run.Judge.Name)
	if run.Judge.EmbeddingModel != "" {
		judge += " (embeddings: " + sanitize.Line(run.Judge.EmbeddingModel) + ")"
	}
	started := run.StartedAt.Format("2006-01-02 15:04:05 MST")
	if ended {
		started += ", took " + took.Round(1e6).String()
	}
	if run.Cancelled {
		started += " (cancelled)"
	}
	switch {
	case run.Interrupted:
		samples += fmt.Sprintf(", %d with a result: the run was interrupted; continue it with ragscope run --resume %s", results, sanitize.Line(run.ID))
	case results < run.Samples && !ended:
		samples += fmt.Sprintf(", %d evaluated so far", results)
	case results < run.Samples:
		samples += fmt.Sprintf(", %d with a result: the others have none (the run was cut short, or its results were lost)", results)
	}
	facts := []Fact{
		{"dataset", dataset + " (" + samples + ")"},
		{"judge", judge},
		{"started", started},
		{"calls", fmt.Sprintf("%d chat, %d embeddings, %d cache hits, %d retries, %d errors; tokens %d prompt + %d completion",
			run.Calls.Chat, run.Calls.Embeddings, run.Calls.CacheHits, run.Calls.Retries, run.Calls.Errors,
			run.Tokens.PromptTokens, run.Tokens.CompletionTokens)},
		{"cost", sanitize.Line(run.CostSentence())},
	}
	if note := run.Config["human_labels"]; note != "" {
		// The scores are not the judge's alone: said where they are read.
		facts = append(facts, Fact{"human labels", sanitize.Line(note)})
	}
	return facts
}

// DiagTotal is how many samples the diagnosis counts count: those with a
// result.
func DiagTotal(diag map[Diagnosis]int) int {
	n := 0
	for _, c := range diag {
		n += c
	}
	return n
}

// WriteReportMarkdown writes the Markdown report from a run's summary, its
// diagnosis counts and its worst samples (from a Worst), so a stored run
// of any size is reported from one pass. Every text from the data goes
// through sanitize.Line (mdCell in tables): Markdown punctuation stays,
// control and bidi characters show as escapes.
func WriteReportMarkdown(w io.Writer, run RunInfo, summary map[eval.Metric]MetricSummary, diag map[Diagnosis]int, ranked []*eval.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# ragscope run %s\n\n", sanitize.Line(run.ID))
	took, ended := run.Duration() // a resumed run's attempts summed, as every report says it
	for _, f := range run.HeaderFacts("`"+sanitize.Line(run.Dataset)+"`", took, ended, DiagTotal(diag)) {
		fmt.Fprintf(&b, "- %s: %s\n", f.Name, f.Value)
	}
	b.WriteString("\n")
	// why is a column of its own, as on the terminal: n/a and failures both
	// have their reasons, and one in the failed column reads as a failure.
	b.WriteString("| metric | mean | scored | n/a | failed | sent | cached | tokens | cost | why |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, m := range run.Scored() {
		ms := summary[m]
		mean := show.Score(ms.Mean)
		u, cost := run.Usage[m], cmp.Or(run.MetricCostText(m), "-")
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d | %s | %s |\n", mdCell(string(m)), mean, ms.Scored, ms.NotApplicable, ms.Failed,
			u.Sent(), u.CacheHits, u.PromptTokens+u.CompletionTokens, cost, mdCell(ms.Why()))
	}
	for _, m := range run.Scored() {
		if eval.LowerIsBetter(m) {
			fmt.Fprintf(&b, "\n%s: lower is better.\n", mdCell(string(m)))
		}
	}
	levels := RunLevels(run)
	if !levels.IsDefault() {
		fmt.Fprintf(&b, "\n**Pass levels:** %s.\n", sanitize.Line(levels.Describe()))
	}
	var counts []string
	for _, d := range DiagnosesAt(levels) {
		counts = append(counts, fmt.Sprintf("%s %d", d, diag[d]))
	}
	fmt.Fprintf(&b, "\n**Diagnosis:** %s\n", strings.Join(counts, ", "))

	if worst := len(ranked); worst > 0 {
		cols := reportMetrics(run.Scored())
		fmt.Fprintf(&b, "\n## The %d worst samples\n\n| # | id | question |", worst)
		for _, m := range cols {
			fmt.Fprintf(&b, " %s |", eval.MetricAbbrev(m))
		}
		b.WriteString(" diagnosis | why |\n|---:|---|---|" + strings.Repeat("---:|", len(cols)) + "---|---|\n")
		for _, s := range ranked {
			fmt.Fprintf(&b, "| %d | %s | %s |", s.Index, mdCell(s.ID), mdCell(show.Clip(s.Question, 60)))
			for _, m := range cols {
				fmt.Fprintf(&b, " %s |", scoreCell(s, m))
			}
			d := levels.Diagnose(s)
			fmt.Fprintf(&b, " %s | %s |\n", d, mdCell(clipWhy(levels.Why(s, d), 100)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Worst keeps the n lowest-scoring samples seen (the order of WriteMarkdown:
// lowest first, failures before scores, unscored last; ties in the order
// they came), holding no more than n.
type Worst struct {
	n    int
	kept []*eval.Result
}

// NewWorst keeps up to n samples.
func NewWorst(n int) *Worst { return &Worst{n: max(n, 0)} }

// Add considers one sample.
func (w *Worst) Add(r *eval.Result) {
	if r == nil || w.n == 0 {
		return
	}
	v := lowest(r)
	// The first kept sample that ranks after r: strictly lower is better,
	// and of two equal the lower index (the one that came first in the
	// run's order, whatever order they were added in).
	i := sort.Search(len(w.kept), func(i int) bool {
		lk := lowest(w.kept[i])
		return lk > v || lk == v && w.kept[i].Index > r.Index
	})
	w.kept = insertCapped(w.kept, w.n, i, r)
}

// insertCapped inserts v at i of a list kept to n items, dropping the
// last when full; v past the end of a full list is not kept.
func insertCapped[T any](list []T, n, i int, v T) []T {
	if i == len(list) && len(list) == n {
		return list
	}
	if len(list) == n {
		list = list[:n-1]
	}
	return slices.Insert(list, i, v)
}

// Samples are the kept samples, worst first.
func (w *Worst) Samples() []*eval.Result { return w.kept }

// lowest is the sample's lowest score, its criteria's included, a noise
// sensitivity counted as 1 - score (lower is better: a high one ranks the
// sample among the worst); failures sort first, unscored last.
func lowest(r *eval.Result) float64 {
	lo := 2.0
	ms := slices.Clone(eval.AllMetrics)
	for _, n := range r.CriteriaNames() {
		ms = append(ms, eval.Metric(n))
	}
	for _, m := range ms {
		if r.Status[m].Failed() {
			return -1
		}
		if v, ok := r.Score(m); ok {
			lo = min(lo, eval.Goodness(m, v))
		}
	}
	return lo
}

func scoreCell(r *eval.Result, m eval.Metric) string {
	if v, ok := r.Score(m); ok {
		return fmt.Sprintf("%.2f", v)
	}
	if st, ok := r.Status[m]; ok {
		return mdCell(string(st))
	}
	return "-"
}

// Why is the most useful single line of evidence for a sample diagnosed
// d at these levels: a failure's message; else the judgement that points
// at the stage d names; else the first judgement against the answer; else
// the scores below their pass levels. It is never empty.
func (l Levels) Why(r *eval.Result, d Diagnosis) string {
	for _, m := range eval.AllMetrics {
		if r.Status[m].Failed() {
			return string(m) + ": " + r.Errors[m]
		}
	}
	if d == DiagCriterion {
		return whyCriteria(r, l)
	}
	if t := r.Faithfulness; d == DiagGeneration && t != nil {
		if v := eval.NumberContradicted(t.Statements); v != nil {
			return fmt.Sprintf("contradicted: %q: %s", v.Statement, v.Reason)
		}
	}
	first := map[Diagnosis][]eval.Metric{
		DiagRetrieval:    {eval.ContextRecall, eval.ContextEntityRecall},
		DiagNoncommittal: {eval.AnswerRelevancy},
		DiagOffTopic:     {eval.AnswerRelevancy},
		DiagGeneration:   {eval.Faithfulness, eval.NoiseSensitivity},
		DiagIncomplete:   {eval.AnswerCorrectness, eval.FactualCorrectness},
	}[d]
	rest := []eval.Metric{eval.Faithfulness, eval.ContextRecall, eval.AnswerCorrectness, eval.FactualCorrectness, eval.ContextEntityRecall, eval.NoiseSensitivity}
	for _, m := range append(first, rest...) {
		if e := whyOf(r, m); e != "" {
			return e
		}
	}
	var low []string
	for _, m := range eval.AllMetrics {
		if v, ok := r.Score(m); ok && !l.Passes(m, v) {
			_, op := limitOps(m)
			low = append(low, fmt.Sprintf("%s %.3f %s %g", m, v, op, l.Pass(m)))
		}
	}
	if len(low) > 0 {
		return "below the pass level: " + strings.Join(low, ", ")
	}
	return "every score passes its pass level"
}

// whyOf is the first judgement of metric m against the sample, "" when
// there is none.
func whyOf(r *eval.Result, m eval.Metric) string {
	if m == eval.ContextRecall { // the report's words: the reference's point was not retrieved
		if t := r.ContextRecall; t != nil {
			// A statement found in part is named only when every one is.
			for _, kind := range []struct {
				inPart bool
				label  string
			}{{false, "not retrieved"}, {true, "found in part"}} {
				for _, c := range t.Classifications {
					if c.Attributed == 0 && c.FoundInPart == kind.inPart {
						return fmt.Sprintf("%s: %q: %s", kind.label, c.Statement, c.Reason)
					}
				}
			}
		}
		return ""
	}
	if ev := evidence(r, m); len(ev) > 0 {
		return ev[0]
	}
	return ""
}

// mdCell makes s one Markdown table cell: '|' escaped, runs of white
// space (newlines and tabs included) folded into one space, and anything
// else a terminal would act on or hide shown as an escape.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return sanitize.Line(strings.Join(strings.Fields(s), " "))
}

// clipWhy shortens a why to n runes for a table cell, keeping whole the
// criteria it says also fail.
func clipWhy(why string, n int) string {
	if i := strings.LastIndex(why, alsoFails); i > 0 {
		tail := why[i:]
		return show.Clip(why[:i], max(n-utf8.RuneCountInString(tail), 20)) + tail
	}
	return show.Clip(why, n)
}

const alsoFails = " (also fails: "

// whyCriteria names the criteria a sample fails, the first with its score
// against its pass level and what decided it.
func whyCriteria(r *eval.Result, levels Levels) string {
	failing := levels.FailingCriteria(r)
	if len(failing) == 0 {
		return "every criterion passes its pass level"
	}
	name := failing[0]
	v, _ := r.Score(eval.Metric(name))
	out := fmt.Sprintf("criterion %s %.3f < %g", name, v, levels.Pass(eval.Metric(name)))
	if ev := r.Criteria[name].Evidence(); len(ev) > 0 {
		out += ": " + ev[0]
	}
	if len(failing) > 1 {
		out += alsoFails + strings.Join(failing[1:], ", ") + ")"
	}
	return out
}
