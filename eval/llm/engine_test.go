package llm_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/report"
)

var (
	onlyF  = []eval.Metric{eval.Faithfulness}
	onlyAR = []eval.Metric{eval.AnswerRelevancy}
	onlyCP = []eval.Metric{eval.ContextPrecision}
	onlyCR = []eval.Metric{eval.ContextRecall}
	onlyCU = []eval.Metric{eval.ContextUtilization}
)

func TestFaithfulnessFormula(t *testing.T) {
	cases := []struct {
		name     string
		stmts    []string
		verdicts []int
		want     float64
		status   eval.Status
	}{
		{"two of three", []string{"s-alpha one", "s-alpha two", "s-alpha three"}, []int{1, 0, 1}, 2.0 / 3, eval.StatusOK},
		{"all supported", []string{"s-beta one"}, []int{1}, 1, eval.StatusOK},
		{"none supported", []string{"s-gamma one", "s-gamma two"}, []int{0, 0}, 0, eval.StatusOK},
		{"zero statements", []string{}, nil, 0, eval.StatusNoStatements},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrain()
			answer := "ANSWER-" + strings.ReplaceAll(tc.name, " ", "-")
			b.statements[answer] = tc.stmts
			if len(tc.stmts) > 0 {
				b.verdicts[tc.stmts[0]] = tc.verdicts
			}
			st := newStack(t, b, stackOpt{})
			res := st.run(t, context.Background(), onlyF, eval.Sample{Question: "q?", Answer: answer, Contexts: []string{"some context"}})[0]
			if got := res.Status[eval.Faithfulness]; got != tc.status {
				t.Fatalf("status %s, want %s (%s)", got, tc.status, res.Errors[eval.Faithfulness])
			}
			if tc.status != eval.StatusOK {
				if res.Scores[eval.Faithfulness] != nil {
					t.Fatalf("a %s metric must have no score", tc.status)
				}
				return
			}
			if got := score(t, res, eval.Faithfulness); !near(got, tc.want) {
				t.Fatalf("faithfulness %v, want %v", got, tc.want)
			}
			tr := res.Faithfulness
			if len(tr.Statements) != len(tc.stmts) || tr.Statements[1%len(tc.stmts)].Statement != tc.stmts[1%len(tc.stmts)] {
				t.Fatalf("trace does not keep the statements sent: %+v", tr.Statements)
			}
			if tr.Statements[0].Reason != "reason 1" {
				t.Fatalf("reason not kept: %+v", tr.Statements[0])
			}
		})
	}
}

func TestFaithfulnessVerdictCount(t *testing.T) {
	stmts := []string{"s-delta one", "s-delta two", "s-delta three"}
	cases := []struct {
		name   string
		first  []int
		retry  []int
		want   float64
		status eval.Status
		calls  int
	}{
		{"right length first time", []int{1, 1, 0}, nil, 2.0 / 3, eval.StatusOK, 1},
		{"fixed when re-asked", []int{1, 1}, []int{1, 0, 0}, 1.0 / 3, eval.StatusOK, 2},
		{"still wrong after re-ask", []int{1, 1}, []int{1, 1, 1, 1}, 0, eval.StatusParseError, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrain()
			b.statements["ANSWER-delta"] = stmts
			b.verdicts[stmts[0]] = tc.first
			if tc.retry != nil {
				b.verdictsRetry[stmts[0]] = tc.retry
			}
			st := newStack(t, b, stackOpt{})
			res := st.run(t, context.Background(), onlyF, eval.Sample{Question: "q?", Answer: "ANSWER-delta", Contexts: []string{"ctx"}})[0]
			if got := res.Status[eval.Faithfulness]; got != tc.status {
				t.Fatalf("status %s, want %s (%s)", got, tc.status, res.Errors[eval.Faithfulness])
			}
			if n := st.srv.Count("faithfulness_verdicts"); n != tc.calls {
				t.Fatalf("%d verdict calls, want %d", n, tc.calls)
			}
			if tc.status == eval.StatusOK {
				if got := score(t, res, eval.Faithfulness); !near(got, tc.want) {
					t.Fatalf("faithfulness %v, want %v", got, tc.want)
				}
				return
			}
			if msg := res.Errors[eval.Faithfulness]; !strings.Contains(msg, "3 statements were sent") {
				t.Fatalf("error does not explain the mismatch: %q", msg)
			}
		})
	}
}

