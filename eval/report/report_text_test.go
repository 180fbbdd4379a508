package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval"
)

const (
	hostileOSC52 = "\x1b]52;c;aGVsbG8=\x07"
	hostileRLO   = "\u202e"
)

// hostileReport is a run whose every text field carries what a dataset or
// a judge reply may carry: escape sequences, C0 and C1 controls, bidi
// overrides, zero-width characters, invalid UTF-8 and spreadsheet formulas.
func hostileReport() *Report {
	f := func(v float64) *float64 { return &v }
	start := time.Date(2026, 3, 14, 9, 26, 0, 0, time.UTC)
	run := RunInfo{
		ID:        "run" + hostileOSC52,
		Dataset:   "data/evil" + hostileOSC52 + hostileRLO + "lnosj.csv",
		StartedAt: start,
		Judge:     eval.JudgeInfo{Name: "gpt\x1b[2J", EmbeddingModel: "emb\u200b"},
		Metrics:   eval.DefaultMetrics,
		Samples:   3,
	}
	samples := []*eval.Result{
		{
			Index: 0, ID: "id\x1b[31m|red" + hostileRLO,
			Question: "=HYPERLINK(\"http://evil\",\"click\")\nWho\u009b2J wrote it?",
			Answer:   "@SUM(1+1)*cmd|' /C calc'!A0\x00\x7f\xff",
			Scores:   map[eval.Metric]*float64{eval.Faithfulness: f(0), eval.AnswerRelevancy: f(-0.125)},
			Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.AnswerRelevancy: eval.StatusOK,
				eval.ContextPrecision: eval.StatusJudgeError, eval.ContextRecall: eval.StatusMissingInput},
			Errors: map[eval.Metric]string{eval.ContextPrecision: "judge said \x1b]0;pwned\x07\tno"},
			Faithfulness: &eval.FaithfulnessTrace{Statements: []eval.StatementVerdict{
				{Statement: "Bob\u2066 wrote it", Verdict: 0, Reason: "not in the context\x1b[8m hidden"},
			}},
		},
		{
			Index: 1, ID: "-2+3+cmd|' /C calc'!A0",
			Question: "+1 is a number\u200d?", Answer: "plain",
			Scores: map[eval.Metric]*float64{eval.Faithfulness: f(0.5)},
			Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK},
			Faithfulness: &eval.FaithfulnessTrace{Statements: []eval.StatementVerdict{
				{Statement: "it is" + hostileRLO, Verdict: 0, Reason: "reason\r\nover two lines\ufeff"},
			}},
		},
		{
			Index: 2, ID: "plain", Question: "小规模纳税人转为一般纳税人后，纳税人识别号会变吗？", Answer: "不会变。",
			Scores: map[eval.Metric]*float64{eval.Faithfulness: f(1)},
			Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK},
		},
	}
	return NewReport(run, samples)
}

// unsafeRune is what a terminal would act on or hide; '\n' is allowed
// when lines is true.
func unsafeRune(r rune, lines bool) bool {
	return (r < 0x20 && !(lines && r == '\n')) || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
		r == 0x061c || (r >= 0x200b && r <= 0x200f) || (r >= 0x2028 && r <= 0x202e) ||
		(r >= 0x2060 && r <= 0x206f) || r == 0xfeff
}

func requireClean(t *testing.T, what, s string, lines bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("%s: invalid UTF-8: %q", what, s)
	}
	for i, r := range s {
		if unsafeRune(r, lines) {
			t.Fatalf("%s: %U at byte %d: %q", what, r, i, s)
		}
	}
}

