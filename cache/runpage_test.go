package cache

import (
	"fmt"
	"testing"

	"github.com/ragscope/ragscope/eval/report"
)

// RunPage walks a run in index order, a page at a time, across gaps
// (samples never finished), from any start, and next says where to go on.
func TestRunPage(t *testing.T) {
	db := openTemp(t)
	for _, id := range []string{"run-a", "run-ab"} { // run-ab shares run-a's prefix
		if err := db.PutRun(report.RunInfo{ID: id, Samples: 1200}); err != nil {
			t.Fatal(err)
		}
	}
	var want []int
	for i := 0; i < 1200; i++ {
		if i%7 == 3 {
			continue // never finished
		}
		want = append(want, i)
		if err := db.PutResult("run-a", sampleResult(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.PutResult("run-ab", sampleResult(0)); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ from, limit int }{{0, 1}, {0, 256}, {0, 5000}, {3, 10}, {1199, 4}, {1200, 4}, {-5, 300}}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("from %d limit %d", tc.from, tc.limit), func(t *testing.T) {
			var got []int
			pages := 0
			for from, first := tc.from, true; first || from >= 0; first, pages = false, pages+1 {
				info, page, next, err := db.RunPage("run-a", from, tc.limit)
				if err != nil || info.ID != "run-a" {
					t.Fatalf("RunPage(%d): %v %q", from, err, info.ID)
				}
				if len(page) > tc.limit {
					t.Fatalf("page of %d, limit %d", len(page), tc.limit)
				}
				for _, r := range page {
					got = append(got, r.Index)
				}
				if next >= 0 && (len(page) != tc.limit || next <= page[len(page)-1].Index) {
					t.Fatalf("next %d after a page of %d ending at %d", next, len(page), page[len(page)-1].Index)
				}
				from = next
			}
			var expect []int
			for _, i := range want {
				if i >= tc.from {
					expect = append(expect, i)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(expect) {
				t.Fatalf("got %d indexes, want %d (first %v)", len(got), len(expect), got[:min(5, len(got))])
			}
		})
	}
	info, page, next, err := db.RunPage("latest", 0, 0)
	if err != nil || info.ID == "" || page != nil || next != -1 {
		t.Fatalf("limit 0: %+v %v %d %v", info, page, next, err)
	}
	if _, _, _, err := db.RunPage("nope", 0, 10); err == nil {
		t.Fatal("a run that does not exist paged")
	}
}
