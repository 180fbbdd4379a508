package app

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/store"
)

// --criteria is read and checked before anything else runs: a mistake is
// a usage error naming the file and the line; criterion names may be
// gated like metrics, and an unknown gate name lists them.
func TestConfigCriteria(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", "criteria:\n  - name: cites_policy\n    kind: regex\n    pattern: \"第[0-9]+条\"\n  - name: short\n    kind: max_chars\n    max: 200\n")
	for _, c := range []struct {
		name string
		cfg  Config
		says string // "" for valid
	}{
		{"gated", Config{Criteria: good, FailUnder: "cites_policy=0.9", FailUnderSample: "short=1"}, ""},
		{"with a metric", Config{Criteria: good, FailUnder: "f=0.5,short=0.5"}, ""},
		{"unknown gate", Config{Criteria: good, FailUnder: "shortness=1"}, `unknown metric "shortness" (choose from faithfulness`},
		{"unknown gate lists criteria", Config{Criteria: good, FailUnderSample: "shortness=1"}, "or a criterion: cites_policy, short"},
		{"criterion without --criteria", Config{FailUnder: "short=1"}, `unknown metric "short"`},
		{"gate out of range", Config{Criteria: good, FailUnder: "short=2"}, `"2" is not a score between 0 and 1`},
		{"missing file", Config{Criteria: filepath.Join(dir, "none.yaml")}, "none.yaml"},
		{"unknown kind", Config{Criteria: write("kind.yaml", "criteria:\n  - name: a\n    kind: regexp\n    pattern: x\n")}, "kind.yaml:3:"},
		{"metric's name", Config{Criteria: write("metric.yaml", "criteria:\n  - name: faithfulness\n    kind: json_valid\n")}, "metric.yaml:2:"},
		{"metric's abbreviation", Config{Criteria: write("abbrev.yaml", "criteria:\n  - name: cr\n    kind: json_valid\n")}, "abbrev.yaml:2:"},
		{"metric's alias", Config{Criteria: write("alias.yaml", "criteria:\n  - name: recall\n    kind: json_valid\n")}, "alias.yaml:2:"},
		{"a judge task", Config{Criteria: write("task.yaml", "criteria:\n  - name: faithfulness_verdicts\n    kind: json_valid\n")}, "task.yaml:2: name \"faithfulness_verdicts\" is taken by a metric (its name or abbreviation), a judge task"},
		{"a report column", Config{Criteria: write("col.yaml", "criteria:\n  - name: answer\n    kind: json_valid\n")}, "col.yaml:2: name \"answer\" is taken"},
		{"a status column", Config{Criteria: write("st.yaml", "criteria:\n  - name: polite_status\n    kind: json_valid\n")}, "st.yaml:2: name \"polite_status\" is taken"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Concurrency, cfg.Strictness, cfg.Timeout = 1, 1, 1
			err := cfg.Validate()
			if c.says == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ue exit.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %v, want a usage error saying %q", err, c.says)
			}
		})
	}
}

