package holder

import (
	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

// A watcher (ragscope watch) that is a client keeps its state in the
// holder's database: each step is one call, one transaction there.
type (
	followLoadArgs struct {
		Stream string `json:"stream"`
	}
	followLoadReply struct {
		State cache.FollowState `json:"state"`
	}
	followAdmitArgs struct {
		Stream string            `json:"stream"`
		Admit  cache.FollowAdmit `json:"admit"`
	}
	followAdmitReply struct {
		Admitted cache.FollowAdmitted `json:"admitted"`
	}
	followResultArgs struct {
		Stream string       `json:"stream"`
		Hash   string       `json:"hash"`
		RunID  string       `json:"run_id"`
		Result *eval.Result `json:"result"`
	}
)

var _ cache.FollowStore = (*Client)(nil)

// FollowLoad implements cache.FollowStore.
func (c *Client) FollowLoad(stream string) (cache.FollowState, error) {
	var r followLoadReply
	err := c.call("FollowLoad", followLoadArgs{Stream: stream}, &r)
	return r.State, err
}

// FollowAdmit implements cache.FollowStore.
func (c *Client) FollowAdmit(stream string, a cache.FollowAdmit) (cache.FollowAdmitted, error) {
	var r followAdmitReply
	err := c.call("FollowAdmit", followAdmitArgs{Stream: stream, Admit: a}, &r)
	return r.Admitted, err
}

// FollowResult implements cache.FollowStore.
func (c *Client) FollowResult(stream, hash, runID string, res *eval.Result) error {
	return c.call("FollowResult", followResultArgs{Stream: stream, Hash: hash, RunID: runID, Result: res}, &none{})
}
