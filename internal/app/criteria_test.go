package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/internal/exit"
)

// --criteria is read and checked before anything else runs: a mistake is
// a usage error naming the file and the line; criterion names may be
// gated like metrics, and an unknown gate name lists them.
func TestConfigCriteria(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", "criteria:\n  - name: cites_policy\n    kind: regex\n    pattern: \"第[0-9]+条\"\n  - name: short\n    kind: max_chars\n    max: 200\n")
	for _, c := range []struct {
		name string
		cfg  Config
		says string // "" for valid
	}{
		{"gated", Config{Criteria: good, FailUnder: "cites_policy=0.9", FailUnderSample: "short=1"}, ""},
		{"with a metric", Config{Criteria: good, FailUnder: "f=0.5,short=0.5"}, ""},
		{"unknown gate", Config{Criteria: good, FailUnder: "shortness=1"}, `unknown metric "shortness" (choose from faithfulness`},
		{"unknown gate lists criteria", Config{Criteria: good, FailUnderSample: "shortness=1"}, "or a criterion: cites_policy, short"},
		{"criterion without --criteria", Config{FailUnder: "short=1"}, `unknown metric "short"`},
		{"gate out of range", Config{Criteria: good, FailUnder: "short=2"}, `"2" is not a score between 0 and 1`},
		{"missing file", Config{Criteria: filepath.Join(dir, "none.yaml")}, "none.yaml"},
		{"unknown kind", Config{Criteria: write("kind.yaml", "criteria:\n  - name: a\n    kind: regexp\n    pattern: x\n")}, "kind.yaml:3:"},
		{"metric's name", Config{Criteria: write("metric.yaml", "criteria:\n  - name: faithfulness\n    kind: json_valid\n")}, "metric.yaml:2:"},
		{"metric's abbreviation", Config{Criteria: write("abbrev.yaml", "criteria:\n  - name: cr\n    kind: json_valid\n")}, "abbrev.yaml:2:"},
		{"metric's alias", Config{Criteria: write("alias.yaml", "criteria:\n  - name: recall\n    kind: json_valid\n")}, "alias.yaml:2:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Concurrency, cfg.Strictness, cfg.Timeout = 1, 1, 1
			err := cfg.Validate()
			if c.says == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ue exit.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %v, want a usage error saying %q", err, c.says)
			}
		})
	}
}
