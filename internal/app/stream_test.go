package app

import (
	"bytes"
	"context"
	"encoding/json"
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

func offlineConfig(data string, stream bool) *Config {
	return &Config{Dataset: data, Offline: true, Metrics: "all", Lang: "auto", Strictness: 3, Concurrency: 4,
		Timeout: time.Second, Stream: stream}
}

// A headless run that streams its dataset reports exactly what a run with
// the dataset in memory reports, and its session holds no sample.
func TestStreamedRunReportsWhatALoadedRunDoes(t *testing.T) {
	data := smallDataset(t, 40)
	reports := map[bool]report.Report{}
	for _, stream := range []bool{false, true} {
		st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
		s, err := Prepare(parsed(t, offlineConfig(data, stream)), st, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if stream && (s.Loaded.Samples != nil || s.Loaded.Count != 40) {
			t.Fatalf("a streaming session holds %d samples, counts %d", len(s.Loaded.Samples), s.Loaded.Count)
		}
		var out bytes.Buffer
		code, err := Headless(context.Background(), s, &out, io.Discard)
		s.Close()
		if err != nil || code != exit.OK {
			t.Fatalf("stream %v: exit %d, %v", stream, code, err)
		}
		var rep report.Report
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		reports[stream] = rep
	}
	a, b := reports[false], reports[true]
	if len(a.Samples) != 40 || len(b.Samples) != 40 || b.Run.Samples != 40 {
		t.Fatalf("%d and %d samples (run says %d)", len(a.Samples), len(b.Samples), b.Run.Samples)
	}
	for i := range a.Samples {
		x, y := a.Samples[i], b.Samples[i]
		if x.Index != y.Index || x.ID != y.ID || x.Question != y.Question || *x.Scores[eval.Faithfulness] != *y.Scores[eval.Faithfulness] {
			t.Fatalf("sample %d differs: %+v / %+v", i, x, y)
		}
	}
}

// A dataset edited while a streaming run reads it stops the run, exit 1,
// saying so and how to go on; what was evaluated before is kept.
func TestStreamedRunStopsWhenTheDatasetChanges(t *testing.T) {
	data := smallDataset(t, 20)
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	s, err := Prepare(parsed(t, offlineConfig(data, true)), st, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	// Same length, one byte different: only the hash can tell.
	b[len(b)-3] ^= 1
	if err := os.WriteFile(data, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	code, err := Headless(context.Background(), s, io.Discard, &stderr)
	if code != exit.Fatal || err == nil || !strings.Contains(err.Error(), "changed while it was being evaluated") || !strings.Contains(err.Error(), "start a new run") || strings.Contains(err.Error(), "--resume") {
		t.Fatalf("exit %d, %v\n%s", code, err, stderr.String())
	}
	// The run is recorded cut short, not finished: nothing takes it for
	// a whole evaluation of the file (report latest, --baseline latest).
	runs, err := st.Runs()
	if err != nil || len(runs) != 1 || !runs[0].Cancelled {
		t.Fatalf("the run's record: %+v (%v)", runs, err)
	}
}
