package holder

import (
	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

// A watcher that is a client keeps its state in the holder's database, one
// call and one transaction a step.

func (c *Client) WatchLoad(stream string) (cache.WatchState, error) {
	return ask[cache.WatchState](c, "WatchLoad", stream)
}

func (c *Client) WatchAdmit(stream string, a cache.WatchAdmit) (cache.WatchAdmitted, error) {
	return ask[cache.WatchAdmitted](c, "WatchAdmit", stream, a)
}

func (c *Client) WatchResult(stream, hash, runID string, res *eval.Result) error {
	return c.call("WatchResult", []any{stream, hash, runID, res})
}
