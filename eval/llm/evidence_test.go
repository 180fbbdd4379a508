package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/prompts"
)

// evidenceJudge answers the two evidence tasks with scripted citations:
// the first statement quotes chunk 1 truly (with other spacing, case and
// a closing mark, which the check forgives), the second cites chunk 2 with
// words it does not hold; the reference's one statement quotes chunk 2
// truly, the other cites a chunk 7 the sample does not have.
func evidenceJudge(r *fakejudge.Request) fakejudge.Reply {
	one := func(s string) fakejudge.Reply { return fakejudge.Reply{Choices: []string{s}} }
	switch r.Task {
	case prompts.TaskFaithfulnessStatements:
		return one(`{"statements": ["The ID stays the same.", "You must re-register."]}`)
	case prompts.TaskFaithfulnessVerdicts:
		return one(`{"statements": [` +
			`{"statement": "The ID stays the same.", "chunk": 1, "quote": "the  taxpayer ID\nstays UNCHANGED.", "reason": "chunk 1 says so", "verdict": 1},` +
			`{"statement": "You must re-register.", "chunk": 2, "quote": "must register again", "reason": "chunk 2 says so", "verdict": 1}]}`)
	case prompts.TaskContextRecallClassifications:
		return one(`{"classifications": [` +
			`{"statement": "No new registration.", "chunk": 2, "quote": "无需重新办理 税务登记", "reason": "chunk 2", "attributed": 1},` +
			`{"statement": "A form is filed.", "chunk": 7, "quote": "a form", "reason": "chunk 7", "attributed": 1}]}`)
	}
	return fakejudge.Generic(r)
}

var evidenceSample = eval.Sample{
	ID: "tax", Question: "Does the taxpayer ID change?", Answer: "It stays the same, but you must re-register.",
	Contexts:  []string{"After conversion the taxpayer ID stays unchanged.", "纳税人识别号不变，无需重新办理税务登记。"},
	Reference: "No new registration is needed; a form is filed.",
}

// cachedStack is the judge behind the bbolt cache, as a run has it.
func cachedStack(t *testing.T, db *cache.DB, srv *fakejudge.Server, mode cache.Mode) *eval.Runner {
	t.Helper()
	client, err := endpoint.New(endpoint.Config{BaseURL: srv.BaseURL(), APIKey: "k", Concurrency: 4, RequestTimeout: 5 * time.Second,
		MaxRetries: 1, BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	j := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "judge-model", EmbeddingModel: "embed-model", Lang: eval.LangEN},
		eval.Instrument(db.Client(client, mode)), prompts.Embedded())
	return &eval.Runner{Judge: j, Config: eval.RunnerConfig{Metrics: []eval.Metric{eval.Faithfulness, eval.ContextRecall}, Workers: 2}}
}

