package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/store"
)

// seedRuns records runs started ages ago (newest first in the listing),
// each with n results, straight into a new database file.
func seedRuns(t *testing.T, n int, ages map[string]time.Duration) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.db")
	db, err := cache.Open(path, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now()
	for id, age := range ages {
		fin := now.Add(-age + time.Second)
		if err := db.PutRun(report.RunInfo{ID: id, StartedAt: now.Add(-age), FinishedAt: &fin, Samples: n, Metrics: []eval.Metric{eval.Faithfulness}}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if err := db.PutResult(id, &eval.Result{Index: i, ID: "s"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return path
}

func runIDs(t *testing.T, env []string, db string) string {
	t.Helper()
	r := runBin(t, env, "runs", "--db", db)
	if r.code != exitOK {
		t.Fatalf("runs: exit %d\n%s", r.code, r.stderr)
	}
	return r.stdout
}

func TestRunsDelete(t *testing.T) {
	env := cleanEnv(t)
	db := seedRuns(t, 3, map[string]time.Duration{
		"20240101-000000-aaaa": 300 * time.Hour,
		"20240102-000000-bbbb": 200 * time.Hour,
		"20240103-000000-cccc": 100 * time.Hour,
	})
	// A prefix and latest; latest is cccc.
	r := runBin(t, env, "runs", "delete", "--db", db, "20240101", "latest")
	if r.code != exitOK {
		t.Fatalf("delete: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "deleted 2 runs and 6 results") || !strings.Contains(r.stdout, "ragscope cache compact") {
		t.Fatalf("delete output:\n%s", r.stdout)
	}
	list := runIDs(t, env, db)
	if strings.Contains(list, "aaaa") || strings.Contains(list, "cccc") || !strings.Contains(list, "bbbb") {
		t.Fatalf("after delete:\n%s", list)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"runs", "delete", "--db", db}, "give the RUNs"},
		{[]string{"runs", "delete", "--db", db, "nosuch"}, "no run"},
		{[]string{"runs", "delete", "--db", db, "2024"}, "2024"}, // one run left: the prefix is unique
	} {
		r := runBin(t, env, tc.args...)
		if tc.want == "2024" {
			if r.code != exitOK || !strings.Contains(r.stdout, "deleted 1 run and 3 results") {
				t.Fatalf("%v: exit %d\n%s%s", tc.args, r.code, r.stdout, r.stderr)
			}
			continue
		}
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Fatalf("%v: exit %d, want %d and %q\n%s", tc.args, r.code, exitUsage, tc.want, r.stderr)
		}
	}
	if out := runIDs(t, env, db); !strings.Contains(out, "no runs") {
		t.Fatalf("runs after deleting all:\n%s", out)
	}
}

func TestRunsPrune(t *testing.T) {
	env := cleanEnv(t)
	db := seedRuns(t, 2, map[string]time.Duration{
		"r1-old": 90 * 24 * time.Hour,
		"r2-old": 60 * 24 * time.Hour,
		"r3-old": 40 * 24 * time.Hour,
		"r4-new": 24 * time.Hour,
	})
	// --keep 3 keeps r4, r3, r2 whatever their age; dry run deletes nothing.
	r := runBin(t, env, "runs", "prune", "--db", db, "--older-than", "30d", "--keep", "3", "--dry-run")
	if r.code != exitOK || !strings.Contains(r.stdout, "would delete run r1-old") || strings.Contains(r.stdout, "r2-old") ||
		!strings.Contains(r.stdout, "would delete 1 run and 2 results") {
		t.Fatalf("dry run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if list := runIDs(t, env, db); !strings.Contains(list, "r1-old") {
		t.Fatalf("the dry run deleted:\n%s", list)
	}
	r = runBin(t, env, "runs", "prune", "--db", db, "--older-than", "30d", "--keep", "1")
	if r.code != exitOK || !strings.Contains(r.stdout, "deleted 3 runs and 6 results") {
		t.Fatalf("prune: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	list := runIDs(t, env, db)
	if !strings.Contains(list, "r4-new") || strings.Contains(list, "old") {
		t.Fatalf("after prune:\n%s", list)
	}
	// Nothing older than 30 days is left.
	r = runBin(t, env, "runs", "prune", "--db", db, "--older-than", "30d")
	if r.code != exitOK || !strings.Contains(r.stdout, "no runs to delete") {
		t.Fatalf("prune again: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{
		{"runs", "prune", "--db", db},
		{"runs", "prune", "--db", db, "--older-than", "soon"},
		{"runs", "prune", "--db", db, "--older-than", "1d", "--keep", "-1"},
		{"runs", "prune", "--db", db, "--older-than", "1d", "r4-new"},
	} {
		if r := runBin(t, env, args...); r.code != exitUsage {
			t.Fatalf("%v: exit %d, want %d\n%s", args, r.code, exitUsage, r.stderr)
		}
	}
}

// A run being evaluated (here: announced by this test process, which holds
// the database and serves it) is refused by delete and kept by prune.
func TestRunsDeleteRefusesLiveRun(t *testing.T) {
	env := cleanEnv(t)
	db := seedRuns(t, 1, map[string]time.Duration{
		"live-run": 90 * 24 * time.Hour,
		"old-run":  80 * 24 * time.Hour,
	})
	st, err := store.Open(db, store.OpenOptions{Mode: store.Hold, Role: "run"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.BeginRun("live-run"); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, env, "runs", "delete", "--db", db, "live-run", "old-run")
	if r.code == exitOK || !strings.Contains(r.stderr, "pid ") || !strings.Contains(r.stderr, "live-run") || !strings.Contains(r.stderr, "nothing was deleted") {
		t.Fatalf("delete of a live run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if runs, _ := st.Runs(); len(runs) != 2 {
		t.Fatalf("%d runs left, want 2", len(runs))
	}
	r = runBin(t, env, "runs", "prune", "--db", db, "--older-than", "30d")
	if r.code != exitOK || !strings.Contains(r.stderr, "keeping run live-run") || !strings.Contains(r.stdout, "deleted 1 run and 1 result") {
		t.Fatalf("prune with a live run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Through the store API too: the holder refuses it.
	if _, _, err := st.DeleteRuns([]string{"live-run"}); err == nil || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("DeleteRuns of a live run: %v", err)
	}
	if err := st.EndRun("live-run"); err != nil {
		t.Fatal(err)
	}
	r = runBin(t, env, "runs", "delete", "--db", db, "live")
	if r.code != exitOK || !strings.Contains(r.stdout, "deleted 1 run and 1 result") {
		t.Fatalf("delete after the run ended: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestDiffWarnsAndQuotesEachSide(t *testing.T) {
	env := cleanEnv(t)
	path := filepath.Join(t.TempDir(), "r.db")
	db, err := cache.Open(path, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	one, zero := 1.0, 0.0
	for i, side := range []struct {
		id, model, url string
		score          *float64
		stmts          []eval.StatementVerdict
	}{
		{"run-a", "gpt-a", "https://a.example/v1", &zero, []eval.StatementVerdict{
			{Statement: "Same text.", Verdict: 1, Reason: "ok"},
			{Statement: `Old "quoted" -> text`, Verdict: 0, Reason: "not stated"}}},
		{"run-b", "gpt-b", "https://b.example/v1", &one, []eval.StatementVerdict{
			{Statement: "Same text.", Verdict: 0, Reason: "changed mind"},
			{Statement: "New text", Verdict: 1, Reason: "stated"},
			{Statement: "Extra", Verdict: 1, Reason: "stated too"}}},
	} {
		info := report.RunInfo{ID: side.id, StartedAt: now.Add(time.Duration(i) * time.Minute), Samples: 1,
			Metrics: []eval.Metric{eval.Faithfulness}, Judge: eval.JudgeInfo{Kind: "llm", Name: side.model, Model: side.model, BaseURL: side.url}}
		if err := db.PutRun(info); err != nil {
			t.Fatal(err)
		}
		res := &eval.Result{Index: 0, ID: "s0", Scores: map[eval.Metric]*float64{eval.Faithfulness: side.score},
			Status:       map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK},
			Faithfulness: &eval.FaithfulnessTrace{Statements: side.stmts}}
		if err := db.PutResult(side.id, res); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	d := runBin(t, env, "diff", "--db", path, "run-a", "run-b")
	if d.code != exitOK {
		t.Fatalf("diff: exit %d\n%s", d.code, d.stderr)
	}
	for _, want := range []string{`model "gpt-a" vs "gpt-b"`, `base URL "https://a.example/v1" vs "https://b.example/v1"`} {
		if !strings.Contains(d.stderr, want) {
			t.Errorf("diff warning lacks %q:\n%s", want, d.stderr)
		}
	}
	for _, want := range []string{
		"faithfulness statement 1 \"Same text.\"\n      before: 1: ok\n      after:  0: changed mind\n",
		"faithfulness statement 2\n      before: \"Old \\\"quoted\\\" -> text\"  0: not stated\n      after:  \"New text\"  1: stated\n",
		"faithfulness statement 3\n      before: (no statement 3)\n      after:  \"Extra\"  1: stated too\n",
	} {
		if !strings.Contains(d.stdout, want) {
			t.Errorf("diff lacks\n%s\nin:\n%s", want, d.stdout)
		}
	}

	same := runBin(t, env, "diff", "--db", path, "run-b", "latest")
	if same.code != exitOK || !strings.Contains(same.stderr, "both sides are run run-b") || strings.Contains(same.stderr, "different judges") {
		t.Fatalf("diff of a run with itself: exit %d\n%s", same.code, same.stderr)
	}
}
