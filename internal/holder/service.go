package holder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// clientRole is the role of a run announced by a client: the client does
// not say what it is, the holder only knows its pid.
const clientRole = "client"

// service is the RPC receiver "Store" of one connection. Its exported
// methods are exactly the RPC methods (net/rpc registers every method of
// the right shape). They take and give raw JSON so that the argument types
// can stay unexported; handle decodes and encodes them.
type service struct{ c *conn }

// handle runs one call. A panic in the store (a malformed request it did
// not expect) becomes this call's error: it must not take down the holder
// and every client with it.
func handle[A, R any](in json.RawMessage, out *json.RawMessage, fn func(A) (R, error)) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the holder failed on this request (%v); this is a ragscope bug: please report it", p)
		}
	}()
	var args A
	if len(in) > 0 {
		if err := json.Unmarshal(in, &args); err != nil {
			return fmt.Errorf("the holder cannot read this request (%v); are both processes the same ragscope version?", err)
		}
	}
	reply, err := fn(args)
	if err != nil {
		return err
	}
	b, err := json.Marshal(reply)
	if err != nil {
		return fmt.Errorf("the holder cannot encode its reply: %w", err)
	}
	*out = b
	return nil
}

// Ping answers at once: a client asks it to tell a holder that is busy
// from one that is hung or stopped.
func (s *service) Ping(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(none) (none, error) { return none{}, nil })
}

func (s *service) NewRunID(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(none) (idReply, error) {
		id, err := s.c.srv.db.NewRunID()
		return idReply{ID: id}, err
	})
}

func (s *service) PutRun(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a putRunArgs) (none, error) {
		return none{}, s.c.srv.db.PutRun(a.Info)
	})
}

func (s *service) PutResult(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a putResultArgs) (none, error) {
		return none{}, s.c.srv.db.PutResult(a.RunID, a.Result)
	})
}

func (s *service) PutResults(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a putResultsArgs) (none, error) {
		return none{}, s.c.srv.db.PutResults(a.RunID, a.Results)
	})
}

func (s *service) Runs(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(none) (runsReply, error) {
		runs, err := s.c.srv.db.Runs()
		return runsReply{Runs: runs}, err
	})
}

func (s *service) Run(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a runArgs) (runReply, error) {
		info, results, err := s.c.srv.db.Run(a.Ref)
		return runReply{Info: info, Results: results}, err
	})
}

func (s *service) RunPage(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a runPageArgs) (runPageReply, error) {
		info, page, next, err := s.c.srv.db.RunPage(a.Ref, a.From, min(a.Limit, maxRunPage))
		return runPageReply{Info: info, Results: page, Next: next}, err
	})
}

func (s *service) Watch(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a watchArgs) (rawWatchReply, error) {
		wait := a.Wait
		if wait <= 0 || wait > maxWatchWait {
			wait = maxWatchWait
		}
		// The stored JSON goes out as it is: a run watched by twenty
		// clients would otherwise decode and encode every result twenty times.
		b, err := s.c.srv.db.WatchRaw(s.c.ctx, a.RunID, a.After, wait)
		if err != nil && s.c.ctx.Err() != nil {
			// The wait ended because the holder is stopping (or the client
			// hung up): to the client that is a lost holder, not a failure.
			err = errStopping
		}
		return rawWatchReply{Batch: b}, err
	})
}

func (s *service) LookupChat(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a keyArgs) (lookupChatReply, error) {
		resp, found, err := s.c.srv.db.LookupChat(a.Key)
		return lookupChatReply{Response: resp, Found: found}, err
	})
}

func (s *service) PutChat(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a putChatArgs) (none, error) {
		a.Request.Task = a.Task
		return none{}, s.c.srv.db.PutChat(a.Key, a.Request, a.Response)
	})
}

func (s *service) LookupEmbeddings(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a lookupEmbeddingsArgs) (vectorsReply, error) {
		vecs, err := s.c.srv.db.LookupEmbeddings(a.Keys)
		return vectorsReply{Vectors: vecs}, err
	})
}

func (s *service) PutEmbeddings(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a putEmbeddingsArgs) (none, error) {
		if len(a.Vectors) != len(a.Texts) {
			return none{}, fmt.Errorf("database %s: %d vectors for %d texts", s.c.srv.hello.DB, len(a.Vectors), len(a.Texts))
		}
		return none{}, s.c.srv.db.PutEmbeddings(a.Request, a.Texts, a.Vectors)
	})
}

func (s *service) Claim(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a keyArgs) (claimReply, error) {
		ctx, cancel := context.WithTimeout(s.c.ctx, maxClaimWait)
		defer cancel()
		err := s.c.srv.handover.wait(ctx)
		var release func()
		granted := false
		if err == nil {
			release, granted, err = s.c.srv.db.Claim(ctx, a.Key)
		}
		switch {
		case err != nil && s.c.ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
			return claimReply{}, nil
		case err != nil && s.c.ctx.Err() != nil:
			return claimReply{}, errStopping
		case err != nil:
			return claimReply{}, err
		case !granted:
			return claimReply{}, nil
		}
		token := s.c.addClaim(release)
		s.c.markClaimer()
		return claimReply{Granted: true, Token: token}, nil
	})
}

