package holder

import (
	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

// A watcher that is a client keeps its state in the holder's database, one
// call and one transaction a step.

func (c *Client) WatchLoad(stream string) (st cache.WatchState, err error) {
	err = c.call("WatchLoad", []any{stream}, &st)
	return st, err
}

func (c *Client) WatchAdmit(stream string, a cache.WatchAdmit) (r cache.WatchAdmitted, err error) {
	err = c.call("WatchAdmit", []any{stream, a}, &r)
	return r, err
}

func (c *Client) WatchResult(stream, hash, runID string, res *eval.Result) error {
	return c.call("WatchResult", []any{stream, hash, runID, res})
}
