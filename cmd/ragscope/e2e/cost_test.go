package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// `ragscope runs` has a COST column: dollars, $0 for the offline judge,
// "—" for a model without a price (stderr says which), "+" for a floor,
// "-" for a run with no cost recorded; `report` carries the same.
func TestRunsAndReportShowCost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	db, err := cache.Open(path, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	chat := &report.ModelPrice{Model: "priced-model", Prompt: 1, Completion: 4}
	statements := eval.TaskUsage{Chat: 2, Usage: eval.Usage{PromptTokens: 10_300, CompletionTokens: 500}}
	tasks := map[eval.Metric]eval.MetricUsage{eval.Faithfulness: {TaskUsage: statements, Tasks: map[string]eval.TaskUsage{"faithfulness_statements": statements}}}
	tests := []struct {
		id      string
		pricing *report.Pricing
		partial bool
		cost    string
	}{
		{"20260301-090000-aaaa", &report.Pricing{Table: "built-in (2025-09-30)", Chat: chat}, false, "$0.0123"},
		{"20260301-090100-bbbb", &report.Pricing{Unpriced: []string{"my-local-model"}}, false, "—"},
		{"20260301-090200-cccc", &report.Pricing{Offline: true}, false, "$0"},
		{"20260301-090300-dddd", nil, false, "-"}, // recorded before costs were
		{"20260301-090400-eeee", &report.Pricing{Chat: chat}, true, "$0.0123+"},
	}
	for i, tt := range tests {
		st := start.Add(time.Duration(i) * time.Minute)
		fin := st.Add(time.Second)
		info := report.RunInfo{ID: tt.id, StartedAt: st, FinishedAt: &fin, Samples: 1, Metrics: []eval.Metric{eval.Faithfulness},
			Pricing: tt.pricing, UsagePartial: tt.partial}
		if tt.pricing != nil {
			info.AddUsage(eval.CallCounts{Chat: 2}, eval.Usage{PromptTokens: 10_300, CompletionTokens: 500}, tasks)
			info.PriceUsage()
		}
		if err := db.PutRun(info); err != nil {
			t.Fatal(err)
		}
		if err := db.PutResult(tt.id, &eval.Result{Index: 0, ID: "s"}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	env := cleanEnv(t)

	r := runBin(t, env, "runs", "--db", path)
	if r.code != exitOK {
		t.Fatalf("runs: exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	costAt := strings.Index(lines[0], "COST")
	if costAt < 0 {
		t.Fatalf("no COST column:\n%s", r.stdout)
	}
	for _, tt := range tests {
		found := false
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, tt.id) {
				found = true
				// tabwriter pads by runes: the column starts at the same rune.
				if got := strings.Fields(string([]rune(l)[costAt:]))[0]; got != tt.cost {
					t.Errorf("%s: cost %q, want %q\n%s", tt.id, got, tt.cost, r.stdout)
				}
			}
		}
		if !found {
			t.Errorf("%s not listed:\n%s", tt.id, r.stdout)
		}
	}
	for _, want := range []string{"—: no price for my-local-model (add it to prices.json)", "+: at least"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}

	js := runBin(t, env, "report", "20260301-090000-aaaa", "--db", path)
	var rep struct {
		Run report.RunInfo `json:"run"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &rep); err != nil || rep.Run.CostUSD == nil || *rep.Run.CostUSD != 0.0123 ||
		rep.Run.Usage[eval.Faithfulness].Tasks["faithfulness_statements"].PromptTokens != 10_300 {
		t.Fatalf("report --format json: %v\n%s", err, js.stdout)
	}
	md := runBin(t, env, "report", "20260301-090100-bbbb", "--db", path, "--format", "md")
	if !strings.Contains(md.stdout, "- cost: unknown (no price for my-local-model (add it to prices.json))") {
		t.Errorf("report --format md:\n%s", md.stdout)
	}
}
