package holder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/rpc"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
)

// clientRole is the role of a run announced by a client: the client does
// not say what it is, the holder only knows its pid.
const clientRole = "client"

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
				out, err = c.invoke(methods[name], in)
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

var dbType = reflect.TypeFor[*cache.DB]()

// invoke calls method with the connection (or its database, as the
// method's first parameter says) and the arguments in, a JSON array, and
// gives its results but the last, an error, as a JSON array: never null,
// which net/rpc's JSON codec takes for an error. A panic in the store (a
// malformed request it did not expect) becomes this call's error: it must
// not take down the holder and every client with it.
func (c *conn) invoke(method any, in json.RawMessage) (out json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the holder failed on this request (%v); this is a ragscope bug: please report it", p)
		}
	}()
	fn := reflect.ValueOf(method)
	t := fn.Type()
	var raw []json.RawMessage
	if len(in) > 0 {
		err = json.Unmarshal(in, &raw)
	}
	if err == nil && len(raw) != t.NumIn()-1 {
		err = fmt.Errorf("%d arguments where the method takes %d", len(raw), t.NumIn()-1)
	}
	args := []reflect.Value{reflect.ValueOf(c)}
	if t.In(0) == dbType {
		args[0] = reflect.ValueOf(c.srv.db)
	}
	for i := 0; err == nil && i < len(raw); i++ {
		v := reflect.New(t.In(i + 1))
		err = json.Unmarshal(raw[i], v.Interface())
		args = append(args, v.Elem())
	}
	if err != nil {
		return nil, fmt.Errorf("the holder cannot read this request (%v); are both processes the same ragscope version?", err)
	}
	res := fn.Call(args)
	if err, _ := res[len(res)-1].Interface().(error); err != nil {
		return nil, err
	}
	reply := make([]any, 0, len(res)-1)
	for _, v := range res[:len(res)-1] {
		reply = append(reply, v.Interface())
	}
	b, err := json.Marshal(reply)
	if err != nil {
		return nil, fmt.Errorf("the holder cannot encode its reply: %w", err)
	}
	return b, nil
}

