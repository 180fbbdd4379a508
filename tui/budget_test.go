package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
)

// fakeFirst stands in for the application's first run: it counts the
// estimates and starts asked of it. Its functions run in commands, which
// teatest runs on goroutines of its own, hence the lock.
type fakeFirst struct {
	mu       sync.Mutex
	cost     *Cost
	estErr   error
	startErr error
	events   chan eval.Event
	estimated,
	started int
	cancelled bool
}

func (f *fakeFirst) options() *FirstRun {
	return &FirstRun{
		Estimate: func(context.Context) (*Cost, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.estimated++
			return f.cost, f.estErr
		},
		Start: func(context.Context) (Started, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.started++
			if f.startErr != nil {
				return Started{}, f.startErr
			}
			return Started{Events: f.events, At: fixedStart, Cancel: func() {
				f.mu.Lock()
				f.cancelled = true
				f.mu.Unlock()
			}}, nil
		},
	}
}

func (f *fakeFirst) starts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.started
}

func usd(v float64) *float64 { return &v }

// demoCost is the estimate of the demo in the README, over a budget of
// a millionth of a dollar.
func demoCost() *Cost {
	return &Cost{
		ByMetric: []MetricCost{
			{Metric: eval.Faithfulness, Chat: 14, CacheHits: 14, PromptTokens: 10630, CompletionTokens: 462, USD: usd(0.0019)},
			{Metric: eval.AnswerRelevancy, Chat: 7, Embeddings: 7, CacheHits: 14, PromptTokens: 4014, CompletionTokens: 315, USD: usd(0.0007)},
			{Metric: eval.ContextPrecision, Chat: 12, CacheHits: 17, PromptTokens: 8546, CompletionTokens: 168, USD: usd(0.0014)},
			{Metric: eval.ContextRecall, Chat: 6, CacheHits: 7, PromptTokens: 5272, CompletionTokens: 282, USD: usd(0.0010)},
		},
		Total:   MetricCost{Chat: 39, Embeddings: 7, CacheHits: 52, PromptTokens: 28462, CompletionTokens: 1227, USD: usd(0.0049)},
		Budget:  0.000001,
		Over:    true,
		Summary: "the run is estimated at $0.0049 (39 chat and 7 embedding calls, 28462 prompt and 1227 completion tokens), over --confirm-over $1e-06",
		Prices:  "built-in (2025-09-30)",
	}
}

// firstOptions is a run of the demo not started yet.
func firstOptions(f *fakeFirst) Options {
	return Options{
		Dataset: "testdata/demo.jsonl", Total: 14, Live: true,
		Judge:  eval.JudgeInfo{Kind: "llm", Name: "gpt-4o-mini", Model: "gpt-4o-mini"},
		Banner: "judge: gpt-4o-mini at http://127.0.0.1:8080/v1 (embeddings: text-embedding-3-small)",
		First:  f.options(),
	}
}

// estimated is the model once its estimate has arrived.
func estimated(t *testing.T, f *fakeFirst, w, h int) (*Model, tea.Cmd) {
	t.Helper()
	m := newTestModel(t, firstOptions(f), w, h)
	_, cmd := m.Update(m.estimateFirst()())
	return m, cmd
}