func TestMarkdownReportOfHostileText(t *testing.T) {
	var b bytes.Buffer
	if err := hostileReport().WriteMarkdown(&b, 10); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	requireClean(t, "markdown", md, true)
	for _, want := range []string{
		`# ragscope run run\x1b]52;c;aGVsbG8=\x07`,
		"- dataset: `data/evil\\x1b]52;c;aGVsbG8=\\x07<U+202E>lnosj.csv` (3 samples)",
		`- judge: gpt\x1b[2J (embeddings: emb<U+200B>)`,
		`| 0 | id\x1b[31m\|red<U+202E> | =HYPERLINK("http://evil","click") Who\u009b2J wrote it? |`,
		`context_precision: judge said \x1b]0;pwned\x07 no`,
		`| 1 | -2+3+cmd\|' /C calc'!A0 | +1 is a number<U+200D>? |`,
		`unsupported: "it is\u202e": reason over two lines<U+FEFF>`,
		`| 2 | plain | 小规模纳税人转为一般纳税人后，纳税人识别号会变吗？ |`,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	// One table row per sample: no field broke a row.
	rows := 0
	for _, l := range strings.Split(md, "\n") {
		if len(l) > 2 && l[0] == '|' && l[2] >= '0' && l[2] <= '9' && strings.Count(strings.ReplaceAll(l, `\|`, ""), "|") == 10 {
			rows++
		}
	}
	if rows != 3 {
		t.Fatalf("%d well-formed sample rows, want 3:\n%s", rows, md)
	}
}

func TestCSVReportOfHostileText(t *testing.T) {
	var b bytes.Buffer
	if err := hostileReport().WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	// One line per record: every newline in the data is escaped.
	if n := strings.Count(b.String(), "\n"); n != 4 {
		t.Fatalf("%d lines, want the header and 3 rows:\n%s", n, b.String())
	}
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range recs {
		for j, cell := range rec {
			requireClean(t, "csv cell", cell, false)
			if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) && cell != "-0.1250" {
				t.Errorf("row %d cell %d starts a formula: %q", i, j, cell)
			}
		}
	}
	row := recs[1]
	for col, want := range map[int]string{
		1:  `id\x1b[31m|red<U+202E>`,
		2:  `'=HYPERLINK("http://evil","click")\nWho\u009b2J wrote it?`,
		3:  `'@SUM(1+1)*cmd|' /C calc'!A0\x00\x7f\xff`,
		4:  "0.0000",
		5:  "-0.1250", // a negative score is a number, not a formula
		6:  "",
		13: `context_precision: judge said \x1b]0;pwned\x07\tno`,
		14: `gpt\x1b[2J`,
	} {
		if row[col] != want {
			t.Errorf("row 1 column %d (%s) = %q, want %q", col, recs[0][col], row[col], want)
		}
	}
	if got := recs[2][1]; got != `'-2+3+cmd|' /C calc'!A0` {
		t.Errorf("id cell %q, want the formula quoted", got)
	}
	if got := recs[2][2]; got != `'+1 is a number<U+200D>?` {
		t.Errorf("question cell %q", got)
	}
	if got := recs[3][2]; got != "小规模纳税人转为一般纳税人后，纳税人识别号会变吗？" {
		t.Errorf("plain question changed: %q", got)
	}
}

// TestJSONReportIsExact: the JSON report is data, not display; it keeps
// every string exactly (encoding/json escapes what JSON must).
func TestJSONReportIsExact(t *testing.T) {
	rep := hostileReport()
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(b.Bytes(), "\x1b\x07\x00") {
		t.Fatalf("raw control bytes in the JSON:\n%s", b.String())
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Run.Dataset != rep.Run.Dataset || back.Run.ID != rep.Run.ID || back.Samples[0].ID != rep.Samples[0].ID ||
		back.Samples[0].Question != rep.Samples[0].Question || back.Samples[0].Errors[eval.ContextPrecision] != rep.Samples[0].Errors[eval.ContextPrecision] {
		t.Fatalf("the JSON report does not round-trip the texts:\n%s", b.String())
	}
}

// A run without context utilization keeps the four metrics' columns (a
// script reads any report by position); one with it gains its score and
// status columns after context recall's, and the Markdown's CU column.
func TestReportColumnsOfContextUtilization(t *testing.T) {
	v := 0.75
	res := &eval.Result{Index: 0, ID: "s", Question: "q", Answer: "a", Contexts: []string{"c"},
		Scores: map[eval.Metric]*float64{eval.ContextUtilization: &v}, Status: map[eval.Metric]eval.Status{eval.ContextUtilization: eval.StatusOK},
		ContextUtilization: &eval.ContextPrecisionTrace{Chunks: []eval.ChunkVerdict{{Rank: 1, Verdict: 1, Reason: "used"}}, Precisions: []float64{1}}}
	for _, tc := range []struct {
		metrics []eval.Metric
		head    string
	}{
		{eval.DefaultMetrics, "index,id,question,answer,faithfulness,answer_relevancy,context_precision,context_recall,faithfulness_status,answer_relevancy_status,context_precision_status,context_recall_status,diagnosis,errors,judge"},
		{[]eval.Metric{eval.Faithfulness, eval.ContextUtilization}, "index,id,question,answer,faithfulness,answer_relevancy,context_precision,context_recall,context_utilization,faithfulness_status,answer_relevancy_status,context_precision_status,context_recall_status,context_utilization_status,diagnosis,errors,judge"},
	} {
		rep := NewReport(RunInfo{ID: "r", Metrics: tc.metrics}, []*eval.Result{res})
		var b strings.Builder
		if err := rep.WriteCSV(&b); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(b.String(), "\n")
		if lines[0] != tc.head {
			t.Errorf("metrics %v: head\n%s\nwant\n%s", tc.metrics, lines[0], tc.head)
		}
		var md strings.Builder
		if err := rep.WriteMarkdown(&md, 5); err != nil {
			t.Fatal(err)
		}
		withCU := slices.Contains(tc.metrics, eval.ContextUtilization)
		if got := strings.Contains(md.String(), "| CR | CU | diagnosis |"); got != withCU {
			t.Errorf("metrics %v: Markdown CU column %v:\n%s", tc.metrics, got, md.String())
		}
		if withCU && !strings.Contains(lines[1], ",0.7500,ok,") && !strings.Contains(lines[1], ",0.7500,,") {
			t.Errorf("row %s lacks the utilization score", lines[1])
		}
	}
	var js strings.Builder
	if err := WriteSampleJSON(&js, res, Levels{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"context_utilization": {`) || !strings.Contains(js.String(), `"reason": "used"`) {
		t.Errorf("JSON sample lacks the utilization trace:\n%s", js.String())
	}
}