// methods are the holder's side of every call of the Client, by name:
// funcs whose first parameter is the connection or its database, whose
// other parameters are the call's arguments and whose results, the last
// an error, are its reply, in order. Most are the database's own.
var methods = map[string]any{
	// Ping answers at once: a client asks it to tell a holder that is busy
	// from one that is hung or stopped.
	"Ping":       func(*conn) error { return nil },
	"NewRunID":   (*cache.DB).NewRunID,
	"PutRun":     (*cache.DB).PutRun,
	"PutResult":  (*cache.DB).PutResult,
	"PutResults": (*cache.DB).PutResults,
	"Runs":       (*cache.DB).Runs,
	"Run":        (*cache.DB).Run,
	"RunPage": func(db *cache.DB, ref string, from, limit int) (report.RunInfo, []*eval.Result, int, error) {
		return db.RunPage(ref, from, min(limit, maxRunPage))
	},
	// RunSummaries sends each summary as its own JSON, which the client
	// reads with the summary reader rather than decoding whole results.
	"RunSummaries": func(db *cache.DB, ref string, from, limit int) (out []json.RawMessage, next int, err error) {
		next, err = db.RunSummaries(ref, from, min(limit, maxSummaryPage), func(r *eval.Result) error {
			b, err := json.Marshal(r)
			out = append(out, b)
			return err
		})
		return out, next, err
	},
	"LiveUpdates": func(c *conn, runID string, after int64, wait time.Duration) (cache.RawLiveBatch, error) {
		if wait <= 0 || wait > maxLiveWait {
			wait = maxLiveWait
		}
		// The stored JSON goes out as it is: a run watched by twenty
		// clients would otherwise decode and encode every result twenty times.
		b, err := c.srv.db.LiveUpdatesRaw(c.ctx, runID, after, wait)
		if err != nil && c.ctx.Err() != nil {
			// The wait ended because the holder is stopping (or the client
			// hung up): to the client that is a lost holder, not a failure.
			err = errStopping
		}
		return b, err
	},
	"LookupChat": (*cache.DB).LookupChat,
	// PutChat takes the request's task apart: it is json:"-" in
	// eval.ChatRequest, but the cache stores it.
	"PutChat": func(db *cache.DB, key string, req eval.ChatRequest, task string, resp eval.ChatResponse) error {
		req.Task = task
		return db.PutChat(key, req, resp)
	},
	"LookupEmbeddings": func(db *cache.DB, keys []string) (vectors, error) {
		return db.LookupEmbeddings(keys)
	},
	"PutEmbeddings": func(db *cache.DB, req eval.EmbedRequest, texts []string, vecs vectors) error {
		if len(vecs) != len(texts) {
			return fmt.Errorf("database %s: %d vectors for %d texts", db.Path(), len(vecs), len(texts))
		}
		return db.PutEmbeddings(req, texts, vecs)
	},
	// Claim answers whether it granted the claim, and the token of a
	// granted one.
	"Claim": func(c *conn, key string) (bool, uint64, error) {
		ctx, cancel := context.WithTimeout(c.ctx, maxClaimWait)
		defer cancel()
		err := c.srv.handover.wait(ctx)
		var release func()
		granted := false
		if err == nil {
			release, granted, err = c.srv.db.Claim(ctx, key)
		}
		switch {
		case err != nil && c.ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
			return false, 0, nil
		case err != nil && c.ctx.Err() != nil:
			return false, 0, errStopping
		case err != nil || !granted:
			return false, 0, err
		}
		token := c.addClaim(release)
		c.markClaimer()
		return true, token, nil
	},
	"Release": func(c *conn, token uint64) error {
		c.release(token)
		return nil
	},
	"Call":         (*cache.DB).Call,
	"PutLabels":    (*cache.DB).PutLabels,
	"DeleteLabels": (*cache.DB).DeleteLabels,
	// Labels keeps nil (every label) apart from an empty list over the wire.
	"Labels": (*cache.DB).Labels,
	"Stats":  (*cache.DB).Stats,
	"Clear":  (*cache.DB).Clear,
	// DeleteRuns refuses runs that the holder or one of its clients is
	// evaluating: only the holder knows them all.
	"DeleteRuns": func(c *conn, ids []string) (int, int, error) {
		if err := RefuseLive(c.srv.Live(), ids); err != nil {
			return 0, 0, err
		}
		return c.srv.db.DeleteRuns(ids)
	},
	"Export": func(db *cache.DB) ([]byte, int, error) {
		var b bytes.Buffer
		n, err := db.Export(&b)
		return b.Bytes(), n, err
	},
	"Import": func(db *cache.DB, data []byte) (int, error) {
		return db.Import(bytes.NewReader(data))
	},
	"BeginRun": func(c *conn, id string) error {
		if id == "" {
			return errors.New("BeginRun: the run id is empty")
		}
		c.srv.beginRun(id, c, LiveRun{PID: c.pid, Role: clientRole})
		return nil
	},
	"EndRun": func(c *conn, id string) error {
		c.srv.endRun(id, c)
		return nil
	},
	"Live": func(c *conn) (map[string]LiveRun, error) {
		return c.srv.Live(), nil
	},
	"Submit": func(c *conn, req SubmitRequest) (string, error) {
		runs, err := c.runService()
		if err != nil {
			return "", err
		}
		id, err := runs.Submit(req)
		if err != nil {
			usage := errors.As(err, new(exit.UsageError))
			err = redact(err, req.APIKey)
			if usage {
				// The run's flags or input: the client exits 2, as run does.
				err = errors.New(usagePrefix + err.Error())
			}
			return "", err
		}
		return id, nil
	},
	"Stop": func(c *conn, id string) error {
		runs, err := c.runService()
		if err != nil {
			return err
		}
		return runs.Stop(id)
	},
	// Outcome waits, at most maxLiveWait, for the end of a run the holder's
	// RunService evaluates; the client asks again while it is not Done.
	"Outcome": func(c *conn, id string) (RunOutcome, error) {
		runs, err := c.runService()
		if err != nil {
			return RunOutcome{}, err
		}
		ctx, cancel := context.WithTimeout(c.ctx, maxLiveWait)
		defer cancel()
		o, err := runs.Outcome(ctx, id)
		if err != nil && c.ctx.Err() != nil {
			err = errStopping
		}
		return o, err
	},

	// The watcher's state (cache/watchstate.go): a watcher that is a
	// client keeps it in the holder's database, one call and one
	// transaction a step.
	"WatchLoad":   (*cache.DB).WatchLoad,
	"WatchAdmit":  (*cache.DB).WatchAdmit,
	"WatchResult": (*cache.DB).WatchResult,

	// Run progress (progress.go).
	"SetProgress": func(c *conn, id string, p Progress) error {
		if id == "" {
			return errors.New("SetProgress: the run id is empty")
		}
		c.srv.setProgress(id, c, p)
		return nil
	},
	"Progress": func(c *conn, id string) (RunProgress, error) {
		return c.srv.Progress(id), nil
	},

	// The hand-over of claims (handover.go): Rejoin answers the token of
	// each claim granted again, 0 for a key someone else holds.
	"Rejoin": func(c *conn, keys []string) ([]uint64, error) {
		tokens := make([]uint64, len(keys))
		// Granted at once or not at all: these claims were this client's,
		// and nobody may have been granted them since, unless the wait ran out.
		for i, key := range keys {
			if release := c.srv.db.TryClaim(key); release != nil {
				tokens[i] = c.addClaim(release)
			}
		}
		if len(keys) > 0 {
			c.markClaimer()
		}
		c.srv.handover.back(c.pid)
		return tokens, nil
	},
}

// runService is the holder's RunService, or the error of a holder that
// has none.
func (c *conn) runService() (RunService, error) {
	if runs := c.srv.opt.Runs; runs != nil {
		return runs, nil
	}
	return nil, noRunServiceError{c.srv.hello}
}

// redact keeps the API key out of an error that goes back over the socket,
// should the run service have quoted it.
func redact(err error, key string) error {
	if key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), key, "[redacted]"))
}