func TestFirstRunOverBudgetAsks(t *testing.T) {
	f := &fakeFirst{cost: demoCost(), events: make(chan eval.Event)}
	m, cmd := estimated(t, f, 100, 30)
	if cmd != nil || f.starts() != 0 {
		t.Fatal("over the budget the run started without a y")
	}
	s := screenText(m)
	for _, want := range []string{
		"faithfulness           14       0      14     10630         462    $0.0019",
		"total                  39       7      52     28462        1227    $0.0049",
		"over --confirm-over $1e-06",
		"The run has not started. Start it? y starts it; n, q or esc quits without a run",
		"y start the run",
	} {
		if !strings.Contains(flat(s), flat(want)) {
			t.Fatalf("the cost page misses %q:\n%s", want, s)
		}
	}
	// ? lists the page's keys, from the same key mode as the footer.
	press(m, "?")
	if s := screenText(m); !strings.Contains(s, "keys: cost of the run") || !strings.Contains(s, "quit, no run") {
		t.Fatalf("? on the cost page:\n%s", s)
	}
	press(m, "?")
	// The table's keys are not the page's: R, / and enter are not offered
	// and do nothing.
	for _, k := range []string{"R", "/", "enter", "p", "j"} {
		if cmd := press(m, k); cmd != nil || m.screen != screenBudget || f.starts() != 0 {
			t.Fatalf("%s on the cost page did something", k)
		}
	}

	_, cmd = m.Update(keyMsg("y"))
	if cmd == nil {
		t.Fatal("y did nothing")
	}
	msg := cmd()
	if f.starts() != 1 {
		t.Fatalf("y started %d runs", f.starts())
	}
	// A second y while the start is under way does not start another.
	if cmd := press(m, "y"); cmd != nil {
		t.Fatal("a second y started the run again")
	}
	m.Update(msg)
	if m.first != nil || m.screen != screenTable || !m.live || m.events == nil || !m.opts.Started.Equal(fixedStart) {
		t.Fatalf("after the start: first %v, screen %v, live %v", m.first, m.screen, m.live)
	}
	// Live now: q asks, and confirmed, cancels the run Start gave.
	press(m, "q")
	if !strings.Contains(screenText(m), "Quit and stop the run?") {
		t.Fatalf("q in the started run did not ask:\n%s", screenText(m))
	}
	if cmd := press(m, "y"); !isQuit(cmd) || !f.cancelled {
		t.Fatal("quitting the started run did not cancel it")
	}
}

func TestFirstRunNoQuitsWithoutARun(t *testing.T) {
	for _, k := range []string{"n", "q", "esc", "ctrl+c"} {
		t.Run(k, func(t *testing.T) {
			f := &fakeFirst{cost: demoCost()}
			m, _ := estimated(t, f, 100, 30)
			if cmd := press(m, k); !isQuit(cmd) {
				t.Fatalf("%s did not quit", k)
			}
			if f.starts() != 0 || m.live {
				t.Fatalf("%s started the run", k)
			}
		})
	}
}

func TestFirstRunWhileEstimating(t *testing.T) {
	f := &fakeFirst{cost: demoCost()}
	m := newTestModel(t, firstOptions(f), 100, 30)
	if s := screenText(m); !strings.Contains(s, "estimating the run's cost") || strings.Contains(s, "y start the run") {
		t.Fatalf("before the estimate:\n%s", s)
	}
	if cmd := press(m, "y"); cmd != nil || f.starts() != 0 {
		t.Fatal("y before the estimate started the run")
	}
	if s := screenText(m); !strings.Contains(s, "the run's cost is still being estimated") {
		t.Fatalf("y before the estimate is not refused with the reason:\n%s", s)
	}
	if cmd := press(m, "q"); !isQuit(cmd) || f.starts() != 0 {
		t.Fatal("q while estimating did not quit without a run")
	}
}

func TestFirstRunWithinBudgetStartsAtOnce(t *testing.T) {
	c := demoCost()
	c.Budget, c.Over = 5, false
	c.Summary = "estimated cost $0.0049 (39 chat and 7 embedding calls) is within --confirm-over $5"
	f := &fakeFirst{cost: c, events: make(chan eval.Event)}
	m, cmd := estimated(t, f, 100, 30)
	if cmd == nil {
		t.Fatal("within the budget the run did not start")
	}
	m.Update(cmd())
	if f.starts() != 1 || m.screen != screenTable || !m.live {
		t.Fatalf("started %d, screen %v, live %v", f.starts(), m.screen, m.live)
	}
	if s := screenText(m); !strings.Contains(s, "is within --confirm-over $5") {
		t.Fatalf("the verdict is not on the status line:\n%s", s)
	}
}

func TestFirstRunEstimateFailsAsks(t *testing.T) {
	f := &fakeFirst{estErr: errors.New("reading past runs: disk on fire"), events: make(chan eval.Event)}
	m, cmd := estimated(t, f, 100, 30)
	if cmd != nil || f.starts() != 0 {
		t.Fatal("an estimate that failed started the run")
	}
	if s := flat(screenText(m)); !strings.Contains(s, "cannot estimate the run, so nothing says it is within the budget: reading past runs: disk on fire") ||
		!strings.Contains(s, "Start it?") {
		t.Fatalf("the failed estimate:\n%s", screenText(m))
	}
	_, cmd = m.Update(keyMsg("y"))
	m.Update(cmd())
	if f.starts() != 1 || !m.live {
		t.Fatal("y after a failed estimate did not start the run")
	}
}

