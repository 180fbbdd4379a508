package html

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// htmlHostile is what a dataset or a judge could put in a text to make a
// page run script, load something or reorder what a reader sees.
const htmlHostile = `<script>alert(1)</script><img src=x onerror=alert(2)><a href="javascript:alert(3)">x</a>` +
	`" onmouseover="alert(4)" ' </script><script>alert(5)</script></style><style>*{}</style>` +
	"<!-- \u202egnp.exe\u2066 --> ]]> &amp; {{.}} javascript:alert(6) \x1b]0;t\x07"

func writeHTML(t *testing.T, rep *report.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, rep.Run, rep.Summary, tallyOf(nil, rep.Samples, report.RunLevels(rep.Run)).Diagnoses(), each(rep), nil); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// htmlReport is ciReport with a sample of every other metric's trace and
// criteria of each kind, all in a run of every metric.
func htmlReport() *report.Report {
	f := func(v float64) *float64 { return &v }
	rep := ciReport()
	rep.Run.Metrics = eval.AllMetrics
	level := 3
	sim := 0.8
	all := &eval.Result{
		Index: 4, ID: "zh-taxpayer-id", Question: "纳税人识别号会变吗？", Answer: "会的，需要重新办理税务登记。",
		Contexts: []string{"纳税人识别号保持不变，无需重新办理税务登记。", "second\nchunk"}, Reference: "不会。",
		Scores: map[eval.Metric]*float64{eval.Faithfulness: f(0), eval.ContextUtilization: f(0.5), eval.AnswerSimilarity: f(0.7), eval.AnswerCorrectness: f(0.4),
			eval.FactualCorrectness: f(0.5), eval.ContextEntityRecall: f(0.5), eval.NoiseSensitivity: f(0.5), "tone": f(1), "steps": f(0.5), "cites": f(1), "pii": f(0)},
		Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.ContextUtilization: eval.StatusOK, eval.AnswerSimilarity: eval.StatusOK, eval.AnswerCorrectness: eval.StatusOK,
			eval.FactualCorrectness: eval.StatusOK, eval.ContextEntityRecall: eval.StatusOK, eval.NoiseSensitivity: eval.StatusOK, "tone": eval.StatusOK, "steps": eval.StatusOK, "cites": eval.StatusOK, "pii": eval.StatusOK},
		Faithfulness: &eval.FaithfulnessTrace{Statements: []eval.StatementVerdict{{Statement: "会的", Verdict: 0, Reason: "the chunk says it stays",
			Evidence: &eval.Citation{Chunk: 1, Quote: "纳税人识别号保持不变"}}}},
		ContextUtilization: &eval.ContextPrecisionTrace{Chunks: []eval.ChunkVerdict{{Rank: 1, Verdict: 1, Reason: "used"}, {Rank: 2, Verdict: 0, Reason: "unused"}}, Precisions: []float64{1, 0.5}},
		AnswerSimilarity:   &eval.AnswerSimilarityTrace{Cosine: 0.7},
		AnswerCorrectness: &eval.AnswerCorrectnessTrace{Classes: eval.CorrectnessClasses{
			TP: []eval.CorrectnessItem{{Statement: "a", Reason: "in the reference"}}, FN: []eval.CorrectnessItem{{Statement: "b", Reason: "missing"}}},
			FScore: 0.667, Similarity: &sim, Weights: [2]float64{0.75, 0.25}},
		FactualCorrectness: &eval.FactualCorrectnessTrace{Mode: "f1", Beta: 1,
			AnswerClaims:    []eval.StatementVerdict{{Statement: "c1", Verdict: 1, Reason: "entailed"}, {Statement: "c2", Verdict: 0, Reason: "not"}},
			ReferenceClaims: []eval.StatementVerdict{{Statement: "r1", Verdict: 1}}, TP: 1, FP: 1, FN: 0},
		ContextEntityRecall: &eval.EntityRecallTrace{Reference: []eval.EntityMatch{{Entity: "VAT", Found: true, Match: "vat"}, {Entity: "IRS"}},
			Contexts: []string{"vat", "税务局"}, Found: 1},
		NoiseSensitivity: &eval.NoiseSensitivityTrace{Mode: "relevant", ReferenceStatements: []string{"ref one"},
			Chunks:     []eval.NoiseChunk{{Rank: 1, Relevant: true, Reference: []eval.StatementVerdict{{Verdict: 1}}, Answer: []eval.StatementVerdict{{Verdict: 1}, {Verdict: 0}}}},
			Statements: []eval.NoiseStatement{{Statement: "s1", Correct: true, Relevant: []int{1}}, {Statement: "s2", Relevant: []int{1}, Noise: "relevant"}},
			Relevant:   1},
		Criteria: map[string]*criteria.Trace{
			"tone":   {Draws: []criteria.Draw{{Verdict: 1, Reason: "polite", Quote: "会的"}, {Verdict: 0, Reason: "curt"}, {Verdict: 1, Reason: "fine"}}},
			"steps":  {Items: []criteria.ItemVerdict{{Item: "names the form", Verdict: 0, Reason: "no form"}, {Item: "says where", Verdict: 1, Reason: "主管税务机关", Quote: "主管税务机关"}}},
			"rubric": {Level: &level, Description: "mostly right", Reason: "one slip", Quote: "会的"},
			// A match passes a regex, fails pii unless a chunk holds it.
			"cites": {Matches: []criteria.Match{{Text: "第12条", What: "pattern"}}},
			"pii":   {Matches: []criteria.Match{{Text: "13800000000", What: "phone"}, {Text: "010-12345678", What: "phone", InContext: true}}},
		},
		Calls: []eval.CallRecord{{Task: "faithfulness_statements", Cached: true}, {Task: "context_utilization_verdict", Error: "timeout"}},
	}
	rep.Samples = append(rep.Samples, all)
	rep.Summary = tallyOf(rep.Run.Metrics, rep.Samples, report.Levels{}).Summary()
	return rep
}

