package app

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/store"
)

func TestProgressETAFollowsThePace(t *testing.T) {
	p := progress{total: 100, start: time.Now().Add(-time.Minute)}
	// Samples evaluated 4 at a time, 400 ms each (10 a second), after a
	// slow minute: the ETA is what is left at that pace, not at the mean
	// since the start.
	t0 := time.Now()
	for i := 0; i < 20; i++ {
		at := t0.Add(time.Duration(i/4) * 400 * time.Millisecond)
		p.observe(&eval.Event{Kind: eval.EventSampleStarted, Sample: i, Time: at})
		if i%4 == 3 {
			for j := i - 3; j <= i; j++ {
				p.observe(&eval.Event{Kind: eval.EventSampleFinished, Sample: j, Time: at.Add(400 * time.Millisecond),
					Result: &eval.Result{Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}}})
			}
		}
	}
	if got := p.eta(); got != "8s" {
		t.Fatalf("eta %s, want 8s (80 left at 10/s)", got)
	}
}

// TestProgressStoppedSamples: after Ctrl-C a sample the stop cut short,
// evaluated in part or not at all, is not done: it is counted apart.
func TestProgressStoppedSamples(t *testing.T) {
	tests := []struct {
		name          string
		status        map[eval.Metric]eval.Status
		calls         int
		done, stopped int
	}{
		{"scored", map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}, 2, 1, 0},
		{"never started", map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusCancelled}, 0, 0, 1},
		{"cut short with calls made", map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusCancelled}, 3, 0, 1},
		{"one metric cut short", map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.ContextRecall: eval.StatusCancelled}, 3, 0, 1},
		{"a judge's failure is done", map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusJudgeError}, 1, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := progress{total: 24}
			r := &eval.Result{Status: tt.status, Calls: make([]eval.CallRecord, tt.calls)}
			p.observe(&eval.Event{Kind: eval.EventSampleFinished, Result: r})
			if p.done != tt.done || p.stopped != tt.stopped {
				t.Fatalf("done %d stopped %d, want %d and %d", p.done, p.stopped, tt.done, tt.stopped)
			}
		})
	}
}

// The headless progress never prints the same line twice in a row, and the
// last line is the final count.
func TestHeadlessProgressLines(t *testing.T) {
	// Print after every sample: the end is where the old code said the
	// last count twice.
	defer func(d time.Duration) { progressEvery = d }(progressEvery)
	progressEvery = time.Nanosecond
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	s, err := Prepare(parsed(t, &Config{Dataset: smallDataset(t, 30), Offline: true, Metrics: "all", Lang: "auto", Strictness: 3, Concurrency: 1, Timeout: time.Second}), st, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var stderr bytes.Buffer
	if _, err := Headless(context.Background(), s, io.Discard, &stderr); err != nil {
		t.Fatal(err)
	}
	var progressLines []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(l, "ragscope: [") {
			progressLines = append(progressLines, l)
		}
	}
	if len(progressLines) == 0 || !strings.HasPrefix(progressLines[len(progressLines)-1], "ragscope: [30/30] 100%") {
		t.Fatalf("progress lines %q", progressLines)
	}
	count := func(l string) string { return l[:strings.Index(l, "]")] }
	for i := 1; i < len(progressLines); i++ {
		if count(progressLines[i]) == count(progressLines[i-1]) {
			t.Fatalf("the same count printed twice: %q", progressLines[i-1:i+1])
		}
	}
}
