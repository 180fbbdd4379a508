package cache

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

func TestDeleteRuns(t *testing.T) {
	db := openTemp(t)
	for _, id := range []string{"run-a", "run-ab", "run-b"} {
		if err := db.PutRun(report.RunInfo{ID: id, Samples: 3}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if err := db.PutResult(id, sampleResult(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	c := db.Client(&fakeInner{}, ReadWrite)
	if _, err := c.Chat(t.Context(), chatReq("m", 0)); err != nil {
		t.Fatal(err)
	}

	// "run-a" is a prefix of "run-ab": only the exact id goes, with its
	// results; duplicates count once.
	runs, results, err := db.DeleteRuns([]string{"run-a", "run-a"})
	if err != nil || runs != 1 || results != 3 {
		t.Fatalf("DeleteRuns = %d, %d, %v; want 1, 3, nil", runs, results, err)
	}
	if _, _, err := db.Run("run-ab"); err != nil {
		t.Fatalf("run-ab went with run-a: %v", err)
	}
	if _, err := db.Results("run-a"); err == nil {
		t.Fatal("run-a is still recorded")
	}
	// Repeating it (a holder lost mid-call) is not an error.
	if runs, results, err := db.DeleteRuns([]string{"run-a"}); err != nil || runs != 0 || results != 0 {
		t.Fatalf("repeat = %d, %d, %v", runs, results, err)
	}
	// Results of a run whose record is already gone are removed too.
	if runs, results, err := db.DeleteRuns([]string{"run-ab", "run-b"}); err != nil || runs != 2 || results != 6 {
		t.Fatalf("DeleteRuns = %d, %d, %v; want 2, 6, nil", runs, results, err)
	}
	st, err := db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Of(KindRuns).Entries != 0 || st.Of(KindResults).Entries != 0 || st.Of(KindChat).Entries != 1 {
		t.Errorf("after deleting every run: %+v (the call cache must stay)", st.Kinds)
	}
	for _, bad := range []string{"", LatestRun, "a/b"} {
		if _, _, err := db.DeleteRuns([]string{bad}); err == nil {
			t.Errorf("DeleteRuns(%q) succeeded", bad)
		}
	}
	// A deleted run's evaluator cannot store more results.
	if err := db.PutResult("run-b", sampleResult(0)); err == nil || !strings.Contains(err.Error(), "not recorded") {
		t.Errorf("PutResult after delete: %v", err)
	}
}

func TestDeleteRunsMany(t *testing.T) {
	db := openTemp(t)
	var ids []string
	for r := 0; r < 20; r++ {
		id := fmt.Sprintf("r%02d", r)
		ids = append(ids, id)
		if err := db.PutRun(report.RunInfo{ID: id, Samples: 50}); err != nil {
			t.Fatal(err)
		}
		rs := make([]*eval.Result, 50)
		for i := range rs {
			rs[i] = sampleResult(i)
		}
		if err := db.PutResults(id, rs); err != nil {
			t.Fatal(err)
		}
	}
	runs, results, err := db.DeleteRuns(ids[:10])
	if err != nil || runs != 10 || results != 500 {
		t.Fatalf("DeleteRuns = %d, %d, %v", runs, results, err)
	}
	left, err := db.Runs()
	if err != nil || len(left) != 10 {
		t.Fatalf("%d runs left, %v", len(left), err)
	}
	for _, r := range left[:1] {
		if _, rs, err := db.Run(r.ID); err != nil || len(rs) != 50 || rs[49] == nil {
			t.Fatalf("run %s lost results: %v", r.ID, err)
		}
	}
}