func TestEvidenceEndToEnd(t *testing.T) {
	srv := fakejudge.New(evidenceJudge)
	defer srv.Close()
	db, err := cache.Open(filepath.Join(t.TempDir(), "c.db"), cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res := cachedStack(t, db, srv, cache.ReadWrite).Run(context.Background(), []eval.Sample{evidenceSample})[0]
	if res.Status[eval.Faithfulness] != eval.StatusOK || res.Status[eval.ContextRecall] != eval.StatusOK {
		t.Fatalf("statuses %v: %v", res.Status, res.Errors)
	}

	f := res.Faithfulness.Statements
	if ev := f[0].Evidence; ev == nil || ev.Chunk != 1 || ev.Quote != "the  taxpayer ID\nstays UNCHANGED." || ev.QuoteNotFound || ev.Flag != "" {
		t.Errorf("a true quote: %+v", ev)
	}
	if ev := f[1].Evidence; ev == nil || ev.Chunk != 2 || !ev.QuoteNotFound || ev.Flag != "quote not found in chunk 2" {
		t.Errorf("a quote chunk 2 does not hold: %+v", ev)
	}
	// A wrong quote is a flag on the judge, not a change of its verdict.
	if v, _ := res.Score(eval.Faithfulness); v != 1 {
		t.Errorf("faithfulness %v, want the verdicts' 1", v)
	}
	c := res.ContextRecall.Classifications
	if ev := c[0].Evidence; ev == nil || ev.Chunk != 2 || ev.QuoteNotFound {
		t.Errorf("a Chinese quote with a space the chunk does not have: %+v", ev)
	}
	if ev := c[1].Evidence; ev == nil || ev.Chunk != 7 || !ev.NoSuchChunk || ev.QuoteNotFound || ev.Flag != "cites chunk 7, but the sample has 2 chunks" {
		t.Errorf("a chunk out of range: %+v", ev)
	}

	// The JSON report carries the evidence and the flag.
	var buf bytes.Buffer
	if err := report.NewReport(report.RunInfo{ID: "r", Contract: prompts.ContractVersion, Metrics: []eval.Metric{eval.Faithfulness, eval.ContextRecall}}, []*eval.Result{res}).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"contract": 2`, `"evidence": {`, `"chunk": 2`, `"quote": "must register again"`, `"quote_not_found": true`, `"flag": "quote not found in chunk 2"`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the report lacks %s", want)
		}
	}
	var back report.Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if ev := back.Samples[0].Faithfulness.Statements[1].Evidence; ev == nil || ev.Flag != "quote not found in chunk 2" {
		t.Errorf("the report reads back as %+v", ev)
	}

	// A reply cached before contract 2 (no chunk, no quote) under the same
	// key is still read: its verdicts score, with no evidence.
	var key string
	for _, call := range res.Calls {
		if call.Task == prompts.TaskFaithfulnessVerdicts {
			key = call.Key
		}
	}
	entry, err := db.Call(key)
	if err != nil || entry == nil {
		t.Fatalf("the verdicts call is not in the cache: %v", err)
	}
	var req eval.ChatRequest
	if err := json.Unmarshal(entry.Request, &req); err != nil {
		t.Fatal(err)
	}
	req.Task = prompts.TaskFaithfulnessVerdicts
	if req.Key() != key {
		t.Fatalf("the stored request does not hash to its key")
	}
	old := entry.Response
	old.Choices = []string{`{"statements": [{"statement": "The ID stays the same.", "reason": "old reason", "verdict": 1}, {"statement": "You must re-register.", "reason": "old reason", "verdict": 0}]}`}
	if err := db.PutChat(key, req, old); err != nil {
		t.Fatal(err)
	}
	before := srv.Count(prompts.TaskFaithfulnessVerdicts)
	again := cachedStack(t, db, srv, cache.CacheOnly).Run(context.Background(), []eval.Sample{evidenceSample})[0]
	if srv.Count(prompts.TaskFaithfulnessVerdicts) != before {
		t.Fatal("the old reply was not served from the cache")
	}
	if v, ok := again.Score(eval.Faithfulness); !ok || v != 0.5 {
		t.Fatalf("old reply: faithfulness %v (%s: %s)", v, again.Status[eval.Faithfulness], again.Errors[eval.Faithfulness])
	}
	for _, s := range again.Faithfulness.Statements {
		if s.Evidence != nil || s.Reason != "old reason" {
			t.Errorf("an old reply's verdict: %+v", s)
		}
	}
}

// The evidence keys are read leniently: the verdict is what is scored.
func TestEvidenceLenientChunk(t *testing.T) {
	b := newBrain()
	b.statements["the answer"] = []string{"s1", "s2", "s3", "s4"}
	b.override = func(r *fakejudge.Request, nth int) (fakejudge.Reply, bool) {
		if r.Task != prompts.TaskFaithfulnessVerdicts {
			return fakejudge.Reply{}, false
		}
		return fakejudge.Reply{Choices: []string{`{"statements": [` +
			`{"statement": "s1", "chunk": "1", "quote": "alpha", "reason": "r", "verdict": 1},` +
			`{"statement": "s2", "chunk": null, "quote": "", "reason": "r", "verdict": 0},` +
			`{"statement": "s3", "chunk": 1.5, "quote": "alpha", "reason": "r", "verdict": 1},` +
			`{"statement": "s4", "quote": "beta gamma", "reason": "r", "verdict": 1}]}`}}, true
	}
	s := newStack(t, b, stackOpt{})
	res := s.run(t, context.Background(), []eval.Metric{eval.Faithfulness}, eval.Sample{Question: "q", Answer: "the answer", Contexts: []string{"alpha", "beta  gamma"}})[0]
	st := res.Faithfulness.Statements
	if ev := st[0].Evidence; ev == nil || ev.Chunk != 1 || ev.QuoteNotFound {
		t.Errorf(`chunk "1": %+v`, ev)
	}
	if ev := st[1].Evidence; ev == nil || ev.Chunk != 0 || ev.Quote != "" || ev.QuoteNotFound {
		t.Errorf("no chunk: %+v", ev)
	}
	if ev := st[2].Evidence; ev == nil || !ev.NoSuchChunk || ev.QuoteNotFound {
		t.Errorf("chunk 1.5 names no chunk that exists: %+v", ev)
	}
	// A quote that names no chunk is looked for in all of them.
	if ev := st[3].Evidence; ev == nil || ev.Chunk != 0 || ev.QuoteNotFound {
		t.Errorf("a quote without a chunk: %+v", ev)
	}
}
