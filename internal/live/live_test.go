package live

import (
	"context"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/holder"
)

// resetStore answers a viewer as a store whose holder changed once: the
// second LiveUpdates says reset, and the run is then read again.
type resetStore struct {
	cache.Store
	watches int
	info    report.RunInfo
	results []*eval.Result
}

func (s *resetStore) LiveUpdates(ctx context.Context, runID string, after int64, wait time.Duration) (cache.LiveBatch, error) {
	s.watches++
	switch s.watches {
	case 1, 3: // the positions taken before each read of the run
		return cache.LiveBatch{Seq: int64(s.watches)}, nil
	case 2:
		return cache.LiveBatch{Reset: true}, nil
	}
	// After the reload: the last sample, then the end.
	done := time.Now()
	info := s.info
	info.FinishedAt = &done
	return cache.LiveBatch{Seq: 9, Results: []*eval.Result{s.results[2]}, Run: &info}, nil
}

// RunPage pages one result at a time, so the viewer's read crosses pages.
func (s *resetStore) RunPage(_ string, from, limit int) (report.RunInfo, []*eval.Result, int, error) {
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

// A viewer that reloads after a takeover sends each result once.
func TestReloadSendsEachResultOnce(t *testing.T) {
	res := func(i int) *eval.Result {
		return &eval.Result{Index: i, Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK},
			Calls: []eval.CallRecord{{Task: "faithfulness_statements", Key: "k"}}}
	}
	st := &resetStore{info: report.RunInfo{ID: "r", Samples: 3}, results: []*eval.Result{res(0), res(1), res(2)}}
	finished, calls := map[int]int{}, 0
	for ev := range Events(context.Background(), st, "r") {
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

// endingStore is a run whose evaluator stores its last results, stamps
// its end and lets go between a viewer's quiet LiveUpdates and its check that
// someone still evaluates the run (X on an attached run does that in a
// few milliseconds).
type endingStore struct {
	cache.Store
	watches int
	info    report.RunInfo
	results []*eval.Result
}

func (s *endingStore) LiveUpdates(ctx context.Context, runID string, after int64, wait time.Duration) (cache.LiveBatch, error) {
	s.watches++
	switch s.watches {
	case 1, 2: // the position, then a wait that ends with nothing new
		return cache.LiveBatch{Seq: 1}, nil
	}
	done := time.Now()
	info := s.info
	info.FinishedAt, info.Cancelled = &done, true
	return cache.LiveBatch{Seq: 5, Results: s.results, Run: &info}, nil
}

func (s *endingStore) RunPage(string, int, int) (report.RunInfo, []*eval.Result, int, error) {
	return s.info, nil, -1, nil
}

// Live: nobody evaluates the run once the second LiveUpdates has returned.
func (s *endingStore) Live() (map[string]holder.LiveRun, error) {
	if s.watches >= 2 {
		return map[string]holder.LiveRun{}, nil
	}
	return map[string]holder.LiveRun{"r": {}}, nil
}

// A run that ends right after a quiet LiveUpdates is read to its end: its last
// results and its record were stored before its evaluator let go.
func TestReadsWhatARunStoredAsItEnded(t *testing.T) {
	res := func(i int) *eval.Result {
		return &eval.Result{Index: i, Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusCancelled}}
	}
	st := &endingStore{info: report.RunInfo{ID: "r", Samples: 2}, results: []*eval.Result{res(0), res(1)}}
	finished := 0
	for ev := range Events(context.Background(), st, "r") {
		switch ev.Kind {
		case eval.EventSampleFinished:
			finished++
		case eval.EventError:
			t.Errorf("the viewer says: %s", ev.Err)
		}
	}
	if finished != 2 {
		t.Fatalf("%d samples shown of the 2 the run stored as it ended", finished)
	}
}
