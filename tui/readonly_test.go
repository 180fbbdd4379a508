package tui

import (
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// readOnlyHost is a stored run's host: compare works, the rest says why not.
type readOnlyHost struct{ *fakeHost }

func (readOnlyHost) ReadOnly() string { return "stored run: compare only" }

func TestReadOnlyHostLimitsTheWorkflowToCompare(t *testing.T) {
	base := fixtureResults()
	fh := &fakeHost{
		list:    fixturePrompts(),
		runs:    []report.RunInfo{{ID: "run-b", Dataset: "d"}, {ID: "run-a", Dataset: "d"}},
		results: map[string][]*eval.Result{"run-a": base, "run-b": base},
	}
	opts := fixtureOptions()
	opts.Host = readOnlyHost{fh}
	for _, keys := range [][]string{{"p"}, {"R"}, {"enter", "r"}, {"enter", "P"}} {
		m := newTestModel(t, opts, 120, 40)
		pressDrive(t, m, keys...)
		if s := screenText(m); !strings.Contains(s, "stored run: compare only") {
			t.Fatalf("%v: the reason is not shown:\n%s", keys, s)
		}
		if len(fh.planned) != 0 || len(fh.edited) != 0 {
			t.Fatalf("%v: a read-only host was asked to plan or edit", keys)
		}
	}
	m := newTestModel(t, opts, 120, 40)
	pressDrive(t, m, "c")
	if m.screen != screenRuns || !strings.Contains(screenText(m), "run-a") {
		t.Fatalf("compare is not offered:\n%s", screenText(m))
	}
}
