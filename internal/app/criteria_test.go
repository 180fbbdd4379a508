package app

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
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
		{"a judge task", Config{Criteria: write("task.yaml", "criteria:\n  - name: faithfulness_verdicts\n    kind: json_valid\n")}, "task.yaml:2: name \"faithfulness_verdicts\" is taken by a metric (its name or abbreviation) or a judge task"},
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