func (s *service) Release(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a releaseArgs) (none, error) {
		s.c.release(a.Token)
		return none{}, nil
	})
}

func (s *service) Call(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a keyArgs) (callReply, error) {
		e, err := s.c.srv.db.Call(a.Key)
		r := callReply{Entry: e}
		if e != nil {
			r.ResponseKey, r.ResponseCached = e.Response.Key, e.Response.Cached
		}
		return r, err
	})
}

func (s *service) PutLabels(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a labelsArgs) (none, error) {
		return none{}, s.c.srv.db.PutLabels(a.Labels)
	})
}

func (s *service) DeleteLabels(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a labelKeysArgs) (countReply, error) {
		n, err := s.c.srv.db.DeleteLabels(a.Keys)
		return countReply{N: n}, err
	})
}

// Labels keeps nil (every label) apart from an empty list over the wire.
func (s *service) Labels(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a labelKeysArgs) (labelsReply, error) {
		ls, err := s.c.srv.db.Labels(a.Keys)
		return labelsReply{Labels: ls}, err
	})
}

func (s *service) Stats(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(none) (statsReply, error) {
		st, err := s.c.srv.db.Stats()
		return statsReply{Stats: st}, err
	})
}

func (s *service) Clear(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a clearArgs) (countReply, error) {
		n, err := s.c.srv.db.Clear(a.OlderThan)
		return countReply{N: n}, err
	})
}

// DeleteRuns refuses runs that the holder or one of its clients is
// evaluating: only the holder knows them all.
func (s *service) DeleteRuns(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a deleteRunsArgs) (deleteRunsReply, error) {
		if err := RefuseLive(s.c.srv.Live(), a.IDs); err != nil {
			return deleteRunsReply{}, err
		}
		runs, results, err := s.c.srv.db.DeleteRuns(a.IDs)
		return deleteRunsReply{Runs: runs, Results: results}, err
	})
}

func (s *service) Export(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(none) (exportReply, error) {
		var b bytes.Buffer
		n, err := s.c.srv.db.Export(&b)
		return exportReply{Data: b.Bytes(), N: n}, err
	})
}

func (s *service) Import(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a importArgs) (countReply, error) {
		n, err := s.c.srv.db.Import(bytes.NewReader(a.Data))
		return countReply{N: n}, err
	})
}

func (s *service) BeginRun(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a runIDArgs) (none, error) {
		if a.RunID == "" {
			return none{}, errors.New("BeginRun: the run id is empty")
		}
		s.c.srv.beginRun(a.RunID, s.c, LiveRun{PID: s.c.pid, Role: clientRole})
		return none{}, nil
	})
}

func (s *service) EndRun(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a runIDArgs) (none, error) {
		s.c.srv.endRun(a.RunID, s.c)
		return none{}, nil
	})
}

func (s *service) Live(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(none) (liveReply, error) {
		return liveReply{Runs: s.c.srv.Live()}, nil
	})
}

func (s *service) Submit(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(req SubmitRequest) (idReply, error) {
		runs, err := s.runService()
		if err != nil {
			return idReply{}, err
		}
		id, err := runs.Submit(req)
		if err != nil {
			return idReply{}, redact(err, req.APIKey)
		}
		return idReply{ID: id}, nil
	})
}

func (s *service) Stop(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a runIDArgs) (none, error) {
		runs, err := s.runService()
		if err != nil {
			return none{}, err
		}
		return none{}, runs.Stop(a.RunID)
	})
}

// Outcome waits, at most maxWatchWait, for the end of a run the holder's
// RunService evaluates; the client asks again while it is not Done.
func (s *service) Outcome(in json.RawMessage, out *json.RawMessage) error {
	return handle(in, out, func(a runIDArgs) (RunOutcome, error) {
		runs, err := s.runService()
		if err != nil {
			return RunOutcome{}, err
		}
		ctx, cancel := context.WithTimeout(s.c.ctx, maxWatchWait)
		defer cancel()
		o, err := runs.Outcome(ctx, a.RunID)
		if err != nil && s.c.ctx.Err() != nil {
			err = errStopping
		}
		return o, err
	})
}

// runService is the holder's RunService, or the error that it has none.
func (s *service) runService() (RunService, error) {
	if runs := s.c.srv.opt.Runs; runs != nil {
		return runs, nil
	}
	return nil, noRunServiceError{s.c.srv.hello}
}

// redact keeps the API key out of an error that goes back over the socket
// (and from there to a terminal or a log), should the run service have
// quoted it, say in an endpoint's complaint.
func redact(err error, key string) error {
	if key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), key, "[redacted]"))
}
