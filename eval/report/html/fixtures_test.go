package html

import (
	"flag"

	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// The fixtures below are eval/report's own test fixtures, which a test of
// another package cannot import.

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// hostileText has what XML 1.0 forbids (C0 controls, U+FFFE), what a
// terminal acts on (ESC, OSC, bidi) and what XML and workflow commands
// must escape (markup, a CDATA end, %, CR, LF, "::").
const hostileText = "a\x00b\x1b]0;pwned\x07 <b>&amp;</b> ]]> \u202e\uFFFE 100% \r\n::error ::x"

// ciReport is a run with every kind of (sample, metric): scored above and
// below the thresholds of ciGate, failed, not applicable, with hostile text
// in ids, statements, reasons and error messages.
func ciReport() *report.Report {
	f := func(v float64) *float64 { return &v }
	run := report.RunInfo{ID: "20261201-090000-ci", Dataset: "ci.jsonl", StartedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
		Judge: eval.JudgeInfo{Name: "offline"}, Metrics: eval.DefaultMetrics, Samples: 4}
	calls := []eval.CallRecord{{Task: "faithfulness_statements", LatencyMS: 1200}, {Task: "faithfulness_verdicts", LatencyMS: 300}, {Task: "embeddings", LatencyMS: 50}}
	return report.NewReport(run, []*eval.Result{
		{
			Index: 0, ID: "s0" + hostileText, Question: "q0", Answer: "a0",
			Scores: map[eval.Metric]*float64{eval.Faithfulness: f(0.25), eval.AnswerRelevancy: f(0.9)},
			Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.AnswerRelevancy: eval.StatusOK, eval.ContextPrecision: eval.StatusJudgeError, eval.ContextRecall: eval.StatusMissingInput},
			Errors: map[eval.Metric]string{eval.ContextPrecision: "429 " + hostileText},
			Faithfulness: &eval.FaithfulnessTrace{Statements: []eval.StatementVerdict{
				{Statement: "supported one", Verdict: 1, Reason: "stated"},
				{Statement: "unsupported " + hostileText, Verdict: 0, Reason: "not in the context " + hostileText},
			}, Supported: 1},
			Calls: calls,
		},
		{
			Index: 1, ID: "s1", Question: "q1", Answer: "a1",
			Scores: map[eval.Metric]*float64{eval.Faithfulness: f(0.875), eval.AnswerRelevancy: f(-0.125), eval.ContextPrecision: f(0.3), eval.ContextRecall: f(0.2)},
			Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.AnswerRelevancy: eval.StatusOK, eval.ContextPrecision: eval.StatusOK, eval.ContextRecall: eval.StatusOK},
			AnswerRelevancy: &eval.AnswerRelevancyTrace{Mode: "questions", Questions: []eval.GeneratedQuestion{
				{Question: "what is it?", Noncommittal: 1, Cosine: -0.1}, {Question: "who?", Cosine: 0.2}}},
			ContextPrecision: &eval.ContextPrecisionTrace{Chunks: []eval.ChunkVerdict{{Rank: 1, Verdict: 0, Reason: "off topic"}, {Rank: 2, Verdict: 1, Reason: "useful"}}},
			ContextRecall:    &eval.ContextRecallTrace{Classifications: []eval.Classification{{Statement: "the ID stays", Attributed: 0, Reason: "not retrieved"}}},
		},
		{
			Index: 2, Question: "q2", Answer: "a2",
			Scores: map[eval.Metric]*float64{eval.AnswerRelevancy: f(0.8), eval.ContextPrecision: f(1), eval.ContextRecall: f(1)},
			Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusNoStatements, eval.AnswerRelevancy: eval.StatusOK, eval.ContextPrecision: eval.StatusOK, eval.ContextRecall: eval.StatusOK},
		},
		{
			Index: 3, ID: "s3", Question: "q3", Answer: "a3",
			Scores: map[eval.Metric]*float64{eval.AnswerRelevancy: f(0.7)},
			Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusParseError, eval.AnswerRelevancy: eval.StatusOK},
			Errors: map[eval.Metric]string{eval.Faithfulness: "reply is not JSON"},
		},
	})
}

// bres is a result of sample index with id scoring faithfulness f (a
// status instead when f < 0: -1 judge_error, -2 no_statements).
func bres(index int, id, answer string, f float64) *eval.Result {
	r := &eval.Result{Index: index, ID: id, Question: "q " + answer, Answer: answer, Contexts: []string{"c"},
		Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{}}
	switch {
	case f == -1:
		r.Status[eval.Faithfulness] = eval.StatusJudgeError
	case f == -2:
		r.Status[eval.Faithfulness] = eval.StatusNoStatements
	default:
		r.Scores[eval.Faithfulness], r.Status[eval.Faithfulness] = &f, eval.StatusOK
	}
	return r
}

// turnResult is turn n of conversation conv with faithfulness f (nil: not
// scored) and answer relevancy 1.
func turnResult(index int, conv string, n int, f *float64) *eval.Result {
	ar := 1.0
	r := &eval.Result{Index: index, ID: conv + "#" + string(rune('0'+n)), ConversationID: conv, Turn: n, Question: "q", Answer: "a",
		Scores: map[eval.Metric]*float64{eval.Faithfulness: f, eval.AnswerRelevancy: &ar},
		Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.AnswerRelevancy: eval.StatusOK}}
	if f == nil {
		r.Status[eval.Faithfulness] = eval.StatusNoStatements
	}
	if n > 1 {
		r.Standalone = &eval.StandaloneTrace{Question: "standalone " + conv, Status: eval.StatusOK}
	} else {
		r.Standalone = &eval.StandaloneTrace{Status: eval.StatusUnsupported, Reason: "offline"}
	}
	return r
}

func fp(v float64) *float64 { return &v }

// tallyOf is the tally of results that are all at hand.
func tallyOf(metrics []eval.Metric, results []*eval.Result, levels report.Levels) *report.Tally {
	t := report.NewTallyAt(metrics, levels)
	for _, r := range results {
		t.Add(r)
	}
	return t
}

// each yields a report's samples, the stream the writers take.
func each(rep *report.Report) func(yield func(*eval.Result) error) error {
	return func(yield func(*eval.Result) error) error {
		for _, s := range rep.Samples {
			if s == nil {
				continue
			}
			if err := yield(s); err != nil {
				return err
			}
		}
		return nil
	}
}
