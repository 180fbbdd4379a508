package app

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/runreport"
	"github.com/ragscope/ragscope/internal/store"
)

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
			o := &Outputs{out: &bytes.Buffer{}, baseline: s.baseline}
			e, rerr, werr := o.Finish(st, after, nil, cfg)
			if rerr != nil || werr != nil {
				t.Fatal(rerr, werr)
			}
			if e.Code(false) != exit.Gate {
				t.Errorf("exit %d, want 4: %+v", e.Code(false), e.Outcome.Checks)
			}
			var text bytes.Buffer
			s.baseline.Write(&text, e.Gate.Comparison(), e.BaseDiff, e.BaseDiffErr)
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
	e, rerr, werr := (&Outputs{baseline: s.baseline}).Finish(st, after, nil, cfg)
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
