package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/offline"
)

// The report fields this file's tests read.
type fcReport struct {
	Run struct {
		Config map[string]string `json:"config"`
	} `json:"run"`
	Samples []struct {
		ID                 string              `json:"id"`
		Scores             map[string]*float64 `json:"scores"`
		Status             map[string]string   `json:"status"`
		Errors             map[string]string   `json:"errors"`
		FactualCorrectness *struct {
			Mode            string            `json:"mode"`
			AnswerClaims    []json.RawMessage `json:"answer_claims"`
			ReferenceClaims []json.RawMessage `json:"reference_claims"`
			TP, FP, FN      int
		} `json:"factual_correctness"`
		NoiseSensitivity *struct {
			Mode   string            `json:"mode"`
			Chunks []json.RawMessage `json:"chunks"`
		} `json:"noise_sensitivity"`
	} `json:"samples"`
}

func readFCReport(t *testing.T, r result) fcReport {
	t.Helper()
	var rep fcReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("report: %v\nstderr:\n%s", err, r.stderr)
	}
	return rep
}

// A bad mode is refused before anything runs, naming the flag, from the
// command line and from the settings file.
func TestFactualAndNoiseModesAreChecked(t *testing.T) {
	demo := repoFile("testdata/demo.jsonl")
	for _, args := range [][]string{{"--fc-mode", "f2"}, {"--fc-mode", ""}, {"--ns-mode", "noisy"}} {
		r := runBin(t, cleanEnv(t), append(append([]string{"run", "--headless", "--offline"}, args...), demo)...)
		if args[1] == "" {
			// An empty mode is the default, as an empty --ac-weights is.
			if r.code != exitOK {
				t.Errorf("%v: exit %d\n%s", args, r.code, r.stderr)
			}
			continue
		}
		if r.code != exitUsage || !strings.Contains(r.stderr, args[0]) || !strings.Contains(r.stderr, args[1]) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming the flag and the value", args, r.code, r.stderr)
		}
	}
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"ns_mode": "both"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, cleanEnv(t), "run", "--headless", "--offline", "--config", cfg, demo)
	if r.code != exitUsage || !strings.Contains(r.stderr, "--ns-mode") {
		t.Errorf("settings ns_mode both: exit %d, stderr %q", r.code, r.stderr)
	}
	got, _, _ := completions(t, cleanEnv(t), "run", "--fc-mode", "")
	if keys := sortedKeysOf(got); !slices.Equal(keys, []string{"f1", "precision", "recall"}) {
		t.Errorf("--fc-mode completes %v", keys)
	}
	got, _, _ = completions(t, cleanEnv(t), "run", "--ns-mode", "")
	if keys := sortedKeysOf(got); !slices.Equal(keys, []string{"irrelevant", "relevant"}) {
		t.Errorf("--ns-mode completes %v", keys)
	}
}

func sortedKeysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Offline: factual correctness is scored with the support test, noise
// sensitivity is unsupported with the reason; the settings file's fc_mode
// is the run's.
func TestOfflineFactualCorrectnessAndNoiseSensitivity(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"fc_mode": "precision"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, cleanEnv(t), "run", "--headless", "--offline", "--config", cfg, "--metrics", "all,factual_correctness,noise_sensitivity",
		"--format", "json", repoFile("testdata/demo.jsonl"))
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rep := readFCReport(t, r)
	if rep.Run.Config["fc_mode"] != "precision" || rep.Run.Config["ns_mode"] != "relevant" {
		t.Errorf("run config %v", rep.Run.Config)
	}
	scored := 0
	for _, s := range rep.Samples {
		if s.Status["noise_sensitivity"] != "unsupported" || s.Errors["noise_sensitivity"] != offline.NoiseSensitivityUnsupported || s.Scores["noise_sensitivity"] != nil {
			t.Errorf("%s: noise sensitivity %s %q", s.ID, s.Status["noise_sensitivity"], s.Errors["noise_sensitivity"])
		}
		if s.Status["factual_correctness"] == "ok" {
			scored++
			if fc := s.FactualCorrectness; fc == nil || fc.Mode != "precision" || len(fc.AnswerClaims) != fc.TP+fc.FP || len(fc.ReferenceClaims) != 0 {
				t.Errorf("%s: trace %+v", s.ID, fc)
			}
		}
	}
	if scored == 0 {
		t.Error("no sample has a factual correctness score")
	}
	if !strings.Contains(r.stderr, "unsupported") {
		t.Errorf("the summary does not say noise sensitivity is unsupported:\n%s", r.stderr)
	}
}

// Through HTTP with the fake judge, both metrics end to end, in the modes
// asked for.
func TestFactualCorrectnessAndNoiseSensitivityOverHTTP(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	dir := t.TempDir()
	r := runBin(t, cleanEnv(t, "OPENAI_API_KEY=sk-test-0123456789"), "run", "--headless", "--base-url", srv.BaseURL(), "--db", filepath.Join(dir, "r.db"),
		"--metrics", "factual_correctness,noise_sensitivity", "--fc-mode", "recall", "--ns-mode", "irrelevant", "--format", "json", repoFile("testdata/demo.jsonl"))
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if srv.Count("entailment_verdicts") == 0 {
		t.Fatal("no entailment_verdicts request reached the judge")
	}
	rep := readFCReport(t, r)
	if rep.Run.Config["fc_mode"] != "recall" || rep.Run.Config["ns_mode"] != "irrelevant" {
		t.Errorf("run config %v", rep.Run.Config)
	}
	ok := 0
	for _, s := range rep.Samples {
		if s.Status["factual_correctness"] != "ok" {
			continue
		}
		ok++
		if fc := s.FactualCorrectness; fc == nil || fc.Mode != "recall" || len(fc.ReferenceClaims) == 0 {
			t.Errorf("%s: factual correctness trace %+v", s.ID, fc)
		}
		if ns := s.NoiseSensitivity; s.Status["noise_sensitivity"] == "ok" && (ns == nil || ns.Mode != "irrelevant" || len(ns.Chunks) == 0) {
			t.Errorf("%s: noise sensitivity trace %+v", s.ID, ns)
		}
	}
	if ok == 0 {
		t.Errorf("no sample scored:\n%s", r.stderr)
	}
}
