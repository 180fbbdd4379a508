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
)

func TestProgressETAFollowsTheRecentRate(t *testing.T) {
	p := progress{total: 100, start: time.Now().Add(-time.Minute)}
	// A slow start (the first samples wait for their statements), then a
	// steady 10 samples a second: the ETA is what is left at that rate,
	// not at the mean since the start.
	now := time.Now()
	for i := 0; i < 20; i++ {
		p.done++
		p.recent = append(p.recent, now.Add(time.Duration(i)*100*time.Millisecond))
	}
	if got := p.eta(); got != "8s" {
		t.Fatalf("eta %s, want 8s (80 left at 10/s)", got)
	}
	ok := &eval.Result{Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}}
	stopped := &eval.Result{Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusCancelled}}
	p.finished(ok)
	p.finished(stopped)
	if p.done != 21 || p.stopped != 1 {
		t.Fatalf("done %d stopped %d", p.done, p.stopped)
	}
}

// The headless progress never prints the same line twice in a row, and the
// last line is the final count.
func TestHeadlessProgressLines(t *testing.T) {
	// Print after every sample: the end is where the old code said the
	// last count twice.
	defer func(d time.Duration) { progressEvery = d }(progressEvery)
	progressEvery = time.Nanosecond
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), Hold)
	s, err := Prepare(&Config{Dataset: smallDataset(t, 30), Offline: true, Metrics: "all", Lang: "auto", Strictness: 3, Concurrency: 1, Timeout: time.Second}, st, io.Discard)
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
