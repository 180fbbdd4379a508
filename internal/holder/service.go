package holder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/rpc"
	"strings"
	"sync"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

// clientRole is the role of a run announced by a client: the client does
// not say what it is, the holder only knows its pid.
const clientRole = "client"

// method is one RPC method. Every method takes and gives raw JSON, so that
// one table holds them all; handle decodes and encodes their own types.
type method func(c *conn, in json.RawMessage) (json.RawMessage, error)

// handle makes a method of fn. A panic in the store (a malformed request it
// did not expect) becomes this call's error: it must not take down the
// holder and every client with it.
func handle[A, R any](fn func(*conn, A) (R, error)) method {
	return func(c *conn, in json.RawMessage) (out json.RawMessage, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("the holder failed on this request (%v); this is a ragscope bug: please report it", p)
			}
		}()
		var args A
		if len(in) > 0 {
			if err := json.Unmarshal(in, &args); err != nil {
				return nil, fmt.Errorf("the holder cannot read this request (%v); are both processes the same ragscope version?", err)
			}
		}
		reply, err := fn(c, args)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(reply)
		if err != nil {
			return nil, fmt.Errorf("the holder cannot encode its reply: %w", err)
		}
		return b, nil
	}
}

// serveCalls answers the client's calls ("Store." and a key of methods) as
// net/rpc's server would, each in a goroutine of its own, until the client
// hangs up; then it waits for the calls in flight and closes the codec.
func (c *conn) serveCalls(codec rpc.ServerCodec) {
	var (
		calls sync.WaitGroup
		send  sync.Mutex
	)
	for {
		var req rpc.Request
		if codec.ReadRequestHeader(&req) != nil {
			break
		}
		var in json.RawMessage
		if codec.ReadRequestBody(&in) != nil {
			break
		}
		calls.Go(func() {
			var out json.RawMessage
			err := fmt.Errorf("rpc: can't find method %s", req.ServiceMethod)
			if name, ok := strings.CutPrefix(req.ServiceMethod, "Store."); ok && methods[name] != nil {
				out, err = methods[name](c, in)
			}
			resp := rpc.Response{ServiceMethod: req.ServiceMethod, Seq: req.Seq}
			if err != nil {
				resp.Error = err.Error()
			}
			send.Lock()
			defer send.Unlock()
			_ = codec.WriteResponse(&resp, out)
		})
	}
	calls.Wait()
	_ = codec.Close()
}

