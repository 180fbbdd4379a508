package app

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/runreport"
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
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
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
			s := &Session{Cfg: &Config{Dataset: c.dataset}, Store: st, Loaded: &dataset.Loaded{SHA256: "x"}, run: c.run}
			var stderr bytes.Buffer
			info, err := s.resolveBaselineRun("latest", &stderr)
			if err != nil || info.ID != c.want {
				t.Fatalf("latest is %q (%v), want %q", info.ID, err, c.want)
			}
			if got := strings.Contains(stderr.String(), "no earlier finished run of "+c.dataset); got != c.note {
				t.Errorf("note %q", stderr.String())
			}
		})
	}
	s := &Session{Cfg: &Config{Dataset: "d.jsonl"}, Store: st, run: report.RunInfo{ID: "f-resumed"}}
	if _, err := s.resolveBaselineRun("f-res", &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "the run being resumed") {
		t.Errorf("the resumed run as its own baseline: %v", err)
	}
}

// The end of a run compares it with its baseline, stored or a report
// file, in the one pass that tallies it; the gate's checks and the text
// say what changed; a baseline gone by the end cannot gate.
func TestFinishComparesWithBaseline(t *testing.T) {
	dir := t.TempDir()
	st := openShared(t, filepath.Join(dir, "r.db"), store.Hold)
	before := reportFixture(t, st, 40)
	after := reportFixture(t, st, 40)
	// In the later run two samples fall from 1 to 0.25.
	_, rs, _ := st.Run(after)
	for _, i := range []int{4, 9} {
		v := 0.25
		rs[i].Scores[eval.Faithfulness] = &v
		if err := st.PutResult(after, rs[i]); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "baseline.json")
	var rep bytes.Buffer
	if _, err := runreport.Write(st, before, runreport.FormatJSON, 0, report.Levels{}, &rep); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, rep.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{before, file} {
		t.Run(filepath.Base(arg), func(t *testing.T) {
			cfg := parsed(t, &Config{Baseline: arg, MaxDrop: "f=0.01", MaxRegressed: "1", Metrics: "faithfulness,context_recall", Concurrency: 1, Strictness: 1, Timeout: 1})
			s := &Session{Cfg: cfg, Store: st, Metrics: []eval.Metric{eval.Faithfulness, eval.ContextRecall}, Loaded: &dataset.Loaded{}}
			if err := s.prepareBaseline(&bytes.Buffer{}); err != nil {
				t.Fatal(err)
			}
			o := &runOutputs{out: &bytes.Buffer{}, baseline: s.baseline}
			e, rerr, werr := o.finish(st, after, nil, cfg)
			if rerr != nil || werr != nil {
				t.Fatal(rerr, werr)
			}
			if e.Code(false) != exit.Gate {
				t.Errorf("exit %d, want 4: %+v", e.Code(false), e.Outcome.Checks)
			}
			var text bytes.Buffer
			writeBaseline(&text, s.baseline, e.Gate.Comparison(), e.BaseDiff, e.BaseDiffErr)
			for _, want := range []string{"34 samples shared (34 by id, 0 by content)", "2 shared samples changed; the 2 worst falls first:",
				"sample 4 s4\n  faithfulness       1.000 -> 0.250  (-0.750)", "sample 9 s9"} {
				if !strings.Contains(text.String(), want) {
					t.Errorf("the comparison lacks %q:\n%s", want, text.String())
				}
			}
			var gate bytes.Buffer
			WriteGateSummary(&gate, e.Outcome, false)
			for _, want := range []string{"breached: faithfulness mean 0.493 -> 0.449 on 34 shared samples: a drop of 0.044", "breached: 2 of 34 shared samples fell by more than 0.1"} {
				if !strings.Contains(gate.String(), want) {
					t.Errorf("the gate lacks %q:\n%s", want, gate.String())
				}
			}
		})
	}
	// A file changed (or gone) by the end of the run cannot gate.
	cfg := parsed(t, &Config{Baseline: file, MaxDrop: "f=0.5", Metrics: "faithfulness", Concurrency: 1, Strictness: 1, Timeout: 1})
	s := &Session{Cfg: cfg, Store: st, Metrics: []eval.Metric{eval.Faithfulness}, Loaded: &dataset.Loaded{}}
	if err := s.prepareBaseline(&bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, bytes.Replace(rep.Bytes(), []byte(`"s1"`), []byte(`"S1"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	e, rerr, werr := (&runOutputs{baseline: s.baseline}).finish(st, after, nil, cfg)
	if rerr != nil || werr != nil {
		t.Fatal(rerr, werr)
	}
	if c := e.Outcome.Checks; len(c) != 1 || c[0].State != report.GateCannot || !strings.Contains(c[0].Message, "changed while the run was evaluated") {
		t.Errorf("checks %+v", c)
	}
	// A malformed file is a usage error naming it.
	if err := os.WriteFile(file, []byte(`{"version": 1, "samples": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	var ue exit.UsageError
	if err := s.prepareBaseline(&bytes.Buffer{}); !errors.As(err, &ue) || !strings.Contains(err.Error(), "--baseline "+file+": ") {
		t.Errorf("malformed baseline: %v", err)
	}
}
