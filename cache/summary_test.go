package cache

import (
	"encoding/json"
	"errors"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/cache/internal/summary"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// RunSummaries walks a page as RunPage does, giving each result's
// summary, and a damaged value is the file's damage.
func TestRunSummaries(t *testing.T) {
	db := openTemp(t)
	if err := db.PutRun(report.RunInfo{ID: "run-a", Samples: 100}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if i%7 == 3 {
			continue // never finished
		}
		if err := db.PutResult("run-a", sampleResult(i)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ from, limit int }{{0, 10}, {5, 1000}, {99, 3}, {0, 0}} {
		_, page, wantNext, err := db.RunPage("run-a", tc.from, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		next, err := db.RunSummaries("run-a", tc.from, tc.limit, func(r *eval.Result) error {
			b, _ := json.Marshal(r)
			got = append(got, string(b))
			return nil
		})
		if err != nil || next != wantNext || len(got) != len(page) {
			t.Fatalf("from %d limit %d: %d results, next %d, %v; RunPage: %d, next %d", tc.from, tc.limit, len(got), next, err, len(page), wantNext)
		}
		for i, r := range page {
			b, _ := json.Marshal(r)
			var d summary.Decoder // itself checked against encoding/json
			dec, err := d.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := json.Marshal(dec); got[i] != string(want) {
				t.Fatalf("sample %d:\n got %s\nwant %s", r.Index, got[i], want)
			}
		}
	}
	stop := errors.New("stop")
	calls := 0
	if _, err := db.RunSummaries("run-a", 0, 10, func(*eval.Result) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("fn's error: %v after %d calls, want it after 1", err, calls)
	}
	if err := db.bolt.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketResults).Put(resultKey("run-a", 4), []byte(`{"index":4,"id":`))
	}); err != nil {
		t.Fatal(err)
	}
	var de *DamageError
	if _, err := db.RunSummaries("run-a", 0, 10, func(*eval.Result) error { return nil }); !errors.As(err, &de) {
		t.Errorf("a damaged result: %v, want a DamageError", err)
	}
}
