package cache

import (
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

func TestNewRunID(t *testing.T) {
	db := openTemp(t)
	db.now = func() time.Time { return time.Date(2026, 11, 30, 15, 50, 12, 0, time.FixedZone("CET", 3600)) }
	seen := map[string]bool{}
	for i := 0; i < 50; i++ {
		id, _ := db.NewRunID()
		if !regexp.MustCompile(`^20261130-145012-[0-9a-f]{4}$`).MatchString(id) {
			t.Fatalf("id %q is not <UTC yyyymmdd-hhmmss>-<4 hex>", id)
		}
		if seen[id] {
			t.Fatalf("id %q repeated", id)
		}
		seen[id] = true
		if err := db.PutRun(report.RunInfo{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRunStoreSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ragscope.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	started := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	info := report.RunInfo{
		ID: "20261130-140000-beef", Dataset: "testdata/demo.jsonl", DatasetHash: "abc123",
		StartedAt: started, Judge: eval.JudgeInfo{Kind: "llm", Model: "gpt-4o-mini"},
		Prompts: map[string]string{"faithfulness_statements.en": "h1"}, Metrics: eval.AllMetrics,
		Config: map[string]string{"concurrency": "4"}, Samples: 3,
	}
	if err := db.PutRun(info); err != nil {
		t.Fatal(err)
	}
	// Sample 1 never finishes (the run was interrupted); sample 2 is
	// written twice (a resumed run re-did it) and the last write wins.
	for _, r := range []*eval.Result{sampleResult(0), sampleResult(2), sampleResult(2)} {
		if err := db.PutResult(info.ID, r); err != nil {
			t.Fatal(err)
		}
	}
	fin := started.Add(time.Minute)
	info.FinishedAt = &fin
	info.Calls = eval.CallCounts{Chat: 10, CacheHits: 4}
	if err := db.PutRun(info); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, results, err := db.Run(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, info) {
		t.Errorf("run = %+v\nwant %+v", got, info)
	}
	if len(results) != 3 || results[1] != nil || results[0] == nil || results[2] == nil {
		t.Fatalf("results = %v, want [r0 nil r2]", results)
	}
	if !reflect.DeepEqual(results[2], sampleResult(2)) {
		t.Errorf("result 2 = %+v\nwant %+v", results[2], sampleResult(2))
	}
	m, err := db.Results(info.ID)
	if err != nil || len(m) != 2 || m[0] == nil || m[2] == nil {
		t.Errorf("Results = %v, %v", m, err)
	}
	// What a report is built from: the unfinished sample is left out.
	if rep := report.NewReport(got, results); len(rep.Samples) != 2 || rep.Summary[eval.Faithfulness].Scored != 2 {
		t.Errorf("report from the store: %d samples, summary %+v", len(rep.Samples), rep.Summary)
	}
}

func TestRunLookup(t *testing.T) {
	db := openTemp(t)
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for i, id := range []string{"20261130-090000-aaaa", "20261130-100000-bbbb", "20261130-100000-bbcc", "20261201-080000-dddd"} {
		if err := db.PutRun(report.RunInfo{ID: id, StartedAt: t0.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := db.Runs()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	if want := []string{"20261201-080000-dddd", "20261130-100000-bbcc", "20261130-100000-bbbb", "20261130-090000-aaaa"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("Runs order = %v, want newest first %v", ids, want)
	}

	cases := []struct {
		ref, want, err string
	}{
		{"latest", "20261201-080000-dddd", ""},
		{"20261130-090000-aaaa", "20261130-090000-aaaa", ""},
		{"20261130-09", "20261130-090000-aaaa", ""},
		{"20261130-100000-bbc", "20261130-100000-bbcc", ""},
		{"20261130-10", "", "is ambiguous"},
		{"2025", "", "`ragscope runs` lists the recorded runs"},
		{"", "", "no run given"},
	}
	for _, tc := range cases {
		info, _, err := db.Run(tc.ref)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Run(%q): err = %v, want %q", tc.ref, err, tc.err)
			}
			continue
		}
		if err != nil || info.ID != tc.want {
			t.Errorf("Run(%q) = %s, %v; want %s", tc.ref, info.ID, err, tc.want)
		}
	}
}

func TestRunStoreErrors(t *testing.T) {
	db := openTemp(t)
	if _, _, err := db.Run("latest"); err == nil || !strings.Contains(err.Error(), "no runs are recorded") {
		t.Errorf("latest on empty store: %v", err)
	}
	if _, err := db.Results("nope"); err == nil || !strings.Contains(err.Error(), "ragscope runs") {
		t.Errorf("Results of unknown run: %v", err)
	}
	if err := db.PutRun(report.RunInfo{ID: "ok"}); err != nil {
		t.Fatal(err)
	}
	nan := sampleResult(1)
	nan.Scores[eval.Faithfulness] = ptr(zero / zero)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"result of an unrecorded run", db.PutResult("ghost", sampleResult(0)), "run ghost is not recorded"},
		{"nil result", db.PutResult("ok", nil), "nil result"},
		{"negative index", db.PutResult("ok", &eval.Result{Index: -1}), "negative sample index"},
		{"NaN score", db.PutResult("ok", nan), "sample 1: cannot encode"},
		{"empty run id", db.PutRun(report.RunInfo{}), "run id is empty"},
		{"reserved run id", db.PutRun(report.RunInfo{ID: "latest"}), "reserved"},
		{"separator in run id", db.PutRun(report.RunInfo{ID: "a/b"}), "contains"},
	}
	for _, tc := range cases {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, tc.err, tc.want)
		}
	}
	// A failed write in a group does not sink the others.
	if m, err := db.Results("ok"); err != nil || len(m) != 0 {
		t.Errorf("results after failed writes: %v, %v", m, err)
	}
}

var zero float64

// Results of two runs whose ids share a prefix do not mix.
func TestResultsStayWithTheirRun(t *testing.T) {
	db := openTemp(t)
	for _, id := range []string{"run1", "run10"} {
		if err := db.PutRun(report.RunInfo{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 3; i++ {
		_ = db.PutResult("run1", sampleResult(i))
	}
	_ = db.PutResult("run10", sampleResult(7))
	m1, _ := db.Results("run1")
	m10, _ := db.Results("run10")
	if len(m1) != 3 || len(m10) != 1 || m10[7] == nil {
		t.Errorf("run1 has %d results, run10 has %v", len(m1), m10)
	}
}

func TestPutResultsCopiesARun(t *testing.T) {
	db := openTemp(t)
	if err := db.PutResults("20261130-000000-none", []*eval.Result{{Index: 0}}); err == nil {
		t.Fatal("results of an unrecorded run were stored")
	}
	id, _ := db.NewRunID()
	if err := db.PutRun(report.RunInfo{ID: id, Samples: 3}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutResults(id, []*eval.Result{{Index: 0, ID: "a"}, nil, {Index: 2, ID: "c"}}); err != nil {
		t.Fatal(err)
	}
	_, rs, err := db.Run(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 || rs[0].ID != "a" || rs[1] != nil || rs[2].ID != "c" {
		t.Fatalf("results %v", rs)
	}
}