// A judge that echoes every statement as sent but answers them in another
// order is read by its echoes; one that answers a statement twice and
// another not at all is asked again, then a parse_error: never a verdict
// given to the wrong statement.
func TestFaithfulnessVerdictsFollowTheirEchoes(t *testing.T) {
	stmts := []string{"s-eps one is supported", "s-eps two is not", "s-eps three is supported"}
	item := func(st string, v int) map[string]any {
		return map[string]any{"statement": st, "reason": "about " + st, "verdict": v}
	}
	cases := []struct {
		name   string
		items  []map[string]any
		want   []int // verdict per statement sent
		status eval.Status
	}{
		{"reversed, each echoed", []map[string]any{item(stmts[2], 1), item(strings.ToUpper(stmts[1]), 0), item(stmts[0], 1)}, []int{1, 0, 1}, eval.StatusOK},
		{"in order, paraphrased", []map[string]any{item("first", 1), item("second", 0), item("third", 1)}, []int{1, 0, 1}, eval.StatusOK},
		{"one answered twice", []map[string]any{item(stmts[0], 1), item(stmts[0], 1), item(stmts[2], 1)}, nil, eval.StatusParseError},
		{"out of order, one paraphrased", []map[string]any{item(stmts[1], 0), item("the first", 1), item(stmts[2], 1)}, nil, eval.StatusParseError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrain()
			answer := "ANSWER-eps-" + strings.ReplaceAll(tc.name, " ", "-")
			b.statements[answer] = stmts
			b.override = func(r *fakejudge.Request, _ int) (fakejudge.Reply, bool) {
				if r.Task != "faithfulness_verdicts" {
					return fakejudge.Reply{}, false
				}
				return fakejudge.Reply{Choices: []string{fakejudge.JSON(map[string]any{"statements": tc.items})}}, true
			}
			st := newStack(t, b, stackOpt{})
			res := st.run(t, context.Background(), onlyF, eval.Sample{Question: "q?", Answer: answer, Contexts: []string{"ctx"}})[0]
			if got := res.Status[eval.Faithfulness]; got != tc.status {
				t.Fatalf("status %s, want %s (%s)", got, tc.status, res.Errors[eval.Faithfulness])
			}
			if tc.status != eval.StatusOK {
				if msg := res.Errors[eval.Faithfulness]; !strings.Contains(msg, "statement") {
					t.Fatalf("the error does not say what is wrong: %q", msg)
				}
				return
			}
			for i, v := range res.Faithfulness.Statements {
				if v.Statement != stmts[i] || v.Verdict != tc.want[i] {
					t.Errorf("statement %d: %q verdict %d, want %q verdict %d", i, v.Statement, v.Verdict, stmts[i], tc.want[i])
				}
				if strings.HasPrefix(fmt.Sprint(tc.items[0]["statement"]), "s-eps") && !strings.EqualFold(v.Reason, "about "+stmts[i]) {
					t.Errorf("statement %d carries the reason %q", i, v.Reason)
				}
			}
		})
	}
}

