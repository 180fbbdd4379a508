package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/cost"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/eval/estimate"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/memo"
	"github.com/ragscope/ragscope/internal/store"
	"github.com/ragscope/ragscope/prompts"
)

// PricesPath is where a missing price is to be added: --prices, else
// prices.json in the config directory.
func PricesPath(cfg *Config) string { return cmp.Or(cfg.Prices, cost.DefaultPath()) }

// Estimate plans the session's run without sending anything: the calls the
// run will send after cache hits, their tokens and their price (Prices).
// The cache is read, never written; a resumed run's finished samples are
// skipped as the run will skip them.
func (s *Session) Estimate(ctx context.Context) (*estimate.Estimate, error) {
	return s.estimate(ctx, s.Prompts, s.source(), s.Total(), s.Metrics, s.Criteria, s.doneLookup())
}

// estimate plans the run of total samples of src, of metrics and crit
// (nil: no criteria), by the session's judge rendering with set (nil: the
// judge's own prompts): a re-run after a prompt edit is estimated as the
// re-run will send it.
func (s *Session) estimate(ctx context.Context, set *prompts.Set, src eval.Source, total int, metrics []eval.Metric,
	crit *criteria.Set, done func(int) *eval.Result) (*estimate.Estimate, error) {
	prices, err := Prices(s.Cfg)
	if err != nil {
		return nil, err
	}
	cfg := estimate.Config{Metrics: metrics, Criteria: crit, Strictness: s.Cfg.Strictness, ACWeights: s.Cfg.Parsed.ACWeights,
		FCMode: s.Cfg.Parsed.FCMode, NSMode: s.Cfg.Parsed.NSMode, Done: done, Prices: prices, PricesPath: PricesPath(s.Cfg)}
	if s.LLM != nil {
		j := s.LLM
		if set != nil {
			cfg.Prompts = set.Hashes()
		}
		cfg.Judge = func(c eval.ChatClient) eval.Judge { return j.With(set, c) }
		cfg.Model, cfg.EmbeddingModel = s.Cfg.Model, s.Cfg.EmbeddingModel
		if !s.Cfg.NoCache {
			cfg.Store, cfg.CacheOnly = s.Store, s.Cfg.CacheOnly
		}
	}
	if s.abilities != nil {
		cfg.ReasoningShare = s.abilities.Profile().ReasoningShare
		cfg.OneChoice = !s.abilities.NHonoured()
	}
	return estimate.Run(ctx, cfg, src, total)
}

// OpenForEstimate opens the database an estimate reads, never written; one
// that does not exist yet is an empty cache, made in a temporary directory
// that close removes.
func OpenForEstimate(path string) (st cache.Store, close func(), err error) {
	p, err := store.DBPath(path)
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		dir, err := os.MkdirTemp("", "ragscope-estimate-")
		if err != nil {
			return nil, nil, err
		}
		db, err := cache.Open(filepath.Join(dir, "empty.db"), cache.Options{})
		if err != nil {
			os.RemoveAll(dir)
			return nil, nil, err
		}
		return db, func() { db.Close(); os.RemoveAll(dir) }, nil
	}
	sh, err := store.Open(p, store.OpenOptions{Mode: store.Read})
	if err != nil {
		return nil, nil, err
	}
	return sh, func() { sh.Close() }, nil
}

// ErrOverBudget is the refusal of a run whose estimate exceeds --confirm-over.
var ErrOverBudget = errors.New("the run did not start")

// verdict says whether est exceeds --confirm-over and what it costs in
// words, the same for headless mode and the interface's questions; what
// names the run ("run", "re-run").
func (s *Session) verdict(est *estimate.Estimate, what string) (bool, string) {
	if !est.Over(s.Cfg.ConfirmOver) {
		return false, fmt.Sprintf("estimated cost %s (%d chat and %d embedding calls) is within --confirm-over $%g",
			estimate.USD(est.CostUSD), est.Calls.Chat, est.Calls.Embeddings, s.Cfg.ConfirmOver)
	}
	if est.CostUSD == nil {
		return true, fmt.Sprintf("the %s makes %d chat and %d embedding calls but model %s has no price, so --confirm-over $%g cannot be checked (add the model to %s)",
			what, est.Calls.Chat, est.Calls.Embeddings, s.Cfg.Model, s.Cfg.ConfirmOver, PricesPath(s.Cfg))
	}
	return true, fmt.Sprintf("the %s is estimated at %s (%d chat and %d embedding calls, %d prompt and %d completion tokens), over --confirm-over $%g",
		what, estimate.USD(est.CostUSD), est.Calls.Chat, est.Calls.Embeddings, est.Tokens.Prompt, est.Tokens.Completion, s.Cfg.ConfirmOver)
}

// ConfirmBudget is --confirm-over for a run without a terminal to ask on:
// over budget, a refusal (wrapping ErrOverBudget, a usage error) unless
// yes. Nothing is checked without --confirm-over.
func (s *Session) ConfirmBudget(ctx context.Context, yes bool, stderr io.Writer) error {
	if s.Cfg.ConfirmOver <= 0 {
		return nil
	}
	// A price table that does not load is said as it is, not as a failed estimate.
	if _, err := Prices(s.Cfg); err != nil {
		return err
	}
	est, err := s.Estimate(ctx)
	if err != nil {
		return fmt.Errorf("estimating the run for --confirm-over: %w", err)
	}
	over, what := s.verdict(est, "run")
	switch {
	case !over:
		fmt.Fprintf(stderr, "ragscope: %s\n", what)
		return nil
	case yes:
		fmt.Fprintf(stderr, "ragscope: %s; starting anyway (--yes)\n", what)
		return nil
	}
	return exit.UsageError{Err: fmt.Errorf("%s; nothing was sent: %w. Pass --yes to run anyway, raise --confirm-over, or see the breakdown with ragscope estimate", what, ErrOverBudget)}
}

// prices holds each price table this process has loaded, by whether the
// file is required and its path: a server evaluating many runs, or a run
// and its estimate, read the file once, and every run of the process is
// priced the same. It holds far more tables than a process reads.
var prices = memo.New[loadedPrices](1 << 12)

type loadedPrices struct {
	t   cost.Table
	err error
}

// Prices is the price table of a run with cfg: the built-in one with the
// optional prices.json of the config directory over it, or cfg.Prices,
// which must exist. A file that does not parse is a usage error, never a
// silent fall back. The table is shared: do not change it.
func Prices(cfg *Config) (cost.Table, error) {
	path, required := cmp.Or(cfg.Prices, cost.DefaultPath()), cfg.Prices != ""
	lp := prices.Get(fmt.Sprintf("%t:%s", required, path), func(string) loadedPrices {
		t, err := cost.Load(path, required)
		if err != nil {
			err = exit.UsageError{Err: err}
		}
		return loadedPrices{t, err}
	})
	return lp.t, lp.err
}
