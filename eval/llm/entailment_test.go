package llm_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/prompts"
)

// entailments scripts entailment_verdicts: premise -> the statements it
// entails (any other statement gets 0). The reply echoes the statements
// read from the prompt, with a reason naming the premise.
type entailments map[string][]string

func (e entailments) reply(r *fakejudge.Request) fakejudge.Reply {
	premise := r.TaskText("text")
	entailed, ok := e[premise]
	if !ok {
		return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"brain: unknown premise ` + premise + `"}}`}
	}
	var items []map[string]any
	for _, st := range r.TaskItems("statement") {
		v := 0
		if slices.Contains(entailed, st) {
			v = 1
		}
		items = append(items, map[string]any{"statement": st, "reason": "by " + premise, "verdict": v})
	}
	return fakejudge.Reply{Choices: []string{fakejudge.JSON(map[string]any{"verdicts": items})}}
}

func runWith(t *testing.T, j eval.Judge, cfg eval.RunnerConfig, samples ...eval.Sample) []*eval.Result {
	t.Helper()
	for i := range samples {
		samples[i].Index = i
	}
	cfg.Workers = 4
	return (&eval.Runner{Judge: j, Config: cfg}).Run(context.Background(), samples)
}

const (
	fcAnswer    = "ANSWER-FC text"
	fcReference = "REFERENCE-FC text"
)

// The RAGAS vector through the LLM judge over HTTP: the answer's claims
// A1-A3 are entailed by the reference and A4 is not (TP 3, FP 1), the
// reference's claims R1-R3 by the answer and R4, R5 not (FN 2).
func fcBrain() (*brain, *[]string) {
	b := newBrain()
	b.statements[fcAnswer] = []string{"A1", "A2", "A3", "A4"}
	b.statements[fcReference] = []string{"R1", "R2", "R3", "R4", "R5"}
	script := entailments{fcReference: {"A1", "A2", "A3"}, fcAnswer: {"R1", "R2", "R3"}}
	var prompts []string
	b.override = func(r *fakejudge.Request, _ int) (fakejudge.Reply, bool) {
		if r.Task != "entailment_verdicts" {
			return fakejudge.Reply{}, false
		}
		b.mu.Lock()
		prompts = append(prompts, r.Messages[0].Content)
		b.mu.Unlock()
		return script.reply(r), true
	}
	return b, &prompts
}

func TestFactualCorrectnessThroughTheJudge(t *testing.T) {
	for _, tc := range []struct {
		mode       string
		want       float64
		entailment int // entailment_verdicts requests
		statements int // faithfulness_statements requests
	}{
		{"f1", 2.0 / 3, 2, 2},
		{"precision", 0.75, 1, 1},
		{"recall", 0.6, 2, 2},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			b, sent := fcBrain()
			st := newStack(t, b, stackOpt{maxRetries: -1})
			res := runWith(t, st.judge, eval.RunnerConfig{Metrics: []eval.Metric{eval.FactualCorrectness}, FCMode: tc.mode},
				eval.Sample{Question: "QUESTION-FC?", Answer: fcAnswer, Reference: fcReference})[0]
			if got := score(t, res, eval.FactualCorrectness); !near(got, tc.want) {
				t.Fatalf("%s: %v, want %v", tc.mode, got, tc.want)
			}
			if n := st.srv.Count("entailment_verdicts"); n != tc.entailment {
				t.Errorf("%d entailment requests, want %d", n, tc.entailment)
			}
			if n := st.srv.Count("faithfulness_statements"); n != tc.statements {
				t.Errorf("%d statement requests, want %d", n, tc.statements)
			}
			tr := res.FactualCorrectness
			if tr.Mode != tc.mode || tr.Beta != 1 || tr.TP != 3 || tr.FP != 1 {
				t.Errorf("trace %+v", tr)
			}
			if len(tr.AnswerClaims) != 4 || tr.AnswerClaims[3].Statement != "A4" || tr.AnswerClaims[3].Verdict != 0 || tr.AnswerClaims[0].Reason != "by "+fcReference {
				t.Errorf("answer claims %+v", tr.AnswerClaims)
			}
			if tc.mode == "precision" {
				if tr.ReferenceClaims == nil || len(tr.ReferenceClaims) != 0 || tr.FN != 0 {
					t.Errorf("precision mode: reference claims %+v, FN %d", tr.ReferenceClaims, tr.FN)
				}
			} else if len(tr.ReferenceClaims) != 5 || tr.FN != 2 || tr.ReferenceClaims[4].Verdict != 0 || tr.ReferenceClaims[4].Reason != "by "+fcAnswer {
				t.Errorf("reference claims %+v, FN %d", tr.ReferenceClaims, tr.FN)
			}
			// The prompt shows the premise and the numbered claims, and not
			// the question (the same check asked by two metrics is one request).
			for _, p := range *sent {
				if strings.Contains(p, "QUESTION-FC") || !strings.Contains(p, "<statement n=\"1\">") {
					t.Errorf("entailment prompt:\n%s", p)
				}
			}
			if !slices.ContainsFunc(*sent, func(p string) bool {
				return strings.Contains(p, "<text>"+fcReference+"</text>") && strings.Contains(p, `<statement n="4">A4</statement>`)
			}) {
				t.Errorf("no prompt judges the answer's claims against the reference")
			}
		})
	}
}

// noiseSample has three chunks: chunk 1 entails the reference statement
// R1 (relevant), chunks 2 and 3 entail none (irrelevant). The reference
// entails the answer's A1; A2 is backed by chunk 1 and chunk 2 (relevant
// noise), A3 only by chunk 3 (irrelevant noise), A4 by nothing.
var noiseSample = eval.Sample{Question: "q?", Answer: "ANSWER-NS text", Reference: "REFERENCE-NS text",
	Contexts: []string{"CHUNK-ONE text", "CHUNK-TWO text", "CHUNK-THREE text"}}

func nsScript() entailments {
	return entailments{
		"REFERENCE-NS text": {"A1"},
		"CHUNK-ONE text":    {"R1", "A1", "A2"},
		"CHUNK-TWO text":    {"A2"},
		"CHUNK-THREE text":  {"A3"},
		"ANSWER-NS text":    {"R1"},
	}
}

func nsBrain(script entailments) *brain {
	b := newBrain()
	b.statements["ANSWER-NS text"] = []string{"A1", "A2", "A3", "A4"}
	b.statements["REFERENCE-NS text"] = []string{"R1", "R2"}
	b.override = func(r *fakejudge.Request, _ int) (fakejudge.Reply, bool) {
		if r.Task != "entailment_verdicts" {
			return fakejudge.Reply{}, false
		}
		return script.reply(r), true
	}
	return b
}

func TestNoiseSensitivityThroughTheJudge(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want float64
	}{{"relevant", 0.25}, {"irrelevant", 0.25}} {
		t.Run(tc.mode, func(t *testing.T) {
			st := newStack(t, nsBrain(nsScript()), stackOpt{maxRetries: -1})
			res := runWith(t, st.judge, eval.RunnerConfig{Metrics: []eval.Metric{eval.NoiseSensitivity}, NSMode: tc.mode}, noiseSample)[0]
			if got := score(t, res, eval.NoiseSensitivity); !near(got, tc.want) {
				t.Fatalf("%v, want %v", got, tc.want)
			}
			// 1 against the reference, 2 per chunk; the two extractions.
			if n := st.srv.Count("entailment_verdicts"); n != 7 {
				t.Errorf("%d entailment requests, want 7", n)
			}
			if n := st.srv.Count("faithfulness_statements"); n != 2 {
				t.Errorf("%d statement requests, want 2", n)
			}
			tr := res.NoiseSensitivity
			if tr.Mode != tc.mode || tr.Relevant != 1 || tr.Irrelevant != 1 || !slices.Equal(tr.ReferenceStatements, []string{"R1", "R2"}) {
				t.Errorf("trace %+v", tr)
			}
			if len(tr.Chunks) != 3 || !tr.Chunks[0].Relevant || tr.Chunks[1].Relevant || tr.Chunks[2].Relevant {
				t.Fatalf("chunks %+v", tr.Chunks)
			}
			c1 := tr.Chunks[0]
			if len(c1.Reference) != 2 || c1.Reference[0].Verdict != 1 || c1.Reference[0].Reason != "by CHUNK-ONE text" ||
				len(c1.Answer) != 4 || c1.Answer[1].Verdict != 1 || c1.Answer[3].Verdict != 0 {
				t.Errorf("chunk 1 %+v", c1)
			}
			if len(tr.ByReference) != 4 || tr.ByReference[0].Verdict != 1 || tr.ByReference[0].Reason != "by REFERENCE-NS text" {
				t.Errorf("by reference %+v", tr.ByReference)
			}
			noise := []string{}
			for _, s := range tr.Statements {
				noise = append(noise, s.Noise)
			}
			if !slices.Equal(noise, []string{"", "relevant", "irrelevant", ""}) ||
				!slices.Equal(tr.Statements[1].Relevant, []int{1}) || !slices.Equal(tr.Statements[1].Irrelevant, []int{2}) {
				t.Errorf("statements %+v", tr.Statements)
			}
		})
	}
}

// A judge failure of an entailment call is the sample's status with its
// message: an HTTP 500, a reply that breaks the contract (retried, then
// parse_error), the wrong number of verdicts twice.
func TestEntailmentFailuresArePerSampleStatuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply fakejudge.Reply
		st    eval.Status
		msg   string
	}{
		{"http 500", fakejudge.Reply{Status: 500, Body: `{"error":{"message":"the judge fell over"}}`}, eval.StatusJudgeError, "the judge fell over"},
		{"garbage", fakejudge.Reply{Choices: []string{"I think they are all true."}}, eval.StatusParseError, "no JSON object"},
		{"verdict out of range", fakejudge.Reply{Choices: []string{`{"verdicts": [{"statement": "A1", "reason": "r", "verdict": 2}]}`}}, eval.StatusParseError, `"verdict" is 2`},
		{"missing key", fakejudge.Reply{Choices: []string{`{"statements": []}`}}, eval.StatusParseError, `missing field "verdicts"`},
		{"wrong count", fakejudge.Reply{Choices: []string{`{"verdicts": [{"statement": "A1", "reason": "r", "verdict": 1}]}`}}, eval.StatusParseError, "were sent but the judge returned 1 verdicts, then 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := nsBrain(nil)
			b.statements[fcAnswer] = []string{"A1", "A2"}
			b.statements[fcReference] = []string{"R1"}
			b.override = func(r *fakejudge.Request, _ int) (fakejudge.Reply, bool) {
				return tc.reply, r.Task == "entailment_verdicts"
			}
			st := newStack(t, b, stackOpt{maxRetries: 1})
			res := runWith(t, st.judge, eval.RunnerConfig{Metrics: []eval.Metric{eval.Faithfulness, eval.FactualCorrectness, eval.NoiseSensitivity}},
				eval.Sample{Question: "q", Answer: fcAnswer, Reference: fcReference, Contexts: []string{"CHUNK"}},
				noiseSample)
			for _, r := range res {
				for _, m := range []eval.Metric{eval.FactualCorrectness, eval.NoiseSensitivity} {
					if r.Status[m] != tc.st || !strings.Contains(r.Errors[m], tc.msg) || r.Scores[m] != nil {
						t.Errorf("sample %d %s: %s %q, want %s %q", r.Index, m, r.Status[m], r.Errors[m], tc.st, tc.msg)
					}
				}
			}
		})
	}
}

// No statement to judge makes no call.
func TestEntailmentOfNoStatements(t *testing.T) {
	b := newBrain()
	st := newStack(t, b, stackOpt{})
	got, err := st.judge.Entailment(context.Background(), &eval.Sample{Question: "q", Answer: "a"}, "premise", nil)
	if err != nil || got == nil || len(got) != 0 || st.srv.Count("") != 0 {
		t.Fatalf("%v %v, %d requests", got, err, st.srv.Count(""))
	}
}

// A second run of both metrics is served by the cache: no request, the
// same scores and traces.
func TestFactualAndNoiseCached(t *testing.T) {
	b, _ := fcBrain()
	fcOverride := b.override
	ns := nsBrain(nsScript())
	for k, v := range ns.statements {
		b.statements[k] = v
	}
	b.override = func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool) {
		if rep, ok := ns.override(r, nth); ok && rep.Status == 0 {
			return rep, true
		}
		return fcOverride(r, nth)
	}
	srv := fakejudge.New(b.reply)
	defer srv.Close()
	db, err := cache.Open(filepath.Join(t.TempDir(), "c.db"), cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	run := func() []*eval.Result {
		client, err := endpoint.New(endpoint.Config{BaseURL: srv.BaseURL(), APIKey: "k", Concurrency: 4, RequestTimeout: 5 * time.Second,
			MaxRetries: 1, BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		j := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "judge-model", EmbeddingModel: "embed-model", Lang: eval.LangEN},
			eval.Instrument(db.Client(client, cache.ReadWrite)), prompts.Embedded())
		return runWith(t, j, eval.RunnerConfig{Metrics: []eval.Metric{eval.FactualCorrectness, eval.NoiseSensitivity}},
			eval.Sample{Question: "q", Answer: fcAnswer, Reference: fcReference, Contexts: []string{"CHUNK-TWO text"}}, noiseSample)
	}
	first := run()
	sent := srv.Count("")
	if sent == 0 {
		t.Fatal("the first run sent nothing")
	}
	again := run()
	if n := srv.Count("") - sent; n != 0 {
		t.Fatalf("the cached run sent %d requests", n)
	}
	for i := range first {
		for _, m := range []eval.Metric{eval.FactualCorrectness, eval.NoiseSensitivity} {
			a, okA := first[i].Score(m)
			c, okC := again[i].Score(m)
			if !okA || !okC || a != c {
				t.Errorf("sample %d %s: %v %v then %v %v (%s)", i, m, a, okA, c, okC, again[i].Errors[m])
			}
		}
		for _, c := range again[i].Calls {
			if !c.Cached {
				t.Errorf("sample %d: call %s not cached", i, c.Task)
			}
		}
	}
	if again[0].FactualCorrectness == nil || len(again[0].FactualCorrectness.ReferenceClaims) != 5 || again[1].NoiseSensitivity == nil || len(again[1].NoiseSensitivity.Chunks) != 3 {
		t.Errorf("cached traces: %+v %+v", again[0].FactualCorrectness, again[1].NoiseSensitivity)
	}
}