func TestAnswerRelevancyFormula(t *testing.T) {
	// Hand-made embeddings: cos(q, Q0) = 1, cos(q, Q1) = 0, cos(q, Q2) = 0.6.
	vectors := map[string][]float32{
		"what is AR?":           {1, 0},
		"Q0 about ANSWER-ar":    {1, 0},
		"Q1 about ANSWER-ar":    {0, 1},
		"Q2 about ANSWER-ar":    {0.6, 0.8},
		"Q0 about ANSWER-ar-nc": {1, 0},
		"Q1 about ANSWER-ar-nc": {0, 1},
		"Q2 about ANSWER-ar-nc": {0.6, 0.8},
	}
	cases := []struct {
		name    string
		answer  string
		flags   []int
		want    float64
		allNC   bool
		ignoreN bool
		noN     bool
		// refuses: OpenAI's reasoning models refuse a temperature but
		// their own and several choices, each with a 400 naming it.
		refuses bool
	}{
		{"none noncommittal", "ANSWER-ar", []int{0, 0, 0}, 1.6 / 3, false, false, false, false},
		{"one noncommittal keeps the mean", "ANSWER-ar", []int{0, 1, 0}, 1.6 / 3, false, false, false, false},
		{"all noncommittal zeroes it", "ANSWER-ar-nc", []int{1, 1, 1}, 0, true, false, false, false},
		{"endpoint ignores n", "ANSWER-ar", []int{0, 0, 0}, 1.6 / 3, false, true, false, false},
		{"separate draws", "ANSWER-ar", []int{0, 0, 0}, 1.6 / 3, false, false, true, false},
		{"temperature and n refused", "ANSWER-ar", []int{0, 0, 0}, 1.6 / 3, false, false, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrain()
			b.questions[tc.answer] = tc.flags
			b.ignoreN = tc.ignoreN
			if tc.refuses {
				b.override = func(r *fakejudge.Request, _ int) (fakejudge.Reply, bool) {
					refuse := func(param, msg string) (fakejudge.Reply, bool) {
						return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"` + msg + `","type":"invalid_request_error","param":"` + param + `","code":"unsupported_value"}}`}, true
					}
					if temp, ok := r.Raw["temperature"]; ok {
						return refuse("temperature", fmt.Sprintf("Unsupported value: 'temperature' does not support %v with this model. Only the default (1) value is supported.", temp))
					}
					if n, ok := r.Raw["n"].(float64); ok && n > 1 {
						return refuse("n", fmt.Sprintf("Unsupported value: 'n' does not support %v with this model.", n))
					}
					return fakejudge.Reply{}, false
				}
			}
			st := newStack(t, b, stackOpt{noN: tc.noN})
			st.srv.Set(func(s *fakejudge.Server) {
				s.Embed = func(text string) []float32 {
					v, ok := vectors[text]
					if !ok {
						t.Errorf("unexpected text embedded: %q", text)
						return []float32{1, 1}
					}
					return v
				}
			})
			res := st.run(t, context.Background(), onlyAR, eval.Sample{Question: "what is AR?", Answer: tc.answer, Contexts: []string{"c"}})[0]
			if got := score(t, res, eval.AnswerRelevancy); !near(got, tc.want) && !(got-tc.want < 1e-6 && tc.want-got < 1e-6) {
				t.Fatalf("answer relevancy %v, want %v", got, tc.want)
			}
			tr := res.AnswerRelevancy
			if len(tr.Questions) != 3 || tr.AllNoncommittal != tc.allNC {
				t.Fatalf("trace %+v", tr)
			}
			wantCos := []float64{1, 0, 0.6}
			for i, q := range tr.Questions {
				if d := q.Cosine - wantCos[i]; d > 1e-6 || d < -1e-6 {
					t.Fatalf("question %d cosine %v, want %v", i, q.Cosine, wantCos[i])
				}
			}
			// Draws must differ: never one reply reused three times.
			seen := map[string]bool{}
			for _, q := range tr.Questions {
				seen[q.Question] = true
			}
			if len(seen) != 3 {
				t.Fatalf("draws are not distinct: %+v", tr.Questions)
			}
			reqs := st.srv.Count("answer_relevancy_question")
			switch {
			case tc.noN && reqs != 3, tc.ignoreN && reqs != 3, tc.refuses && reqs != 5, !tc.noN && !tc.ignoreN && !tc.refuses && reqs != 1:
				t.Fatalf("%d question requests", reqs)
			}
			// One embeddings request per sample: the question and all generated questions.
			if batches := st.srv.EmbedBatches(); len(batches) != 1 || len(batches[0]) != 4 {
				t.Fatalf("embedding batches %v, want one batch of 4", batches)
			}
		})
	}
}

func TestContextPrecisionFormula(t *testing.T) {
	cases := []struct {
		name     string
		verdicts []int
		want     float64
	}{
		{"0101", []int{0, 1, 0, 1}, 0.5},
		{"100", []int{1, 0, 0}, 1.0},
		{"011", []int{0, 1, 1}, (0.5 + 2.0/3) / 2},
		{"000", []int{0, 0, 0}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrain()
			var chunks []string
			for i, v := range tc.verdicts {
				c := fmt.Sprintf("CHUNK-%s-%d unique passage", tc.name, i)
				chunks = append(chunks, c)
				b.chunks[c] = v
			}
			st := newStack(t, b, stackOpt{})
			res := st.run(t, context.Background(), onlyCP, eval.Sample{Question: "q?", Answer: "a", Contexts: chunks, Reference: "ref"})[0]
			if got := score(t, res, eval.ContextPrecision); !near(got, tc.want) {
				t.Fatalf("context precision %v, want %v", got, tc.want)
			}
			for k, c := range res.ContextPrecision.Chunks {
				if c.Rank != k+1 || c.Verdict != tc.verdicts[k] {
					t.Fatalf("chunk %d: %+v", k, c)
				}
			}
		})
	}
}

// Context utilization: one context_utilization_verdict call per chunk,
// judged against the answer (no reference needed), scored by context
// precision's formula; the values are computed by hand.
func TestContextUtilizationFormula(t *testing.T) {
	cases := []struct {
		name     string
		verdicts []int
		want     float64
	}{
		{"101", []int{1, 0, 1}, (1 + 2.0/3) / 2},
		{"0011", []int{0, 0, 1, 1}, (1.0/3 + 2.0/4) / 2},
		{"00", []int{0, 0}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrain()
			var chunks []string
			for i, v := range tc.verdicts {
				c := fmt.Sprintf("CHUNK-U-%s-%d unique passage", tc.name, i)
				chunks = append(chunks, c)
				b.used[c] = v
			}
			st := newStack(t, b, stackOpt{})
			res := st.run(t, context.Background(), onlyCU, eval.Sample{Question: "q?", Answer: "the answer", Contexts: chunks})[0]
			if got := score(t, res, eval.ContextUtilization); !near(got, tc.want) {
				t.Fatalf("context utilization %v, want %v", got, tc.want)
			}
			for k, c := range res.ContextUtilization.Chunks {
				if c.Rank != k+1 || c.Verdict != tc.verdicts[k] || c.Reason != "used reason" {
					t.Fatalf("chunk %d: %+v", k, c)
				}
			}
			b.mu.Lock()
			n := b.calls["context_utilization_verdict"]
			b.mu.Unlock()
			if n != len(tc.verdicts) {
				t.Fatalf("%d calls, want one per chunk", n)
			}
		})
	}
}

func TestContextRecallFormula(t *testing.T) {
	b := newBrain()
	ref := "REF fact one; REF fact two; REF fact three; REF fact four"
	b.recall[ref] = []int{1, 0, 1, 1}
	st := newStack(t, b, stackOpt{})
	res := st.run(t, context.Background(), onlyCR, eval.Sample{Question: "q?", Answer: "a", Contexts: []string{"c"}, Reference: ref})[0]
	if got := score(t, res, eval.ContextRecall); !near(got, 0.75) {
		t.Fatalf("recall %v, want 0.75", got)
	}
	if tr := res.ContextRecall; tr.Attributed != 3 || tr.Classifications[1].Statement != "REF fact two" {
		t.Fatalf("trace %+v", tr)
	}
}

func TestMissingInputs(t *testing.T) {
	b := newBrain()
	st := newStack(t, b, stackOpt{})
	res := st.run(t, context.Background(), eval.AllMetrics,
		eval.Sample{Question: "q?", Answer: "a", Contexts: []string{"c"}},                   // no reference
		eval.Sample{Question: "q?", Answer: "a", Contexts: nil, Reference: "r"},             // no contexts
		eval.Sample{Question: "q?", Answer: "   ", Contexts: []string{"c"}, Reference: "r"}, // empty answer
	)
	want := []map[eval.Metric]eval.Status{
		{eval.ContextPrecision: eval.StatusMissingInput, eval.ContextRecall: eval.StatusMissingInput},
		{eval.Faithfulness: eval.StatusMissingInput, eval.ContextPrecision: eval.StatusMissingInput, eval.ContextUtilization: eval.StatusMissingInput, eval.ContextRecall: eval.StatusMissingInput},
		{eval.Faithfulness: eval.StatusNoStatements, eval.AnswerRelevancy: eval.StatusMissingInput, eval.ContextUtilization: eval.StatusMissingInput},
	}
	for i, w := range want {
		for m, st := range w {
			if got := res[i].Status[m]; got != st {
				t.Errorf("sample %d %s: status %s, want %s (%s)", i, m, got, st, res[i].Errors[m])
			}
			if res[i].Scores[m] != nil {
				t.Errorf("sample %d %s: a %s metric has a score", i, m, st)
			}
			if res[i].Errors[m] == "" {
				t.Errorf("sample %d %s: no message says why", i, m)
			}
		}
	}
}

// TestRecallWithoutChunks: nothing retrieved covers nothing. A judge that
// would attribute every reference statement (to a chunk that is not there)
// is not asked: context recall is missing_input, as faithfulness and
// context precision of the same sample are, and never a score.
func TestRecallWithoutChunks(t *testing.T) {
	tests := []struct {
		name     string
		contexts []string
	}{
		{"no chunks", nil},
		{"an empty list", []string{}},
		{"only blank chunks", []string{"", " \n\t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBrain()
			b.recall["REF-none one; REF-none two"] = []int{1, 1}
			st := newStack(t, b, stackOpt{})
			res := st.run(t, context.Background(), []eval.Metric{eval.Faithfulness, eval.ContextPrecision, eval.ContextRecall},
				eval.Sample{Question: "q?", Answer: "a", Contexts: tt.contexts, Reference: "REF-none one; REF-none two"})[0]
			for _, m := range []eval.Metric{eval.Faithfulness, eval.ContextPrecision, eval.ContextRecall} {
				if res.Status[m] != eval.StatusMissingInput || res.Scores[m] != nil {
					t.Errorf("%s: status %s, score %v, want missing_input and no score (%s)", m, res.Status[m], res.Scores[m], res.Errors[m])
				}
			}
			if !strings.Contains(res.Errors[eval.ContextRecall], "no retrieved contexts") {
				t.Errorf("recall's message %q does not say why", res.Errors[eval.ContextRecall])
			}
			if n := len(st.srv.Requests()); n != 0 {
				t.Errorf("the judge was asked %d times for a sample with nothing retrieved", n)
			}
		})
	}
}

func TestFencedRepliesInJSONObjectAndTextModes(t *testing.T) {
	for _, format := range []string{"json_object", "text"} {
		t.Run(format, func(t *testing.T) {
			b := newBrain()
			b.fence = true
			b.statements["ANSWER-fence"] = []string{"s-fence one", "s-fence two"}
			b.verdicts["s-fence one"] = []int{1, 0}
			st := newStack(t, b, stackOpt{responseFormat: format})
			res := st.run(t, context.Background(), onlyF, eval.Sample{Question: "q?", Answer: "ANSWER-fence", Contexts: []string{"c"}})[0]
			if got := score(t, res, eval.Faithfulness); !near(got, 0.5) {
				t.Fatalf("faithfulness %v, want 0.5", got)
			}
			for _, r := range st.srv.Requests() {
				if format == "json_object" && r.Format != "json_object" || format == "text" && r.Format != "" && r.Format != "text" {
					t.Fatalf("response_format sent: %q", r.Format)
				}
			}
		})
	}
}

func TestJSONSchemaRequestShape(t *testing.T) {
	b := newBrain()
	b.statements["ANSWER-shape"] = []string{"s-shape one"}
	b.verdicts["s-shape one"] = []int{1}
	st := newStack(t, b, stackOpt{})
	st.run(t, context.Background(), onlyF, eval.Sample{Question: "q?", Answer: "ANSWER-shape", Contexts: []string{"c"}})
	reqs := st.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, r := range reqs {
		rf, _ := r.Raw["response_format"].(map[string]any)
		js, _ := rf["json_schema"].(map[string]any)
		if rf["type"] != "json_schema" || js["name"] != r.Task || js["strict"] != true || js["schema"] == nil {
			t.Fatalf("response_format %v", rf)
		}
		// Temperature 0 is not the servers' default: it must be sent.
		if r.Temperature == nil || *r.Temperature != 0 {
			t.Fatalf("temperature not sent explicitly: %v", r.Raw["temperature"])
		}
		if r.Model != "judge-model" {
			t.Fatalf("model %q", r.Model)
		}
	}
}

func TestRetries(t *testing.T) {
	okStatements := func(r *fakejudge.Request) fakejudge.Reply {
		return fakejudge.Reply{Choices: []string{`{"statements": ["s-retry one"]}`}}
	}
	cases := []struct {
		name       string
		fail       func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool)
		status     eval.Status
		minElapsed time.Duration
		calls      int
		errHas     string
	}{
		{"429 with Retry-After", func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool) {
			if nth == 1 {
				return fakejudge.Reply{Status: 429, Header: map[string]string{"Retry-After": "1"}}, true
			}
			return okStatements(r), true
		}, eval.StatusOK, 900 * time.Millisecond, 2, ""},
		{"500s then success", func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool) {
			if nth <= 2 {
				return fakejudge.Reply{Status: 500}, true
			}
			return okStatements(r), true
		}, eval.StatusOK, 0, 3, ""},
		{"500s forever", func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool) {
			return fakejudge.Reply{Status: 503}, true
		}, eval.StatusJudgeError, 0, 4, "HTTP 503"},
		{"401 is not retried", func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool) {
			return fakejudge.Reply{Status: 401, Body: `{"error":{"message":"bad key"}}`}, true
		}, eval.StatusJudgeError, 0, 1, "HTTP 401"},
		{"truncated then complete", func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool) {
			if nth == 1 {
				return fakejudge.Reply{Choices: []string{`{"statements": ["s-retr`}, FinishReason: "length"}, true
			}
			return okStatements(r), true
		}, eval.StatusOK, 0, 2, ""},
		{"always truncated", func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool) {
			return fakejudge.Reply{Choices: []string{`{"statements": ["s-retr`}, FinishReason: "length"}, true
		}, eval.StatusTruncated, 0, 6, "with max_tokens 16384, the most --max-tokens allows"},
		{"malformed then valid", func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool) {
			if nth == 1 {
				return fakejudge.Reply{Choices: []string{`I think the statements are fine.`}}, true
			}
			return okStatements(r), true
		}, eval.StatusOK, 0, 2, ""},
		{"hung request", func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool) {
			if nth == 1 {
				return fakejudge.Reply{Hang: true}, true
			}
			return okStatements(r), true
		}, eval.StatusOK, 0, 2, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrain()
			b.verdicts["s-retry one"] = []int{1}
			b.override = func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool) {
				if r.Task != "faithfulness_statements" {
					return fakejudge.Reply{}, false
				}
				return tc.fail(r, nth)
			}
			st := newStack(t, b, stackOpt{timeout: 200 * time.Millisecond})
			events := make(chan eval.Event, 1000)
			var retries atomic.Int64
			done := make(chan struct{})
			go func() {
				for ev := range events {
					if ev.Kind == eval.EventRetry {
						retries.Add(1)
					}
				}
				close(done)
			}()
			start := time.Now()
			r := &eval.Runner{Judge: st.judge, Config: eval.RunnerConfig{Metrics: onlyF}, Events: events}
			res := r.Run(context.Background(), []eval.Sample{{Question: "q?", Answer: "ANSWER-retry", Contexts: []string{"c"}}})[0]
			<-done
			if got := res.Status[eval.Faithfulness]; got != tc.status {
				t.Fatalf("status %s, want %s (%s)", got, tc.status, res.Errors[eval.Faithfulness])
			}
			if n := st.srv.Count("faithfulness_statements"); n != tc.calls {
				t.Fatalf("%d statement calls, want %d", n, tc.calls)
			}
			if int(retries.Load()) != tc.calls-1 {
				t.Fatalf("%d retry events, want %d", retries.Load(), tc.calls-1)
			}
			if el := time.Since(start); el < tc.minElapsed {
				t.Fatalf("finished after %s; Retry-After asked for %s", el, tc.minElapsed)
			}
			if tc.errHas != "" && !strings.Contains(res.Errors[eval.Faithfulness], tc.errHas) {
				t.Fatalf("error %q does not mention %q", res.Errors[eval.Faithfulness], tc.errHas)
			}
			if calls, _ := r.Counts(); calls.Retries != tc.calls-1 {
				t.Fatalf("run counts %d retries", calls.Retries)
			}
		})
	}
}

