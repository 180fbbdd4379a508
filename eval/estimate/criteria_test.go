package estimate

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/prompts"
)

// The criteria the LLM judges are planned as a run sends them: a yes_no's
// strictness draws (one request asking n, as the judge sends them here), a
// rubric's level, a checklist's items; an exact check costs nothing. Each
// criterion's calls are what a real run through the fake judge sends of
// its task, the planner's replies pass the judge's checks, and a second
// estimate over the run's cache counts every call a hit.
func TestPlanOfCriteriaEqualsTheRun(t *testing.T) {
	samples := benchSamples(4)
	samples[3].Reference = "" // needs the reference: missing_input, no call
	for _, tc := range []struct {
		name, yaml string
		task       string
		perSample  int // calls of a sample
		samples    int // samples that call
		noN        bool
	}{
		{"yes_no", "kind: yes_no\n    text: polite", prompts.TaskCriterionYesNo, 1, 4, false},
		{"yes_no of 3 draws", "kind: yes_no\n    text: polite\n    strictness: 3", prompts.TaskCriterionYesNo, 1, 4, false},
		{"yes_no of 3 draws without n", "kind: yes_no\n    text: polite\n    strictness: 3", prompts.TaskCriterionYesNo, 3, 4, true},
		{"yes_no of the reference", "kind: yes_no\n    text: agrees\n    inputs: [answer, reference]\n    strictness: 5", prompts.TaskCriterionYesNo, 1, 3, false},
		{"rubric", "kind: rubric\n    text: complete\n    levels: {1: no, 2: partly, 3: fully}", prompts.TaskCriterionRubric, 1, 4, false},
		{"checklist", "kind: checklist\n    items: [Names the designer, Gives the year, Gives the height]", prompts.TaskCriterionChecklist, 1, 4, false},
		{"exact check", "kind: contains\n    values: [Eiffel]", "", 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := criteria.Parse("c.yaml", []byte("criteria:\n  - name: crit\n    "+tc.yaml+"\n"), nil)
			if err != nil {
				t.Fatal(err)
			}
			db, err := cache.Open(filepath.Join(t.TempDir(), "c.db"), cache.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			cfg := planConfig("gpt-4o-mini")
			jcfg := llm.Config{BaseURL: "http://judge.invalid/v1", Model: "gpt-4o-mini", EmbeddingModel: "text-embedding-3-small", QuestionTemperature: 0.7, NoN: tc.noN}
			planned := llm.New(jcfg, nil, prompts.Embedded())
			cfg.Judge = func(c eval.ChatClient) eval.Judge { return planned.With(nil, c) }
			cfg.Metrics, cfg.Criteria, cfg.Store = []eval.Metric{eval.Faithfulness}, set, db
			est, err := Run(context.Background(), cfg, eval.SliceSource(samples), len(samples))
			if err != nil {
				t.Fatal(err)
			}
			want := Calls{Chat: tc.perSample * tc.samples}
			requirePlan(t, est, map[eval.Metric]Calls{"crit": want, eval.Faithfulness: {Chat: 2 * len(samples)}})
			if me := est.ByMetric["crit"]; want.Chat > 0 && (me.Tokens.Prompt == 0 || me.Tokens.Completion == 0 || me.CostUSD == nil || *me.CostUSD <= 0) {
				t.Errorf("the criterion is not priced: %+v", me)
			}
			if est.Calls.Chat != want.Chat+2*len(samples) {
				t.Errorf("total %+v", est.Calls)
			}

			srv := fakejudge.New(sentenceJudge)
			defer srv.Close()
			client, err := endpoint.New(endpoint.Config{BaseURL: srv.BaseURL(), APIKey: "k", Concurrency: 4, RequestTimeout: 5 * time.Second,
				MaxRetries: 0, BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			jcfg.BaseURL = srv.BaseURL()
			j := llm.New(jcfg,
				eval.Instrument(cache.NewClient(db, client, cache.ReadWrite)), prompts.Embedded())
			r := &eval.Runner{Judge: j, Config: eval.RunnerConfig{Metrics: cfg.Metrics, Criteria: set, Workers: 2}}
			run := make([]eval.Sample, len(samples))
			copy(run, samples)
			for _, res := range r.Run(context.Background(), run) {
				if st := res.Status["crit"]; st != eval.StatusOK && st != eval.StatusMissingInput {
					t.Errorf("sample %d: %s (%s)", res.Index, st, res.Errors["crit"])
				}
			}
			if tc.task != "" {
				if sent := srv.Count(tc.task); sent != want.Chat {
					t.Errorf("the run sent %d %s requests, the estimate planned %d", sent, tc.task, want.Chat)
				}
			}
			if sent := srv.Count(""); sent != est.Calls.Chat {
				t.Errorf("the run sent %d chat requests, the estimate planned %d", sent, est.Calls.Chat)
			}

			// The cache's keys name the endpoint: the run's.
			cfg.Judge = func(c eval.ChatClient) eval.Judge { return j.With(nil, c) }
			again, err := Run(context.Background(), cfg, eval.SliceSource(samples), len(samples))
			if err != nil {
				t.Fatal(err)
			}
			if me := again.ByMetric["crit"]; me.Calls.Chat != 0 || me.CacheHits != want.Chat {
				t.Errorf("after the run: %+v, want %d cache hits", me, want.Chat)
			}
		})
	}
}

// Criteria alone are planned alone: no metric is added.
func TestPlanOfCriteriaAlone(t *testing.T) {
	set, err := criteria.Parse("c.yaml", []byte("criteria:\n  - name: crit\n    kind: yes_no\n    text: polite\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := planConfig("gpt-4o-mini")
	cfg.Criteria = set
	est, err := Run(context.Background(), cfg, eval.SliceSource(benchSamples(2)), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(est.ByMetric) != 1 || est.Calls != (Calls{Chat: 2}) {
		t.Errorf("%+v: %+v", est.Calls, est.ByMetric)
	}
}

// A past run's yes_no calls tell how long one draw's reply is: a call
// that asked for every draw at once (n) bills all their tokens, and the
// criterion's trace says how many draws its calls brought.
func TestHistoryOfYesNoDraws(t *testing.T) {
	db, err := cache.Open(filepath.Join(t.TempDir(), "c.db"), cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hashes := map[string]string{prompts.TaskCriterionYesNo + ".en": "h"}
	run := report.RunInfo{ID: "past", StartedAt: time.Now(), Judge: eval.JudgeInfo{Kind: "llm", Model: "m"}, Prompts: hashes}
	if err := db.PutRun(run); err != nil {
		t.Fatal(err)
	}
	draws := func(n int) *criteria.Trace { return &criteria.Trace{Draws: make([]criteria.Draw, n)} }
	call := func(name string, tokens int) eval.CallRecord {
		return eval.CallRecord{Task: prompts.TaskCriterionYesNo, Metric: eval.Metric(name), Tokens: eval.Usage{CompletionTokens: tokens}}
	}
	res := []*eval.Result{
		// three draws in one call of 90 tokens; one draw of 30; three draws in three calls of 30
		{Index: 0, Criteria: map[string]*criteria.Trace{"n3": draws(3), "one": draws(1), "each": draws(3)},
			Calls: []eval.CallRecord{call("n3", 90), call("one", 30), call("each", 30), call("each", 30), call("each", 30)}},
	}
	if err := db.PutResults("past", res); err != nil {
		t.Fatal(err)
	}
	got, err := FromRuns(db, "m", hashes, 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	if o := got[prompts.TaskCriterionYesNo]; o.replies != 7 || o.tokens != 210 {
		t.Errorf("yes_no history %+v, want 7 replies of 30 tokens", o)
	}
}
