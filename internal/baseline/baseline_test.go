package baseline

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/store"
)

// putRun records a run of dataset started at minute min, finished unless
// not, cancelled when cancelled.
func putRun(t *testing.T, st cache.Store, id, dataset string, min int, finished, cancelled bool) {
	t.Helper()
	start := time.Date(2026, 12, 1, 9, min, 0, 0, time.UTC)
	info := report.RunInfo{ID: id, Dataset: dataset, StartedAt: start, Metrics: []eval.Metric{eval.Faithfulness}, Samples: 1, Cancelled: cancelled}
	if finished {
		end := start.Add(time.Second)
		info.FinishedAt = &end
	}
	if err := st.PutRun(info); err != nil {
		t.Fatal(err)
	}
}

// latest is the newest run finished before this one, never this one, of
// this dataset when there is one.
func TestBaselineLatest(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "r.db"), store.OpenOptions{Mode: store.Hold, Role: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	putRun(t, st, "a-old-same", "d.jsonl", 1, true, false)
	putRun(t, st, "b-other", "other.jsonl", 2, true, false)
	putRun(t, st, "c-same", "d.jsonl", 3, true, false)
	putRun(t, st, "d-cancelled", "d.jsonl", 4, true, true)
	putRun(t, st, "e-unfinished", "d.jsonl", 5, false, false)
	putRun(t, st, "f-resumed", "d.jsonl", 6, false, false)
	putRun(t, st, "g-after", "d.jsonl", 8, true, false)
	for _, c := range []struct {
		name    string
		dataset string
		run     report.RunInfo // this run: a resumed one has an id and a start
		want    string
		note    bool
	}{
		{"a new run", "d.jsonl", report.RunInfo{}, "g-after", false},
		{"a resumed run", "d.jsonl", report.RunInfo{ID: "f-resumed", StartedAt: time.Date(2026, 12, 1, 9, 6, 0, 0, time.UTC)}, "c-same", false},
		{"another dataset", "new.jsonl", report.RunInfo{}, "g-after", true},
		{"another dataset, resumed", "new.jsonl", report.RunInfo{ID: "f-resumed", StartedAt: time.Date(2026, 12, 1, 9, 6, 0, 0, time.UTC)}, "c-same", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			info, err := resolveRun(st, "latest", Run{ID: c.run.ID, StartedAt: c.run.StartedAt, Dataset: c.dataset, DatasetHash: "x"}, &stderr)
			if err != nil || info.ID != c.want {
				t.Fatalf("latest is %q (%v), want %q", info.ID, err, c.want)
			}
			if got := strings.Contains(stderr.String(), "no earlier finished run of "+c.dataset); got != c.note {
				t.Errorf("note %q", stderr.String())
			}
		})
	}
	if _, err := resolveRun(st, "f-res", Run{ID: "f-resumed", Dataset: "d.jsonl"}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "the run being resumed") {
		t.Errorf("the resumed run as its own baseline: %v", err)
	}
}

// Two files of one name in two directories are two datasets: latest is
// never a run of the other one, where both runs recorded their paths.
func TestSameDatasetByPath(t *testing.T) {
	run := Run{Dataset: "d1.jsonl", DatasetHash: "aaa", DatasetPath: "/home/a/d1.jsonl"}
	for _, tt := range []struct {
		name string
		r    report.RunInfo
		want bool
	}{
		{"the same bytes anywhere", report.RunInfo{Dataset: "x.jsonl", DatasetHash: "aaa", DatasetPath: "/tmp/x.jsonl"}, true},
		{"the same path, edited since", report.RunInfo{Dataset: "d1.jsonl", DatasetHash: "bbb", DatasetPath: "/home/a/d1.jsonl"}, true},
		{"the same name in another directory", report.RunInfo{Dataset: "d1.jsonl", DatasetHash: "ccc", DatasetPath: "/home/b/d1.jsonl"}, false},
		{"a run that recorded no path: by its name", report.RunInfo{Dataset: "d1.jsonl", DatasetHash: "ddd"}, true},
	} {
		if got := run.sameDataset(&tt.r); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
