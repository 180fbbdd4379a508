package app

import (
	"context"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

// resetStore answers a watcher as a store whose holder changed once: the
// second Watch says reset, and the run is then read again.
type resetStore struct {
	cache.Store
	watches int
	info    eval.RunInfo
	results []*eval.Result
}

func (s *resetStore) Watch(ctx context.Context, runID string, after int64, wait time.Duration) (cache.WatchBatch, error) {
	s.watches++
	switch s.watches {
	case 1, 3: // the positions taken before each read of the run
		return cache.WatchBatch{Seq: int64(s.watches)}, nil
	case 2:
		return cache.WatchBatch{Reset: true}, nil
	}
	// After the reload: the last sample, then the end.
	done := time.Now()
	info := s.info
	info.FinishedAt = &done
	return cache.WatchBatch{Seq: 9, Results: []*eval.Result{s.results[2]}, Run: &info}, nil
}

// RunPage pages one result at a time, so the watcher's read crosses pages.
func (s *resetStore) RunPage(_ string, from, limit int) (eval.RunInfo, []*eval.Result, int, error) {
	rs := s.results
	if s.watches < 3 {
		rs = rs[:2]
	}
	if limit == 0 || from >= len(rs) {
		return s.info, nil, -1, nil
	}
	end, next := from+1, from+1
	if end >= len(rs) {
		next = -1
	}
	return s.info, rs[from:end:end], next, nil
}

// A watcher that reloads after a takeover sends each result once.
func TestWatchReloadSendsEachResultOnce(t *testing.T) {
	res := func(i int) *eval.Result {
		return &eval.Result{Index: i, Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK},
			Calls: []eval.CallRecord{{Task: "faithfulness_statements", Key: "k"}}}
	}
	st := &resetStore{info: eval.RunInfo{ID: "r", Samples: 3}, results: []*eval.Result{res(0), res(1), res(2)}}
	finished, calls := map[int]int{}, 0
	for ev := range WatchRun(context.Background(), st, "r") {
		switch ev.Kind {
		case eval.EventSampleFinished:
			finished[ev.Result.Index]++
		case eval.EventCall:
			calls++
		}
	}
	if len(finished) != 3 || finished[0] != 1 || finished[1] != 1 || finished[2] != 1 || calls != 3 {
		t.Fatalf("finished %v, %d calls; want each of 3 samples once, 3 calls", finished, calls)
	}
}