// The HTML report of a run with every metric's trace and criteria: the
// bytes are the golden file's.
func TestHTMLReportGolden(t *testing.T) {
	data := writeHTML(t, htmlReport())
	golden := filepath.Join("testdata", "report.html")
	if *update {
		if err := os.WriteFile(golden, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./eval/report/html -run TestHTMLReportGolden -update writes it)", err)
	}
	if data != string(want) {
		t.Errorf("HTML report differs from %s (-update rewrites it)", golden)
	}
	for _, want := range []string{
		`<meta charset="utf-8">`,
		"纳税人识别号会变吗？",
		// Each drill-down as the detail page has it: verdicts, reasons,
		// evidence and the formulas with their numbers.
		"1 of 2 statements supported = 0.500",
		"not in the context",
		"mean(-0.100, 0.200) = 0.050",
		"average precision = (1.000) / 1 useful = 1.000",
		"0 of 1 reference statements attributed = 0.000",
		"F1 = 2*TP / (2*TP + FP + FN) = 2*1 / (2*1 + 0 + 1) = 0.667",
		"entity recall = |found| / |reference entities| = 1/2 = 0.500",
		"noise sensitivity (relevant) = 1/2 = 0.500 (lower is better)",
		"2 of 3 draws say yes: the majority decides",
		"1 of 2 items passed = 0.500",
		"level 3: mostly right",
		"call context_utilization_verdict: timeout",
		`<li class="item-ok"><span class="mk ok">✓</span><span class="lead">pattern</span><span class="t">第12条</span>`,
		`<li class="item-no"><span class="mk no">✗</span><span class="lead">phone</span><span class="t">13800000000</span>`,
		`<li class="item-ok"><span class="mk ok">✓</span><span class="lead">phone</span><span class="t">010-12345678</span> <span class="warn">[in a chunk too: allowed]</span>`,
		// The quote a verdict cites, marked in its chunk.
		"<li><mark>纳税人识别号保持不变</mark>，无需重新办理税务登记。</li>",
	} {
		if !strings.Contains(html.UnescapeString(data), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

// fillStrings sets every string reachable from v (fields, slice and
// pointer elements; slices get two elements) to s, and every int to 1.
func fillStrings(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fillStrings(v.Elem(), s)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Float64 {
			v.Set(reflect.ValueOf([]float64{0.5, 1}))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fillStrings(v.Index(i), s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillStrings(v.Field(i), s)
			}
		}
	}
}

// hostileResult is a result with the hostile text in every field, every
// metric scored, failed or not computable, and a criterion of each kind.
func hostileResult(i int, metrics []eval.Metric) *eval.Result {
	r := &eval.Result{}
	fillStrings(reflect.ValueOf(r).Elem(), htmlHostile)
	r.Index = i
	r.AnswerRelevancy.Mode = "questions"
	// A call whose reasoning the faithfulness section shows.
	r.Calls[0].Task, r.Calls[0].Error = eval.LabelFaithfulness, ""
	r.Scores, r.Status, r.Errors = map[eval.Metric]*float64{}, map[eval.Metric]eval.Status{}, map[eval.Metric]string{}
	for k, m := range metrics {
		v := float64(k) / 10
		switch k % 3 {
		case 0:
			r.Scores[m], r.Status[m] = &v, eval.StatusOK
		case 1:
			r.Status[m], r.Errors[m] = eval.StatusJudgeError, htmlHostile
		default:
			r.Status[m] = eval.StatusMissingInput
		}
	}
	tr := &criteria.Trace{}
	fillStrings(reflect.ValueOf(tr).Elem(), htmlHostile)
	r.Criteria = map[string]*criteria.Trace{htmlHostile: tr}
	r.Status[htmlHostile], r.Errors[htmlHostile] = eval.StatusParseError, htmlHostile
	return r
}

var (
	htmlTag  = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>`)
	htmlAttr = regexp.MustCompile(`([a-zA-Z-]+)=("[^"]*"|'[^']*'|[^\s"'>]+)`)
)

// htmlTags are the elements the page's own markup uses.
var htmlTags = []string{"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "dl", "dt", "dd", "div", "section",
	"b", "span", "svg", "line", "rect", "text", "p", "input", "select", "option", "table", "thead", "tbody", "tr", "th", "td",
	"details", "summary", "ol", "ul", "li", "mark", "footer", "script", "a"}

// htmlOwnLink is the only link the page makes: a conversation's first
// failing turn to that sample's drill-down, by its index.
var htmlOwnLink = regexp.MustCompile(`^"#s[0-9]+"$`)

// Hostile text in every field of the run and its samples reaches the page
// as text: no element or attribute of its own, no script, no URL, no bidi
// control, no control character; the escapes a terminal shows are shown.
func TestHTMLReportHostile(t *testing.T) {
	run := report.RunInfo{ID: htmlHostile, Dataset: htmlHostile, Judge: eval.JudgeInfo{Name: htmlHostile, EmbeddingModel: htmlHostile},
		Metrics: eval.AllMetrics, Samples: 2, Config: map[string]string{report.LevelsConfigKey: htmlHostile}}
	rep := report.NewReport(run, []*eval.Result{hostileResult(0, eval.AllMetrics), hostileResult(1, eval.AllMetrics)})
	// The offline judge's trace of answer relevancy as well.
	rep.Samples[1].AnswerRelevancy.Mode = eval.AnswerSimilarityMode
	out := writeHTML(t, rep)

	if n, m := strings.Count(out, "<script"), strings.Count(out, "</script"); n != 1 || m != 1 {
		t.Fatalf("%d <script and %d </script: only the page's own may be there", n, m)
	}
	script := out[strings.Index(out, "<script>"):strings.Index(out, "</script>")]
	if strings.Contains(script, "alert") {
		t.Fatalf("data in the script:\n%s", script)
	}
	if strings.Contains(out, "<!--") || strings.Contains(out, "]]>") {
		t.Fatal("a comment or CDATA end from the data is in the page")
	}
	for _, m := range htmlTag.FindAllStringSubmatch(out, -1) {
		if !slices.Contains(htmlTags, strings.ToLower(m[2])) {
			t.Errorf("element <%s%s> is not the page's", m[1], m[2])
		}
		for _, a := range htmlAttr.FindAllStringSubmatch(m[3], -1) {
			name, val := strings.ToLower(a[1]), strings.ToLower(a[2])
			if name == "href" && htmlOwnLink.MatchString(a[2]) {
				continue
			}
			if strings.HasPrefix(name, "on") || name == "href" || name == "src" || name == "style" || name == "action" {
				t.Errorf("attribute %s in %s", name, m[0])
			}
			if strings.Contains(val, "javascript:") || strings.Contains(val, "alert") {
				t.Errorf("data in attribute %s of %s", name, m[0])
			}
		}
	}
	if !utf8.ValidString(out) {
		t.Fatal("invalid UTF-8")
	}
	for i, r := range out {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) || sanitize.IsInvisible(r) {
			t.Fatalf("%U at byte %d", r, i)
		}
	}
	for _, want := range []string{
		"&lt;script&gt;alert(1)&lt;/script&gt;",
		"&lt;img src=x onerror=alert(2)&gt;",
		"&lt;U&#43;202E&gt;gnp.exe&lt;U&#43;2066&gt;",
		`\x1b]0;t\x07`,
		"javascript:alert(6)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the hostile text is not shown as text: %q missing", want)
		}
	}
	// Every sample made it, with its drill-down.
	if n := strings.Count(out, "<details id="); n != 2 {
		t.Errorf("%d drill-downs, want 2", n)
	}
}

