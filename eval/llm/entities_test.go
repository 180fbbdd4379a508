package llm_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/prompts"
)

var entitySample = eval.Sample{
	ID: "bus", Question: "How do I get to Stoke Newington?", Answer: "Take bus 73.",
	Reference: "Bus 73 goes from Oxford Circus to Stoke Newington every 8 minutes.",
	Contexts:  []string{"Route 73: Oxford Circus – Stoke Newington.", "Buses run every 8 minutes."},
}

// entityReplies answers context_entity_recall_entities by what the prompt's
// text block holds: the reference, or the chunks joined in one text.
func entityReplies(reference, contexts string) func(r *fakejudge.Request) fakejudge.Reply {
	return func(r *fakejudge.Request) fakejudge.Reply {
		if r.Task != prompts.TaskContextEntityRecallEntities {
			return fakejudge.Generic(r)
		}
		switch text := r.TaskText("text"); text {
		case entitySample.Reference:
			return fakejudge.Reply{Choices: []string{reference}}
		case strings.Join(entitySample.Contexts, "\n\n"):
			return fakejudge.Reply{Choices: []string{contexts}}
		default:
			return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"unexpected text ` + text + `"}}`}
		}
	}
}

// Context entity recall end to end through the LLM judge and the cache:
// two calls (the reference, the chunks joined), entities matched on their
// normalised form, and a second run served from the cache alone.
func TestEntityRecallEndToEnd(t *testing.T) {
	srv := fakejudge.New(entityReplies(
		`{"entities": ["Bus 73", "Oxford Circus", "Stoke Newington", "8 minutes", "oxford circus "]}`,
		`{"entities": ["Route 73", "OXFORD CIRCUS", "Stoke  Newington", "8 minutes"]}`))
	defer srv.Close()
	db, err := cache.Open(filepath.Join(t.TempDir(), "c.db"), cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	run := func(mode cache.Mode) *eval.Result {
		r := cachedStack(t, db, srv, mode)
		r.Config.Metrics = []eval.Metric{eval.ContextEntityRecall}
		return r.Run(context.Background(), []eval.Sample{entitySample})[0]
	}
	res := run(cache.ReadWrite)
	if v, ok := res.Score(eval.ContextEntityRecall); !ok || !near(v, 0.75) {
		t.Fatalf("entity recall %v (%s: %s), want 3/4", v, res.Status[eval.ContextEntityRecall], res.Errors[eval.ContextEntityRecall])
	}
	want := []eval.EntityMatch{{Entity: "Bus 73"}, {Entity: "Oxford Circus", Found: true, Match: "OXFORD CIRCUS"},
		{Entity: "Stoke Newington", Found: true, Match: "Stoke  Newington"}, {Entity: "8 minutes", Found: true, Match: "8 minutes"}}
	if tr := res.ContextEntityRecall; !slices.Equal(tr.Reference, want) || tr.Found != 3 || len(tr.Contexts) != 4 {
		t.Errorf("trace %+v", tr)
	}
	if n := srv.Count(prompts.TaskContextEntityRecallEntities); n != 2 {
		t.Errorf("%d entity calls, want 2 (the reference, the contexts joined)", n)
	}
	for _, c := range res.Calls {
		if c.Task != prompts.TaskContextEntityRecallEntities {
			t.Errorf("call of task %q", c.Task)
		}
	}
	before := srv.Count("")
	again := run(cache.CacheOnly)
	if srv.Count("") != before {
		t.Errorf("the cached run made %d requests", srv.Count("")-before)
	}
	if v, ok := again.Score(eval.ContextEntityRecall); !ok || !near(v, 0.75) {
		t.Errorf("cached run: %v %s %s", v, again.Status[eval.ContextEntityRecall], again.Errors[eval.ContextEntityRecall])
	}
}

// A reply that breaks the contract, or a failing endpoint, ends the
// sample's metric with a status and a message; the reference without any
// entity is a status of its own.
func TestEntityRecallFailures(t *testing.T) {
	for _, tc := range []struct {
		name, ref, ctx string
		st             eval.Status
		msg            string
	}{
		{"missing key", `{"entities": ["Bus 73"]}`, `{"names": ["Route 73"]}`, eval.StatusParseError, `missing field "entities"`},
		{"not strings", `{"entities": [73]}`, `{"entities": []}`, eval.StatusParseError, "context_entity_recall_entities"},
		{"no reference entities", `{"entities": []}`, `{"entities": ["Route 73"]}`, eval.StatusNoStatements, "no entities in the reference"},
		{"no context entities", `{"entities": ["Bus 73"]}`, `{"entities": []}`, eval.StatusOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrain()
			reply := entityReplies(tc.ref, tc.ctx)
			b.override = func(r *fakejudge.Request, _ int) (fakejudge.Reply, bool) { return reply(r), true }
			st := newStack(t, b, stackOpt{maxRetries: -1})
			res := st.run(t, context.Background(), []eval.Metric{eval.ContextEntityRecall}, entitySample)[0]
			if got := res.Status[eval.ContextEntityRecall]; got != tc.st || !strings.Contains(res.Errors[eval.ContextEntityRecall], tc.msg) {
				t.Fatalf("status %s (%q), want %s with %q", got, res.Errors[eval.ContextEntityRecall], tc.st, tc.msg)
			}
			if tc.st == eval.StatusOK && score(t, res, eval.ContextEntityRecall) != 0 {
				t.Errorf("no context entities scored %v, want 0", score(t, res, eval.ContextEntityRecall))
			}
		})
	}
	b := newBrain()
	b.override = func(r *fakejudge.Request, _ int) (fakejudge.Reply, bool) {
		return fakejudge.Reply{Status: 503, Body: `{"error":{"message":"overloaded"}}`}, true
	}
	st := newStack(t, b, stackOpt{maxRetries: -1})
	res := st.run(t, context.Background(), []eval.Metric{eval.ContextEntityRecall}, entitySample)[0]
	if got := res.Status[eval.ContextEntityRecall]; !got.Failed() || !strings.Contains(res.Errors[eval.ContextEntityRecall], "overloaded") {
		t.Errorf("a failing endpoint: %s %q", got, res.Errors[eval.ContextEntityRecall])
	}
	if _, ok := res.Score(eval.ContextEntityRecall); ok {
		t.Error("a failed metric has a score")
	}
}