func TestCancellationMidway(t *testing.T) {
	b := newBrain()
	const n = 12
	var samples []eval.Sample
	for i := 0; i < n; i++ {
		ans := fmt.Sprintf("ANSWER-cancel-%02d", i)
		st := fmt.Sprintf("s-cancel-%02d one", i)
		b.statements[ans] = []string{st}
		b.verdicts[st] = []int{1}
		samples = append(samples, eval.Sample{Index: i, Question: "q?", Answer: ans, Contexts: []string{"c"}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Samples 0-3 are answered; from the fifth statement call on the judge
	// hangs, and the test cancels once four samples have finished.
	var started atomic.Int64
	b.override = func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool) {
		if r.Task == "faithfulness_statements" && started.Add(1) > 4 {
			return fakejudge.Reply{Hang: true}, true
		}
		return fakejudge.Reply{}, false
	}
	st := newStack(t, b, stackOpt{concurrency: 1})
	events := make(chan eval.Event, 1000)
	r := &eval.Runner{Judge: st.judge, Config: eval.RunnerConfig{Metrics: onlyF, Workers: 1}, Events: events}
	resCh := make(chan []*eval.Result, 1)
	go func() { resCh <- r.Run(ctx, samples) }()
	finished := 0
	for ev := range events {
		if ev.Kind == eval.EventSampleFinished {
			finished++
			if finished == 4 {
				cancel()
			}
		}
	}
	res := <-resCh
	if len(res) != n {
		t.Fatalf("%d results for %d samples", len(res), n)
	}
	ok, cancelled := 0, 0
	for i, r := range res {
		switch r.Status[eval.Faithfulness] {
		case eval.StatusOK:
			ok++
			if i >= 4 {
				t.Fatalf("sample %d scored after cancellation", i)
			}
		case eval.StatusCancelled:
			cancelled++
		default:
			t.Fatalf("sample %d: status %s (%s)", i, r.Status[eval.Faithfulness], r.Errors[eval.Faithfulness])
		}
	}
	if ok != 4 || cancelled != n-4 {
		t.Fatalf("%d ok, %d cancelled; want 4 and %d", ok, cancelled, n-4)
	}
}

func TestEmbeddingsBase64(t *testing.T) {
	for _, mode := range []string{"asked", "unasked"} {
		t.Run(mode, func(t *testing.T) {
			b := newBrain()
			b.questions["ANSWER-b64"] = []int{0, 0, 0}
			o := stackOpt{}
			if mode == "asked" {
				o.embedFormat = "base64"
			}
			st := newStack(t, b, o)
			st.srv.Set(func(s *fakejudge.Server) { s.Base64 = mode == "unasked" })
			res := st.run(t, context.Background(), onlyAR, eval.Sample{Question: "b64?", Answer: "ANSWER-b64", Contexts: []string{"c"}})[0]
			got := score(t, res, eval.AnswerRelevancy)
			var want float64
			q := toF64(fakejudge.Vector("b64?"))
			for i := 0; i < 3; i++ {
				want += eval.Cosine(q, toF64(fakejudge.Vector(fmt.Sprintf("Q%d about ANSWER-b64", i))))
			}
			want /= 3
			if d := got - want; d > 1e-6 || d < -1e-6 {
				t.Fatalf("answer relevancy %v, want %v", got, want)
			}
		})
	}
}

func toF64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, f := range v {
		out[i] = float64(f)
	}
	return out
}

func TestAPIKeyNeverInReportOrEvents(t *testing.T) {
	const key = "sk-test-SECRET-1234567890"
	b := newBrain()
	b.override = func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool) {
		if got := r.Header.Get("Authorization"); got != "Bearer "+key {
			return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"no auth"}}`}, true
		}
		// A hostile or careless server echoing the key in its error.
		return fakejudge.Reply{Status: 500, Body: `{"error":{"message":"invalid request with key ` + key + `"}}`}, true
	}
	st := newStack(t, b, stackOpt{apiKey: key, maxRetries: 1})
	events := make(chan eval.Event, 1000)
	var log bytes.Buffer
	done := make(chan struct{})
	go func() {
		for ev := range events {
			fmt.Fprintf(&log, "%+v %+v\n", ev, ev.Call)
		}
		close(done)
	}()
	r := &eval.Runner{Judge: st.judge, Config: eval.RunnerConfig{}, Events: events}
	res := r.Run(context.Background(), []eval.Sample{{Question: "q?", Answer: "a", Contexts: []string{"c"}, Reference: "r"}})
	<-done
	var rep bytes.Buffer
	run := report.RunInfo{ID: "x", Judge: st.judge.Info(), Metrics: eval.AllMetrics}
	if err := report.NewReport(run, res).WriteJSON(&rep); err != nil {
		t.Fatal(err)
	}
	if res[0].Status[eval.Faithfulness] != eval.StatusJudgeError {
		t.Fatalf("the server's error did not surface: %+v", res[0].Status)
	}
	for name, text := range map[string]string{"report": rep.String(), "events": log.String()} {
		if strings.Contains(text, key) {
			t.Fatalf("the API key leaked into the %s", name)
		}
		if !strings.Contains(text, "***") {
			t.Fatalf("the %s does not show the redacted server error", name)
		}
	}
}