// methods are the holder's side of every call of the Client.
var methods = map[string]method{
	// Ping answers at once: a client asks it to tell a holder that is busy
	// from one that is hung or stopped.
	"Ping": handle(func(*conn, none) (none, error) { return none{}, nil }),
	"NewRunID": handle(func(c *conn, _ none) (idReply, error) {
		id, err := c.srv.db.NewRunID()
		return idReply{ID: id}, err
	}),
	"PutRun": handle(func(c *conn, a putRunArgs) (none, error) {
		return none{}, c.srv.db.PutRun(a.Info)
	}),
	"PutResult": handle(func(c *conn, a putResultArgs) (none, error) {
		return none{}, c.srv.db.PutResult(a.RunID, a.Result)
	}),
	"PutResults": handle(func(c *conn, a putResultsArgs) (none, error) {
		return none{}, c.srv.db.PutResults(a.RunID, a.Results)
	}),
	"Runs": handle(func(c *conn, _ none) (runsReply, error) {
		runs, err := c.srv.db.Runs()
		return runsReply{Runs: runs}, err
	}),
	"Run": handle(func(c *conn, a runArgs) (runReply, error) {
		info, results, err := c.srv.db.Run(a.Ref)
		return runReply{Info: info, Results: results}, err
	}),
	"RunPage": handle(func(c *conn, a runPageArgs) (runPageReply, error) {
		info, page, next, err := c.srv.db.RunPage(a.Ref, a.From, min(a.Limit, maxRunPage))
		return runPageReply{runReply{Info: info, Results: page}, next}, err
	}),
	"RunSummaries": handle(func(c *conn, a runPageArgs) (runSummariesReply, error) {
		var out runSummariesReply
		next, err := c.srv.db.RunSummaries(a.Ref, a.From, min(a.Limit, maxSummaryPage), func(r *eval.Result) error {
			b, err := json.Marshal(r)
			out.Results = append(out.Results, b)
			return err
		})
		out.Next = next
		return out, err
	}),
	// LiveUpdates; the call keeps its name on the wire, which a holder of
	// an earlier build still speaks.
	"Watch": handle(func(c *conn, a liveUpdatesArgs) (liveUpdatesReply[cache.RawLiveBatch], error) {
		wait := a.Wait
		if wait <= 0 || wait > maxLiveWait {
			wait = maxLiveWait
		}
		// The stored JSON goes out as it is: a run watched by twenty
		// clients would otherwise decode and encode every result twenty times.
		b, err := c.srv.db.LiveUpdatesRaw(c.ctx, a.RunID, a.After, wait)
		if err != nil && c.ctx.Err() != nil {
			// The wait ended because the holder is stopping (or the client
			// hung up): to the client that is a lost holder, not a failure.
			err = errStopping
		}
		return liveUpdatesReply[cache.RawLiveBatch]{Batch: b}, err
	}),
	"LookupChat": handle(func(c *conn, a keyArgs) (lookupChatReply, error) {
		resp, found, err := c.srv.db.LookupChat(a.Key)
		return lookupChatReply{Response: resp, Found: found}, err
	}),
	"PutChat": handle(func(c *conn, a putChatArgs) (none, error) {
		a.Request.Task = a.Task
		return none{}, c.srv.db.PutChat(a.Key, a.Request, a.Response)
	}),
	"LookupEmbeddings": handle(func(c *conn, a keysArgs) (vectorsReply, error) {
		vecs, err := c.srv.db.LookupEmbeddings(a.Keys)
		return vectorsReply{Vectors: vecs}, err
	}),
	"PutEmbeddings": handle(func(c *conn, a putEmbeddingsArgs) (none, error) {
		if len(a.Vectors) != len(a.Texts) {
			return none{}, fmt.Errorf("database %s: %d vectors for %d texts", c.srv.hello.DB, len(a.Vectors), len(a.Texts))
		}
		return none{}, c.srv.db.PutEmbeddings(a.Request, a.Texts, a.Vectors)
	}),
	"Claim": handle(func(c *conn, a keyArgs) (claimReply, error) {
		ctx, cancel := context.WithTimeout(c.ctx, maxClaimWait)
		defer cancel()
		err := c.srv.handover.wait(ctx)
		var release func()
		granted := false
		if err == nil {
			release, granted, err = c.srv.db.Claim(ctx, a.Key)
		}
		switch {
		case err != nil && c.ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
			return claimReply{}, nil
		case err != nil && c.ctx.Err() != nil:
			return claimReply{}, errStopping
		case err != nil:
			return claimReply{}, err
		case !granted:
			return claimReply{}, nil
		}
		token := c.addClaim(release)
		c.markClaimer()
		return claimReply{Granted: true, Token: token}, nil
	}),
	"Release": handle(func(c *conn, a releaseArgs) (none, error) {
		c.release(a.Token)
		return none{}, nil
	}),
	"Call": handle(func(c *conn, a keyArgs) (callReply, error) {
		e, err := c.srv.db.Call(a.Key)
		r := callReply{Entry: e}
		if e != nil {
			r.ResponseKey, r.ResponseCached = e.Response.Key, e.Response.Cached
		}
		return r, err
	}),
	"PutLabels": handle(func(c *conn, a labelsArgs) (none, error) {
		return none{}, c.srv.db.PutLabels(a.Labels)
	}),
	"DeleteLabels": handle(func(c *conn, a keysArgs) (countReply, error) {
		n, err := c.srv.db.DeleteLabels(a.Keys)
		return countReply{N: n}, err
	}),
	// Labels keeps nil (every label) apart from an empty list over the wire.
	"Labels": handle(func(c *conn, a keysArgs) (labelsReply, error) {
		ls, err := c.srv.db.Labels(a.Keys)
		return labelsReply{Labels: ls}, err
	}),
	"Stats": handle(func(c *conn, _ none) (statsReply, error) {
		st, err := c.srv.db.Stats()
		return statsReply{Stats: st}, err
	}),
	"Clear": handle(func(c *conn, a clearArgs) (countReply, error) {
		n, err := c.srv.db.Clear(a.OlderThan)
		return countReply{N: n}, err
	}),
	// DeleteRuns refuses runs that the holder or one of its clients is
	// evaluating: only the holder knows them all.
	"DeleteRuns": handle(func(c *conn, a deleteRunsArgs) (deleteRunsReply, error) {
		if err := RefuseLive(c.srv.Live(), a.IDs); err != nil {
			return deleteRunsReply{}, err
		}
		runs, results, err := c.srv.db.DeleteRuns(a.IDs)
		return deleteRunsReply{Runs: runs, Results: results}, err
	}),
	"Export": handle(func(c *conn, _ none) (exportReply, error) {
		var b bytes.Buffer
		n, err := c.srv.db.Export(&b)
		return exportReply{Data: b.Bytes(), N: n}, err
	}),
	"Import": handle(func(c *conn, a importArgs) (countReply, error) {
		n, err := c.srv.db.Import(bytes.NewReader(a.Data))
		return countReply{N: n}, err
	}),
	"BeginRun": handle(func(c *conn, a runIDArgs) (none, error) {
		if a.RunID == "" {
			return none{}, errors.New("BeginRun: the run id is empty")
		}
		c.srv.beginRun(a.RunID, c, LiveRun{PID: c.pid, Role: clientRole})
		return none{}, nil
	}),
	"EndRun": handle(func(c *conn, a runIDArgs) (none, error) {
		c.srv.endRun(a.RunID, c)
		return none{}, nil
	}),
	"Live": handle(func(c *conn, _ none) (liveReply, error) {
		return liveReply{Runs: c.srv.Live()}, nil
	}),
	"Submit": withRuns(func(_ *conn, runs RunService, req SubmitRequest) (idReply, error) {
		id, err := runs.Submit(req)
		if err != nil {
			return idReply{}, redact(err, req.APIKey)
		}
		return idReply{ID: id}, nil
	}),
	"Stop": withRuns(func(_ *conn, runs RunService, a runIDArgs) (none, error) {
		return none{}, runs.Stop(a.RunID)
	}),
	// Outcome waits, at most maxLiveWait, for the end of a run the holder's
	// RunService evaluates; the client asks again while it is not Done.
	"Outcome": withRuns(func(c *conn, runs RunService, a runIDArgs) (RunOutcome, error) {
		ctx, cancel := context.WithTimeout(c.ctx, maxLiveWait)
		defer cancel()
		o, err := runs.Outcome(ctx, a.RunID)
		if err != nil && c.ctx.Err() != nil {
			err = errStopping
		}
		return o, err
	}),

	// The watcher's state (watchstate.go); the names are the wire's.
	"FollowLoad": handle(func(c *conn, a watchLoadArgs) (watchLoadReply, error) {
		st, err := c.srv.db.WatchLoad(a.Stream)
		return watchLoadReply{State: st}, err
	}),
	"FollowAdmit": handle(func(c *conn, a watchAdmitArgs) (watchAdmitReply, error) {
		r, err := c.srv.db.WatchAdmit(a.Stream, a.Admit)
		return watchAdmitReply{Admitted: r}, err
	}),
	"FollowResult": handle(func(c *conn, a watchResultArgs) (none, error) {
		return none{}, c.srv.db.WatchResult(a.Stream, a.Hash, a.RunID, a.Result)
	}),

	// Run progress (progress.go).
	"SetProgress": handle(func(c *conn, a setProgressArgs) (none, error) {
		if a.RunID == "" {
			return none{}, errors.New("SetProgress: the run id is empty")
		}
		c.srv.setProgress(a.RunID, c, a.Progress)
		return none{}, nil
	}),
	"Progress": handle(func(c *conn, a runIDArgs) (RunProgress, error) {
		return c.srv.Progress(a.RunID), nil
	}),

	// The hand-over of claims (handover.go).
	"Rejoin": handle(func(c *conn, a keysArgs) (rejoinReply, error) {
		srv := c.srv
		r := rejoinReply{Tokens: make([]uint64, len(a.Keys))}
		// Granted at once or not at all: these claims were this client's,
		// and nobody may have been granted them since, unless the wait ran out.
		for i, key := range a.Keys {
			if release := srv.db.TryClaim(key); release != nil {
				r.Tokens[i] = c.addClaim(release)
			}
		}
		if len(a.Keys) > 0 {
			c.markClaimer()
		}
		srv.handover.back(c.pid)
		return r, nil
	}),
}

// withRuns is handle for a method of the holder's RunService, which
// fails when the holder has none.
func withRuns[A, R any](fn func(*conn, RunService, A) (R, error)) method {
	return handle(func(c *conn, a A) (R, error) {
		if runs := c.srv.opt.Runs; runs != nil {
			return fn(c, runs, a)
		}
		var zero R
		return zero, noRunServiceError{c.srv.hello}
	})
}

// redact keeps the API key out of an error that goes back over the socket,
// should the run service have quoted it.
func redact(err error, key string) error {
	if key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), key, "[redacted]"))
}
