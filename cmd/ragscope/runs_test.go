package main

import (
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval/report"
)

// TestRunStateDuration: runs says what a run took, all its attempts
// together for a resumed one, not its last attempt nor the wall-clock span.
func TestRunStateDuration(t *testing.T) {
	began := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := began.Add(d); return &t }
	tests := []struct {
		name string
		info report.RunInfo
		want string
	}{
		{"one attempt", report.RunInfo{StartedAt: began, FinishedAt: at(22 * time.Second)}, "finished 22s"},
		{"resumed an hour later", report.RunInfo{StartedAt: began, AttemptStartedAt: began.Add(time.Hour), ElapsedMS: 52000,
			FinishedAt: at(time.Hour + 22*time.Second)}, "finished 52s"},
		{"cancelled", report.RunInfo{StartedAt: began, FinishedAt: at(time.Second), Cancelled: true}, "cancelled"},
		{"interrupted", report.RunInfo{StartedAt: began}, "interrupted"},
	}
	for _, tt := range tests {
		if got := runState(tt.info, nil); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