// A run records its criteria and scores them; --resume without
// --criteria reads the run's own file again, and refuses it once its
// contents have changed.
func TestRunAndResumeWithCriteria(t *testing.T) {
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	crit := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(crit, []byte("criteria:\n  - name: says_answer\n    kind: contains\n    values: [answer]\n  - name: polite\n    kind: yes_no\n    text: polite\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := smallDataset(t, 3)
	cfg := func(resume, criteria string) *Config {
		return &Config{Dataset: data, Offline: true, Metrics: "faithfulness", Criteria: criteria, Strictness: 1,
			Concurrency: 1, Timeout: time.Second, Lang: "auto", Stream: true, Resume: resume}
	}
	_, first := startRun(t, cfg("", crit), st)
	for range first.Events {
	}
	if _, err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	info, results, err := st.Run(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c := info.Criteria; c == nil || len(c.Items) != 2 || c.Items[1] != (report.CriterionInfo{Name: "polite", Kind: "yes_no", Pass: 1}) || c.SHA256 == "" {
		t.Fatalf("recorded criteria: %+v", info.Criteria)
	}
	for _, r := range results {
		if v, ok := r.Score("says_answer"); !ok || v != 1 || r.Status["polite"] != eval.StatusUnsupported || r.Criteria["says_answer"] == nil {
			t.Fatalf("sample %d: scores %v, statuses %v", r.Index, r.Scores, r.Status)
		}
	}

	half := info
	half.ID, half.FinishedAt = "20261204-000000-half", nil
	if err := st.PutRun(half); err != nil {
		t.Fatal(err)
	}
	if err := st.PutResults(half.ID, results[:1]); err != nil {
		t.Fatal(err)
	}
	s, err := Prepare(parsed(t, cfg(half.ID, "")), st, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s.Criteria == nil || s.Info().Criteria == nil || s.Info().Criteria.SHA256 != info.Criteria.SHA256 {
		t.Fatalf("the resumed run lost its criteria: %+v", s.Info().Criteria)
	}

	if err := os.WriteFile(crit, []byte("criteria:\n  - name: says_answer\n    kind: contains\n    values: [reply]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Prepare(parsed(t, cfg(half.ID, "")), st, io.Discard)
	var ue exit.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "holds others now") {
		t.Fatalf("resume with changed criteria: %v", err)
	}
}

// criteriaJudge is the fake judge's criteria, except that a yes_no prompt
// asking for generosity is answered yes.
func criteriaJudge(r *fakejudge.Request) fakejudge.Reply {
	if r.Task == "criterion_yes_no" && strings.Contains(r.Prompt(), "GENEROUS") {
		return fakejudge.Reply{Choices: slices.Repeat([]string{`{"quote": "answer", "reason": "generous", "verdict": 1}`}, max(r.N, 1))}
	}
	return fakejudge.Generic(r)
}

// The scenario of a team's own criteria in the interface, without it:
// edit the criterion_yes_no prompt, re-run the criteria of that kind
// (CriteriaOfTask) and only their calls reach the judge, as planned; the
// new run re-scores the yes_no criterion and carries the metric, the
// rubric, the checklist and the exact check from its parent. A re-run of
// everything then plans the criteria too, all answered by the cache.
func TestRerunCriteriaAfterAPromptEdit(t *testing.T) {
	srv := fakejudge.New(criteriaJudge)
	defer srv.Close()
	dir := t.TempDir()
	crit := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(crit, []byte(`criteria:
  - name: says_answer
    kind: contains
    values: [answer]
  - name: polite
    kind: yes_no
    text: polite
    strictness: 3
  - name: tone
    kind: rubric
    text: the register
    levels: {1: curt, 2: plain, 3: courteous}
  - name: steps
    kind: checklist
    items: [Gives a step, Gives a deadline]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	pdir := filepath.Join(dir, "prompts")
	if err := os.Mkdir(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := &Config{
		Dataset: smallDataset(t, 2), BaseURL: srv.BaseURL(), APIKey: "k", APIType: "openai", Model: "judge", EmbeddingModel: "emb",
		ResponseFormat: "json_schema", EmbedFormat: "float", Strictness: 3, Concurrency: 4,
		Timeout: 5 * time.Second, MaxRetries: 1, Metrics: "faithfulness", Criteria: crit, Lang: "auto",
		DB: filepath.Join(dir, "r.db"), PromptsDir: pdir,
	}
	st := openShared(t, cfg.DB, store.Hold)
	s, first := startRun(t, cfg, st)
	drain(t, first.Events)
	if cancelled, err := first.Wait(); cancelled || err != nil {
		t.Fatalf("first run: cancelled %v, %v", cancelled, err)
	}
	_, parent, err := st.Run(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := parent[0].Score("polite"); v != 0 || parent[0].Criteria["tone"] == nil || parent[0].Criteria["steps"] == nil {
		t.Fatalf("the first run's criteria: %v %+v", parent[0].Scores, parent[0].Criteria)
	}

	h := NewHost(s)
	path, err := h.EditPath("criterion_yes_no", "en")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append([]byte("GENEROUS: read the answer kindly.\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.Reload(parent[0]); err != nil {
		t.Fatal(err)
	}
	edited := eval.CriteriaOfTask("criterion_yes_no", s.Criteria)
	if !slices.Equal(edited, []eval.Metric{"polite"}) {
		t.Fatalf("the criteria of criterion_yes_no: %v", edited)
	}
	plan, err := h.Plan(context.Background(), []int{0}, edited)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Calls == 0 || plan.Cost == nil || len(plan.Cost.ByMetric) != 1 || plan.Cost.ByMetric[0].Metric != "polite" {
		t.Fatalf("plan of the yes_no criterion: %+v, cost %+v", plan, plan.Cost)
	}
	before, beforeYesNo := srv.Count(""), srv.Count("criterion_yes_no")
	childID, events, err := h.Rerun(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, events)
	if sent, yesNo := srv.Count("")-before, srv.Count("criterion_yes_no")-beforeYesNo; sent != plan.Calls || yesNo != sent {
		t.Fatalf("the re-run sent %d calls (%d criterion_yes_no), the plan said %d", sent, yesNo, plan.Calls)
	}
	if len(got) != 1 {
		t.Fatalf("re-run results: %d", len(got))
	}
	_, child, err := st.Run(childID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*eval.Result{got[0], child[0]} {
		if v, _ := r.Score("polite"); v != 1 || r.Status["polite"] != eval.StatusOK || len(r.Criteria["polite"].Draws) != 3 || r.Criteria["polite"].Draws[0].Reason != "generous" {
			t.Fatalf("polite was not re-scored: %v %+v", r.Scores, r.Criteria["polite"])
		}
		for _, name := range []eval.Metric{eval.Faithfulness, "says_answer", "tone", "steps"} {
			a, _ := r.Score(name)
			b, _ := parent[0].Score(name)
			if a != b || r.Status[name] != parent[0].Status[name] {
				t.Errorf("%s: %v (%s), the parent's %v (%s)", name, a, r.Status[name], b, parent[0].Status[name])
			}
		}
		if *r.Criteria["tone"].Level != *parent[0].Criteria["tone"].Level || len(r.Criteria["steps"].Items) != 2 || r.Criteria["says_answer"] == nil {
			t.Errorf("the criteria not re-run lost their traces: %+v", r.Criteria)
		}
		tasks := map[string]int{}
		for _, c := range r.Calls {
			tasks[c.Task]++
		}
		if tasks["criterion_yes_no"] != plan.Calls || tasks["criterion_rubric"] != 1 || tasks["criterion_checklist"] != 1 || tasks["faithfulness_verdicts"] != 1 {
			t.Errorf("calls of the merged result: %v", tasks)
		}
	}
	if v, _ := child[1].Score("polite"); v != 0 {
		t.Errorf("the sample not re-run was re-scored: %v", child[1].Scores)
	}

	// Everything: the metric and every criterion, the cache answering all.
	all := append([]eval.Metric{eval.Faithfulness}, edited...)
	all = append(all, "says_answer", "tone", "steps")
	plan, err = h.Plan(context.Background(), []int{0, 1}, all)
	if err != nil {
		t.Fatal(err)
	}
	// Sample 1's yes_no was asked with the old prompt only.
	if plan.Calls != srv.Count("criterion_yes_no")-beforeYesNo || len(plan.Cost.ByMetric) != 5 {
		t.Fatalf("plan of everything: %+v, cost %+v", plan, plan.Cost)
	}
	for _, mc := range plan.Cost.ByMetric {
		if mc.Metric == "says_answer" && mc.Chat+mc.CacheHits != 0 || mc.Metric == "tone" && mc.CacheHits != 2 {
			t.Errorf("%s: %+v", mc.Metric, mc)
		}
	}
	if _, err := h.Plan(context.Background(), []int{0}, []eval.Metric{"rudeness"}); err == nil || !strings.Contains(err.Error(), "neither a metric nor a criterion") {
		t.Errorf("a plan of an unknown name: %v", err)
	}
}
