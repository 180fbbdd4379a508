package holder

import (
	"reflect"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/labels"
)

// Stub is the calls of cache.Store that are a method of the holder's
// table each (see methods in service.go), made by name through invoke:
// over the socket for a Client, or in this process for the process that
// holds the file (CallDB), so that a store that is one or the other in
// turn (store.Shared) needs no copy of them.
type Stub struct {
	invoke func(method string, args []any, results ...any) error
}

// NewStub makes the calls through invoke, which calls method with args, in
// order, and reads the values of its reply into results, in order.
func NewStub(invoke func(method string, args []any, results ...any) error) Stub {
	return Stub{invoke}
}

// Invoke calls a method of the holder's table by name.
func (c Stub) Invoke(method string, args []any, results ...any) error {
	return c.invoke(method, args, results...)
}

// ask is invoke for a method with one result.
func ask[R any](c Stub, method string, args ...any) (R, error) {
	var r R
	err := c.invoke(method, args, &r)
	return r, err
}

// CallDB calls a method of the holder's table that takes the database on
// db itself, with the values a Stub gives.
func CallDB(db *cache.DB, method string, args []any, results ...any) error {
	in := []reflect.Value{reflect.ValueOf(db)}
	for _, a := range args {
		in = append(in, reflect.ValueOf(a))
	}
	out := reflect.ValueOf(methods[method]).Call(in)
	if err, _ := out[len(out)-1].Interface().(error); err != nil {
		return err
	}
	for i, r := range results {
		reflect.ValueOf(r).Elem().Set(out[i])
	}
	return nil
}

func (c Stub) NewRunID() (string, error) { return ask[string](c, "NewRunID") }

func (c Stub) PutRun(info report.RunInfo) error {
	return c.invoke("PutRun", []any{info})
}

func (c Stub) PutResult(runID string, r *eval.Result) error {
	return c.invoke("PutResult", []any{runID, r})
}

func (c Stub) PutResults(runID string, rs []*eval.Result) error {
	return c.invoke("PutResults", []any{runID, rs})
}

func (c Stub) Runs() ([]report.RunInfo, error) { return ask[[]report.RunInfo](c, "Runs") }

func (c Stub) Run(ref string) (info report.RunInfo, rs []*eval.Result, err error) {
	err = c.invoke("Run", []any{ref}, &info, &rs)
	return info, rs, err
}

// RunPage: the holder caps a page at maxRunPage results, so one reply
// stays a bounded message; next says where to go on.
func (c Stub) RunPage(ref string, from, limit int) (info report.RunInfo, page []*eval.Result, next int, err error) {
	if err := c.invoke("RunPage", []any{ref, from, limit}, &info, &page, &next); err != nil {
		return report.RunInfo{}, nil, -1, err
	}
	return info, page, next, nil
}

func (c Stub) LookupChat(key string) (resp eval.ChatResponse, found bool, err error) {
	err = c.invoke("LookupChat", []any{key}, &resp, &found)
	return resp, found, err
}

func (c Stub) PutChat(key string, req eval.ChatRequest, resp eval.ChatResponse) error {
	return c.invoke("PutChat", []any{key, req, req.Task, resp})
}

func (c Stub) LookupEmbeddings(keys []string) ([][]float64, error) {
	return ask[vectors](c, "LookupEmbeddings", keys)
}

// PutEmbeddings does not send the request's texts: the store keys each
// vector by texts[i], and the whole batch would only cost bytes.
func (c Stub) PutEmbeddings(req eval.EmbedRequest, texts []string, vecs [][]float64) error {
	req.Texts = nil
	return c.invoke("PutEmbeddings", []any{req, texts, vectors(vecs)})
}

// Call: a chat entry's response is marked as the cache's, with its key, as
// the holder's is; those fields do not travel.
func (c Stub) Call(key string) (e *cache.CallEntry, err error) {
	err = c.invoke("Call", []any{key}, &e)
	if e != nil && e.Kind == cache.KindChat {
		e.Response.Key, e.Response.Cached = key, true
	}
	return e, err
}

func (c Stub) PutLabels(ls []labels.Label) error {
	return c.invoke("PutLabels", []any{ls})
}

func (c Stub) DeleteLabels(keys []string) (int, error) { return ask[int](c, "DeleteLabels", keys) }

func (c Stub) Labels(keys []string) (map[string]labels.Label, error) {
	return ask[map[string]labels.Label](c, "Labels", keys)
}

func (c Stub) Stats() (cache.Stats, error) { return ask[cache.Stats](c, "Stats") }

func (c Stub) Clear(olderThan time.Duration) (int, error) { return ask[int](c, "Clear", olderThan) }

func (c Stub) WatchLoad(stream string) (cache.WatchState, error) {
	return ask[cache.WatchState](c, "WatchLoad", stream)
}

func (c Stub) WatchAdmit(stream string, a cache.WatchAdmit) (cache.WatchAdmitted, error) {
	return ask[cache.WatchAdmitted](c, "WatchAdmit", stream, a)
}

func (c Stub) WatchResult(stream, hash, runID string, res *eval.Result) error {
	return c.invoke("WatchResult", []any{stream, hash, runID, res})
}
