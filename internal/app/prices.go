package app

import (
	"sync"

	"github.com/ragscope/ragscope/eval/cost"
	"github.com/ragscope/ragscope/internal/exit"
)

// prices holds each price table this process has loaded, by path: a
// server evaluating many runs, or a run and its estimate, read the file
// once, and every run of the process is priced the same.
var prices struct {
	mu     sync.Mutex
	loaded map[string]loadedPrices
}

type loadedPrices struct {
	t   cost.Table
	err error
}

// Prices is the price table of a run with cfg: the built-in table with
// the prices.json in the config directory over it (cost.DefaultPath; no
// file is no error), or the file cfg.Prices names (which must exist). A
// file that does not parse is a usage error naming it, never a silent
// fall back to the built-in prices. The table is shared: do not change it.
func Prices(cfg *Config) (cost.Table, error) {
	path, required := cfg.Prices, true
	if path == "" {
		path, required = cost.DefaultPath(), false
	}
	prices.mu.Lock()
	defer prices.mu.Unlock()
	key := path
	if required {
		key = "required:" + path
	}
	if lp, ok := prices.loaded[key]; ok {
		return lp.t, lp.err
	}
	t, err := cost.Load(path, required)
	if err != nil {
		err = exit.UsageError{Err: err}
	}
	if prices.loaded == nil {
		prices.loaded = map[string]loadedPrices{}
	}
	prices.loaded[key] = loadedPrices{t, err}
	return t, err
}
