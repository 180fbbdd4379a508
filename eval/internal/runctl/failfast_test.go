package runctl

import (
	"errors"
	"testing"
)

func TestFailFast(t *testing.T) {
	refused := errors.New("401 key refused")
	down := errors.New("connection refused")
	flaky := errors.New("HTTP 500")
	kind := func(err error) string {
		switch err {
		case refused:
			return "unauthorized"
		case down:
			return "unreachable"
		}
		return ""
	}
	type call struct {
		err    error
		cached bool
	}
	ok, hit := call{}, call{cached: true}
	tests := []struct {
		name  string
		calls []call
		stop  bool
	}{
		{"three refusals", []call{{err: refused}, {err: refused}, {err: refused}}, true},
		{"two are not enough", []call{{err: refused}, {err: refused}}, false},
		{"a success first: a one-off failure stays per sample", []call{ok, {err: refused}, {err: refused}, {err: refused}}, false},
		{"cache hits prove nothing about the endpoint", []call{hit, hit, {err: refused}, {err: refused}, {err: refused}}, true},
		{"failures of another kind", []call{{err: flaky}, {err: refused}, {err: refused}, {err: refused}}, false},
		{"two unrecoverable kinds", []call{{err: refused}, {err: down}, {err: refused}, {err: refused}}, false},
		// Credit spent or a key revoked mid-run: every later call fails.
		{"a streak after a success", []call{ok, {err: refused}, {err: refused}, {err: refused}, {err: refused}, {err: refused}, {err: refused}}, true},
		{"a success breaks the streak", []call{ok, {err: refused}, {err: refused}, {err: refused}, {err: refused}, {err: refused}, ok, {err: refused}, {err: refused}, {err: refused}, {err: refused}, {err: refused}}, false},
		{"a cache hit does not break it", []call{ok, {err: refused}, {err: refused}, {err: refused}, {err: refused}, {err: refused}, hit, {err: refused}}, true},
		{"another failure breaks it", []call{ok, {err: refused}, {err: refused}, {err: refused}, {err: refused}, {err: refused}, {err: flaky}, {err: refused}, {err: refused}, {err: refused}, {err: refused}, {err: refused}}, false},
		{"a streak of another kind after an early failure", []call{{err: flaky}, {err: refused}, {err: refused}, {err: refused}, {err: refused}, {err: refused}, {err: refused}}, true},
		// An endpoint that went away mid-run may come back: no stop.
		{"a streak of a kind that may pass", []call{ok, {err: down}, {err: down}, {err: down}, {err: down}, {err: down}, {err: down}, {err: down}, {err: down}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stopped error
			s := &FailFast{Kind: kind, Lasting: func(k string) bool { return k == "unauthorized" }, Abort: func(err error) { stopped = err }}
			for _, c := range tt.calls {
				s.Outcome(c.err, c.cached)
			}
			if (stopped != nil) != tt.stop {
				t.Fatalf("stopped = %v, want stop %v", stopped, tt.stop)
			}
			if stopped != nil && stopped != refused {
				t.Fatalf("stopped with %v, want the judge's error", stopped)
			}
		})
	}
}
