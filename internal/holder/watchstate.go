package holder

import (
	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

// A watcher that is a client keeps its state in the holder's database, one
// call and one transaction a step. The calls keep their wire names
// (Store.FollowLoad, …).
type (
	watchLoadArgs struct {
		Stream string `json:"stream"`
	}
	watchLoadReply struct {
		State cache.WatchState `json:"state"`
	}
	watchAdmitArgs struct {
		Stream string           `json:"stream"`
		Admit  cache.WatchAdmit `json:"admit"`
	}
	watchAdmitReply struct {
		Admitted cache.WatchAdmitted `json:"admitted"`
	}
	watchResultArgs struct {
		Stream string       `json:"stream"`
		Hash   string       `json:"hash"`
		RunID  string       `json:"run_id"`
		Result *eval.Result `json:"result"`
	}
)

func (c *Client) WatchLoad(stream string) (cache.WatchState, error) {
	r, err := ask[watchLoadReply](c, "FollowLoad", watchLoadArgs{Stream: stream})
	return r.State, err
}

func (c *Client) WatchAdmit(stream string, a cache.WatchAdmit) (cache.WatchAdmitted, error) {
	r, err := ask[watchAdmitReply](c, "FollowAdmit", watchAdmitArgs{Stream: stream, Admit: a})
	return r.Admitted, err
}

func (c *Client) WatchResult(stream, hash, runID string, res *eval.Result) error {
	return c.call("FollowResult", watchResultArgs{Stream: stream, Hash: hash, RunID: runID, Result: res}, &none{})
}
