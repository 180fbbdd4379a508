package app

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/outfile"
	"github.com/ragscope/ragscope/internal/runreport"
	"github.com/ragscope/ragscope/internal/store"
)

// Gate settings that make no sense are usage errors naming the flag.
func TestConfigGateValidation(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		says string // "" for valid
	}{
		{Config{FailUnder: "faithfulness=0.8,ar=-0.5", FailUnderSample: "cr=0.5", MaxFailing: "2%", Format: runreport.FormatGitHub}, ""},
		{Config{FailUnder: "f=2"}, "--fail-under"},
		{Config{FailUnder: "fidelity=0.5"}, `unknown metric "fidelity"`},
		{Config{FailUnderSample: "f"}, "--fail-under-sample"},
		{Config{FailUnderSample: "cp=-0.1"}, "--fail-under-sample"},
		{Config{FailUnderConversation: "f=0.5,ns=0.3", Metrics: "faithfulness,noise_sensitivity"}, ""},
		{Config{FailUnderConversation: "f=1.5"}, "--fail-under-conversation"},
		{Config{FailUnderConversation: "f=0.5,faithfulness=0.6"}, "given twice"},
		{Config{FailUnderConversation: "cr=0.5", Metrics: "faithfulness"}, "--fail-under-conversation context_recall"},
		{Config{MaxFailing: "-1"}, "--max-failing"},
		{Config{MaxFailing: "ten%"}, "--max-failing"},
		{Config{Format: "md"}, "--format"},
		{Config{FailUnder: "cr=0.5", Metrics: "faithfulness"}, "does not evaluate context_recall"},
		{Config{FailUnderSample: "faithfulness=0.5", Metrics: "answer_relevancy"}, "--fail-under-sample faithfulness"},
	} {
		cfg := c.cfg
		cfg.Concurrency, cfg.Strictness, cfg.Timeout = 1, 1, 1
		err := cfg.Validate()
		if c.says == "" {
			if err != nil {
				t.Errorf("%+v: %v", c.cfg, err)
			}
			continue
		}
		var ue exit.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%+v: error %v, want a usage error saying %q", c.cfg, err, c.says)
		}
	}
}

// finish writes the report in --format, the JUnit file and, with the
// github format, appends the summary and the gate to the step summary.
func TestFinishWritesEveryOutput(t *testing.T) {
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	id := reportFixture(t, st, 40)
	dir := t.TempDir()
	summary := filepath.Join(dir, "step_summary.md")
	if err := os.WriteFile(summary, []byte("previous step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	junit, err := outfile.Create(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := parsed(t, &Config{Format: runreport.FormatGitHub, FailUnder: "faithfulness=0.9", FailUnderSample: "f=0.5", MaxFailing: "10%", StepSummary: summary,
		Concurrency: 1, Strictness: 1, Timeout: 1})
	var out bytes.Buffer
	o := &Outputs{out: &out, junit: junit}
	e, rerr, werr := o.Finish(st, id, nil, cfg)
	if rerr != nil || werr != nil {
		t.Fatal(rerr, werr)
	}
	if e.Code(false) != exit.Gate || e.Outcome.Passed() {
		t.Fatalf("exit %d, outcome %+v", e.Code(false), e.Outcome)
	}
	if !strings.HasPrefix(out.String(), "::error title=ragscope gate breached::faithfulness mean 0.") {
		t.Errorf("github report starts %.200q", out.String())
	}
	sum, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"previous step\n# ragscope run " + id, "| faithfulness |", "## Gate: FAILED", "**breached**: faithfulness mean", "Worst samples below"} {
		if !strings.Contains(string(sum), want) {
			t.Errorf("step summary lacks %q:\n%s", want, sum)
		}
	}
	x, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil || !bytes.Contains(x, []byte(`<testsuite name="ragscope.gate" tests="2" failures="2"`)) {
		t.Errorf("junit: %v\n%.2000s", err, x)
	}
	// Without the github format, no step summary.
	before := len(sum)
	if _, _, werr := (&Outputs{out: &bytes.Buffer{}}).Finish(st, id, nil, &Config{Format: runreport.FormatJSONL, StepSummary: summary}); werr != nil {
		t.Fatal(werr)
	}
	if after, _ := os.ReadFile(summary); len(after) != before {
		t.Error("a jsonl report appended to the step summary")
	}
}