// countWriter counts what is written and keeps nothing.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// The page of a 100,000-sample run is written in the memory of a few
// samples: the live heap, measured every tenth of the run (after a GC)
// while the page is written, stays under a bound that holding the
// samples or the page would break many times over. Under the race
// detector, which makes the page take many minutes, 10,000 samples: the
// page alone would still break the bound.
func TestHTMLReportBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 samples: skipped under -short")
	}
	n := 100_000
	if raceEnabled {
		n = 10_000
	}
	f := 0.5
	run := report.RunInfo{ID: "big", Metrics: eval.DefaultMetrics, Samples: n}
	each := func(yield func(*eval.Result) error) error {
		for i := range n {
			r := &eval.Result{Index: i, ID: fmt.Sprintf("s%d", i), Question: strings.Repeat("问题", 10), Answer: strings.Repeat("回答", 20),
				Contexts: []string{strings.Repeat("片段", 40)},
				Scores:   map[eval.Metric]*float64{eval.Faithfulness: &f}, Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK},
				Faithfulness: &eval.FaithfulnessTrace{Statements: []eval.StatementVerdict{{Statement: "s", Verdict: 1, Reason: "r"}}, Supported: 1}}
			if err := yield(r); err != nil {
				return err
			}
		}
		return nil
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, uint64(0)
	seen := 0
	measured := func(yield func(*eval.Result) error) error {
		return each(func(r *eval.Result) error {
			if seen++; seen%(n/10) == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
			return yield(r)
		})
	}
	var w countWriter
	if err := Write(&w, run, map[eval.Metric]report.MetricSummary{}, map[report.Diagnosis]int{}, measured, nil); err != nil {
		t.Fatal(err)
	}
	grew := max(int64(peak)-int64(base), 0)
	t.Logf("%d samples, %d MiB of HTML, live heap grew at most %d KiB", n, w.n>>20, grew>>10)
	if limit := int64(8 << 20); grew > limit || w.n < int64(n)*1000 {
		t.Fatalf("live heap grew %d bytes writing %d bytes of HTML (limit %d)", grew, w.n, limit)
	}
}
