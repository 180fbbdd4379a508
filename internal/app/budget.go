package app

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/estimate"
	"github.com/ragscope/ragscope/tui"
)

// tuiCost is an estimate as the interface's confirmations show it,
// checked against --confirm-over when one is set (what names the run in
// the verdict: "run", "re-run").
func (s *Session) tuiCost(est *estimate.Estimate, metrics []eval.Metric, what string) *tui.Cost {
	if len(metrics) == 0 {
		metrics = eval.DefaultMetrics
	}
	c := &tui.Cost{Budget: s.Cfg.ConfirmOver, Prices: est.Prices.Source}
	line := func(m eval.Metric, e estimate.Metric) tui.MetricCost {
		return tui.MetricCost{Metric: m, Chat: e.Calls.Chat, Embeddings: e.Calls.Embeddings, CacheHits: e.CacheHits,
			PromptTokens: e.Tokens.Prompt, CompletionTokens: e.Tokens.Completion, USD: e.CostUSD}
	}
	for _, m := range metrics {
		c.ByMetric = append(c.ByMetric, line(m, est.ByMetric[m]))
	}
	c.Total = line("", estimate.Metric{Calls: est.Calls, Tokens: est.Tokens, CostUSD: est.CostUSD, CacheHits: est.CacheHits})
	if est.CostUSD == nil {
		for _, model := range []string{est.Model, est.Embedding} {
			if _, ok := est.Prices.Models[model]; !ok && model != "" && !slices.Contains(c.Unpriced, model) && usesModel(est, model) {
				c.Unpriced = append(c.Unpriced, model)
			}
		}
	}
	if s.Cfg.ConfirmOver > 0 {
		c.Over, c.Summary = s.verdict(est, what)
	}
	return c
}

// usesModel says whether the estimate sends anything to model: the
// embedding model only prices answer relevancy's embeddings.
func usesModel(est *estimate.Estimate, model string) bool {
	if model == est.Model {
		return est.Calls.Chat > 0
	}
	return est.Calls.Embeddings > 0
}

// firstRun is the interface's first run under --confirm-over: estimated,
// then started from the cost page (only after y when over the budget).
// It records the run only when started, and never once the interface
// has closed, so a question answered n, or a quit, leaves no run.
type firstRun struct {
	s *Session

	mu     sync.Mutex
	run    *Run
	err    error // why Start failed
	closed bool
	// An estimate still running when the interface closes (q at once)
	// is stopped and waited for: it reads the store, which the caller
	// closes next.
	stopEstimate context.CancelFunc
	estimating   sync.WaitGroup
}

func (f *firstRun) options() *tui.FirstRun {
	return &tui.FirstRun{Estimate: f.estimate, Start: f.start}
}

func (f *firstRun) estimate(ctx context.Context) (*tui.Cost, error) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil, errors.New("the interface has closed")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f.stopEstimate = cancel
	f.estimating.Add(1)
	defer f.estimating.Done()
	f.mu.Unlock()
	est, err := f.s.Estimate(ctx)
	if err != nil {
		return nil, err
	}
	return f.s.tuiCost(est, f.s.Scored(), "run"), nil
}

func (f *firstRun) start(ctx context.Context) (tui.Started, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.closed:
		return tui.Started{}, errors.New("the interface has closed")
	case f.run != nil:
		return tui.Started{}, errors.New("the run has already started")
	}
	// The record says when the run started, not when the question was
	// put: the answer may have taken minutes.
	f.s.mu.Lock()
	f.s.stampStart(time.Now().UTC())
	f.s.mu.Unlock()
	run, err := f.s.Start(ctx)
	if err != nil {
		f.err = err
		return tui.Started{}, err
	}
	f.run = run
	return tui.Started{Events: run.Events, Cancel: run.Cancel, At: f.s.Info().AttemptStart()}, nil
}

// close is called once the interface has ended: it returns the run if
// one started, and no run starts after it.
func (f *firstRun) close() (*Run, error) {
	f.mu.Lock()
	f.closed = true
	if f.stopEstimate != nil {
		f.stopEstimate()
	}
	run, err := f.run, f.err
	f.mu.Unlock()
	f.estimating.Wait()
	return run, err
}