func TestFirstRunStartFails(t *testing.T) {
	f := &fakeFirst{cost: demoCost(), startErr: errors.New("recording the run: disk full")}
	m, _ := estimated(t, f, 100, 30)
	_, cmd := m.Update(keyMsg("y"))
	m.Update(cmd())
	if m.live || m.screen != screenBudget {
		t.Fatal("a run that could not start is shown as started")
	}
	if s := flat(screenText(m)); !strings.Contains(s, "cannot start the run: recording the run: disk full") {
		t.Fatalf("the start error is not shown:\n%s", screenText(m))
	}
	if cmd := press(m, "y"); cmd != nil || f.starts() != 1 {
		t.Fatal("y after a failed start tried again")
	}
	if cmd := press(m, "q"); !isQuit(cmd) {
		t.Fatal("q did not quit")
	}
}

// The re-run question prices the calls, and over --confirm-over says so
// before y.
func TestRerunQuestionCost(t *testing.T) {
	priced := func(over bool) *Cost {
		return &Cost{Total: MetricCost{Chat: 2, CacheHits: 6, PromptTokens: 820, CompletionTokens: 130, USD: usd(0.0002)},
			Budget: 0.000001, Over: over}
	}
	unpriced := &Cost{Total: MetricCost{Chat: 2, CacheHits: 6, PromptTokens: 820, CompletionTokens: 130},
		Budget: 5, Over: true, Unpriced: []string{"qwen2.5:7b"}}
	tests := []struct {
		name    string
		cost    *Cost
		wantAsk string
	}{
		{"within", priced(false), "Re-run sample 0 (all metrics)? 2 judge calls will be sent, ~820 prompt and ~130 completion tokens, $0.0002; 6 answered from the cache. [y/n]"},
		{"over", priced(true), "Re-run sample 0 (all metrics)? 2 judge calls will be sent, ~820 prompt and ~130 completion tokens, $0.0002; 6 answered from the cache. OVER --confirm-over $0.000001: y starts it anyway, any other key cancels. [y/n]"},
		{"unpriced", unpriced, "2 judge calls will be sent, ~820 prompt and ~130 completion tokens, cost unknown (no price for qwen2.5:7b); 6 answered from the cache. OVER --confirm-over $5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, answer := range []string{"n", "y"} {
				h := fixtureHost()
				h.plan.Cost = tt.cost
				m := newTestModel(t, hostOptions(h), 120, 40)
				pressDrive(t, m, "enter", "r")
				if s := flat(screenText(m)); !strings.Contains(s, tt.wantAsk) {
					t.Fatalf("question %q not on screen:\n%s", tt.wantAsk, screenText(m))
				}
				if len(h.reran) != 0 {
					t.Fatal("re-ran before the answer")
				}
				pressDrive(t, m, answer)
				if want := map[string]int{"n": 0, "y": 1}[answer]; len(h.reran) != want {
					t.Fatalf("answered %s: %d re-runs, want %d", answer, len(h.reran), want)
				}
			}
		})
	}
}

// TestGoldenBudget is the cost page the interface opens on, and the
// re-run question over the budget, at 80x24 (see TestGolden).
func TestGoldenBudget(t *testing.T) {
	t.Run("first_run_80x24", func(t *testing.T) {
		f := &fakeFirst{cost: demoCost()}
		m := New(firstOptions(f))
		m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
		requireGoldenFrame(t, m, [2]int{80, 24}, nil, "Start it?")
	})
	t.Run("rerun_over_80x24", func(t *testing.T) {
		h := fixtureHost()
		h.plan.Cost = &Cost{Total: MetricCost{Chat: 2, CacheHits: 6, PromptTokens: 820, CompletionTokens: 130, USD: usd(0.0002)},
			Budget: 0.000001, Over: true}
		m := New(hostOptions(h))
		m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
		requireGoldenFrame(t, m, [2]int{80, 24}, []string{"enter", "r"}, "[y/n]")
	})
}
