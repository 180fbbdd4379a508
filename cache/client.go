package cache

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/cache/internal/boltfile"
	"github.com/ragscope/ragscope/cache/internal/entry"
	"github.com/ragscope/ragscope/eval"
)

// Mode says whether a cache miss may go to the network. --no-cache is not a
// mode: then the judge's client is simply not wrapped.
type Mode int

const (
	// ReadWrite serves hits from the cache and sends misses to the inner
	// client, storing its successful replies.
	ReadWrite Mode = iota
	// CacheOnly replays the cache and answers every miss with
	// eval.ErrCacheMiss, never touching the network.
	CacheOnly
	// DryRun sends misses to the inner client (a cost estimate's planner)
	// but stores and claims nothing: what a run would have stored is
	// remembered in memory, so a request repeated in the dry run is a hit.
	DryRun
)

// Client is an eval.ChatClient that answers from the cache when it can.
type Client struct {
	st    Store
	inner eval.ChatClient
	mode  Mode

	// dryMu makes a dry run's embeddings one request at a time, so that
	// requests sharing texts are planned as a run without races would
	// send them.
	dryMu sync.Mutex
}

// dryStore is the store as a dry run sees it: the replies and vectors the
// run would have stored answer from memory, and its claims are its own, so
// that callers of one request wait for the first as they would in a run.
type dryStore struct {
	Store
	mu     sync.Mutex
	chat   map[string]eval.ChatResponse
	vecs   map[string][]float64 // embedding key -> vector
	claims claims
}

func (d *dryStore) LookupChat(key string) (eval.ChatResponse, bool, error) {
	d.mu.Lock()
	resp, ok := d.chat[key]
	d.mu.Unlock()
	if ok {
		return resp, true, nil
	}
	return d.Store.LookupChat(key)
}

func (d *dryStore) PutChat(key string, _ eval.ChatRequest, resp eval.ChatResponse) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.chat[key] = resp
	return nil
}

func (d *dryStore) LookupEmbeddings(keys []string) ([][]float64, error) {
	vecs, err := d.Store.LookupEmbeddings(keys)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, k := range keys {
		if vecs[i] == nil {
			vecs[i] = d.vecs[k]
		}
	}
	return vecs, nil
}

// PutEmbeddings keeps the vectors as given: a planner hands out one shared
// vector, so the memory of a large dry run is its keys.
func (d *dryStore) PutEmbeddings(req eval.EmbedRequest, texts []string, vecs [][]float64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, t := range texts {
		d.vecs[eval.EmbedKey(req.Endpoint, req.Model, req.Dimensions, t)] = vecs[i]
	}
	return nil
}

func (d *dryStore) Claim(ctx context.Context, key string) (func(), bool, error) {
	return d.claims.claim(ctx, key)
}

var _ eval.ChatClient = (*Client)(nil)

// Client wraps inner with the cache of this database.
func (db *DB) Client(inner eval.ChatClient, mode Mode) *Client { return NewClient(db, inner, mode) }

// NewClient wraps inner with the call cache of a store, local or served by
// another process. A read-only store can only replay, so it forces CacheOnly.
func NewClient(st Store, inner eval.ChatClient, mode Mode) *Client {
	if st.ReadOnly() && mode == ReadWrite {
		mode = CacheOnly
	}
	if mode == DryRun {
		st = &dryStore{Store: st, chat: map[string]eval.ChatResponse{}, vecs: map[string][]float64{}}
	}
	return &Client{st: st, inner: inner, mode: mode}
}

// Chat answers from the cache, or asks the inner client and stores its reply
// before returning, so a completed call is never paid for twice. Concurrent
// identical requests, of any process sharing the store, are sent once: the
// others wait for the claim and then read the stored reply.
func (c *Client) Chat(ctx context.Context, req eval.ChatRequest) (eval.ChatResponse, error) {
	key := req.Key()
	for {
		resp, ok, err := c.lookupChat(key, req.Validate)
		if err != nil {
			return eval.ChatResponse{}, err
		}
		if ok {
			return resp, nil
		}
		if c.mode == CacheOnly {
			return eval.ChatResponse{}, fmt.Errorf("%s call %.12s: %w", cmp.Or(req.Task, "chat"), key, eval.ErrCacheMiss)
		}
		release, granted, err := c.st.Claim(ctx, key)
		if err != nil {
			return eval.ChatResponse{}, err
		}
		if !granted {
			// Another caller paid for this very request; its reply is in
			// the cache now (or it failed, and we try ourselves).
			continue
		}
		// The holder of the claim before us may have stored the reply
		// between our lookup and our claim.
		if resp, ok, err := c.lookupChat(key, req.Validate); err == nil && ok {
			release()
			return resp, nil
		}
		resp, err = c.fetchChat(ctx, req, key)
		release()
		return resp, err
	}
}

// lookupChat reads a stored reply, marked as the cache's; one whose
// choices the request's validator now rejects counts as absent, so it is
// fetched again and overwritten.
func (c *Client) lookupChat(key string, validate func(string) error) (eval.ChatResponse, bool, error) {
	resp, ok, err := c.st.LookupChat(key)
	if err != nil || !ok {
		return eval.ChatResponse{}, false, err
	}
	if validate != nil && !validChoices(resp.Choices, validate) {
		return eval.ChatResponse{}, false, nil
	}
	resp.Cached, resp.Key = true, key
	return resp, true, nil
}

func (c *Client) fetchChat(ctx context.Context, req eval.ChatRequest, key string) (eval.ChatResponse, error) {
	resp, err := c.inner.Chat(ctx, req)
	if err != nil {
		return resp, err
	}
	resp.Cached, resp.Key = false, key
	if req.Validate != nil && !validChoices(resp.Choices, req.Validate) {
		// A reply the judge cannot use must not be replayed forever; the
		// judge sees it (and reports a parse error) but it is not stored.
		return resp, nil
	}
	if err := c.st.PutChat(key, req, resp); err != nil {
		return resp, fmt.Errorf("%s call succeeded but could not be saved to the cache: %w", cmp.Or(req.Task, "chat"), err)
	}
	return resp, nil
}

func validChoices(choices []string, validate func(string) error) bool {
	return len(choices) > 0 && !slices.ContainsFunc(choices, func(ch string) bool { return validate(ch) != nil })
}

// LookupChat reads a stored reply. An entry that cannot be decoded counts as
// absent so that it is fetched again and overwritten.
func (db *DB) LookupChat(key string) (eval.ChatResponse, bool, error) {
	var (
		resp  eval.ChatResponse
		found bool
		read  int
	)
	// A run on a warm cache reads a page of the file per call: the pages
	// stay in the resident set unless the mapping is trimmed (see boltfile.Resident).
	defer func() { db.res.Note(db.bolt, read+boltfile.PageOverhead) }()
	err := db.view(func(tx *bolt.Tx) error {
		v := get(tx, bucketChat, key)
		if v == nil {
			return nil
		}
		read = len(v)
		var m entry.ChatMeta
		if _, _, _, err := entry.Decode(v, &m, "chat"); err == nil {
			resp, found = m.Response, true
		}
		return nil
	})
	if err != nil {
		return eval.ChatResponse{}, false, fmt.Errorf("read cache %s: %w", db.path, err)
	}
	return resp, found, nil
}

// PutChat stores a reply under its request's key.
func (db *DB) PutChat(key string, req eval.ChatRequest, resp eval.ChatResponse) error {
	reqJSON, err := entry.CanonicalRequest(req)
	if err != nil {
		return err
	}
	v, err := entry.Encode(db.now(), entry.ChatMeta{Task: req.Task, Model: req.Model, Response: resp}, reqJSON)
	if err != nil {
		return err
	}
	return db.update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketChat).Put([]byte(key), v)
	})
}

// Embed serves each text's vector from the cache and sends only the missing
// texts, in their order and each once, to the inner client in one request.
func (c *Client) Embed(ctx context.Context, req eval.EmbedRequest) (eval.EmbedResponse, error) {
	out := eval.EmbedResponse{Vectors: make([][]float64, len(req.Texts))}
	if len(req.Texts) == 0 {
		return out, nil
	}
	if c.mode == DryRun {
		c.dryMu.Lock()
		defer c.dryMu.Unlock()
	}
	keys := make([]string, len(req.Texts))
	for i, t := range req.Texts {
		keys[i] = eval.EmbedKey(req.Endpoint, req.Model, req.Dimensions, t)
	}
	var (
		missing []string
		slot    map[string][]int // text -> positions awaiting its vector
		release func()
	)
	for {
		vecs, err := c.st.LookupEmbeddings(keys)
		if err != nil {
			return eval.EmbedResponse{}, err
		}
		out.Vectors, out.Cached = vecs, 0
		missing, slot = nil, map[string][]int{}
		for i, v := range out.Vectors {
			if v != nil {
				out.Cached++
				continue
			}
			t := req.Texts[i]
			if _, seen := slot[t]; !seen {
				missing = append(missing, t)
			}
			slot[t] = append(slot[t], i)
		}
		if len(missing) == 0 || c.mode == CacheOnly || c.mode == DryRun || release != nil {
			break
		}
		// Two callers embedding the same texts at once pay once: the claim
		// is on the request's texts, not on the missing ones, which a third
		// caller could make differ; the loser looks again.
		r, granted, err := c.st.Claim(ctx, embedClaim(req, req.Texts))
		if err != nil {
			return eval.EmbedResponse{}, err
		}
		if granted {
			release = r
		}
	}
	if release != nil {
		defer release()
	}
	if len(missing) == 0 {
		return out, nil
	}
	if c.mode == CacheOnly {
		return eval.EmbedResponse{}, fmt.Errorf("embedding of %d text(s): %w", len(missing), eval.ErrCacheMiss)
	}
	fresh, err := c.embedMissing(ctx, req, missing)
	if err != nil {
		return eval.EmbedResponse{}, err
	}
	// Nor may a vector sit beside cached vectors of another dimension; a
	// dry run's planned vectors are placeholders, and its call is sent
	// either way.
	for _, v := range out.Vectors {
		if v != nil && len(v) != len(fresh.Vectors[0]) && c.mode != DryRun {
			return eval.EmbedResponse{}, eval.NewStepError(eval.StatusJudgeError,
				"embedding endpoint %s returned vectors of %d dimensions, but the cache holds vectors of %d for the same model and texts: "+
					"the model behind the name changed; clear the cache of it (ragscope cache clear) or set --embedding-dimensions",
				req.Endpoint, len(fresh.Vectors[0]), len(v))
		}
	}
	if err := c.st.PutEmbeddings(req, missing, fresh.Vectors); err != nil {
		return eval.EmbedResponse{}, fmt.Errorf("embeddings succeeded but could not be saved to the cache: %w", err)
	}
	for i, t := range missing {
		v := fresh.Vectors[i]
		if c.mode != DryRun {
			v = entry.RoundVector(v)
		}
		for _, pos := range slot[t] {
			out.Vectors[pos] = v
		}
	}
	out.Usage, out.LatencyMS = fresh.Usage, fresh.LatencyMS
	return out, nil
}

// embedMissing asks the inner client for the vectors of texts and checks
// them: a poisoned vector must never reach the cache, where every later run
// would replay it, nor a dry run's plan.
func (c *Client) embedMissing(ctx context.Context, req eval.EmbedRequest, texts []string) (eval.EmbedResponse, error) {
	who := "embedding endpoint " + req.Endpoint
	if c.mode == DryRun {
		who = "embedding planner"
	}
	fresh, err := c.inner.Embed(ctx, eval.EmbedRequest{
		Endpoint: req.Endpoint, Model: req.Model, Dimensions: req.Dimensions, Texts: texts, Sample: req.Sample,
	})
	if err != nil {
		return eval.EmbedResponse{}, err
	}
	if len(fresh.Vectors) != len(texts) {
		return eval.EmbedResponse{}, eval.NewStepError(eval.StatusJudgeError, "%s returned %d vectors for %d texts", who, len(fresh.Vectors), len(texts))
	}
	if err := eval.CheckVectors(fresh.Vectors, req.Dimensions); err != nil {
		if c.mode == DryRun {
			return eval.EmbedResponse{}, err
		}
		return eval.EmbedResponse{}, fmt.Errorf("%s: %w", who, err)
	}
	return fresh, nil
}

// LookupEmbeddings returns one vector per key, nil where none is stored;
// undecodable entries stay nil and are fetched again.
func (db *DB) LookupEmbeddings(keys []string) ([][]float64, error) {
	vecs := make([][]float64, len(keys))
	read := 0
	defer func() { db.res.Note(db.bolt, read) }()
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEmbedding)
		if b == nil {
			return nil
		}
		for i, k := range keys {
			v := b.Get([]byte(k))
			read += len(v) + boltfile.PageOverhead
			if v == nil {
				continue
			}
			_, _, payload, err := entry.Split(v)
			if err != nil || len(payload) == 0 {
				continue
			}
			// A vector an older version cached without checking is fetched
			// again (and overwritten) rather than replayed.
			if vec, err := entry.DecodeVector(payload); err == nil && eval.CheckVectors([][]float64{vec}, 0) == nil {
				vecs[i] = vec
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read cache %s: %w", db.path, err)
	}
	return vecs, nil
}

// PutEmbeddings stores one vector per text.
func (db *DB) PutEmbeddings(req eval.EmbedRequest, texts []string, vecs [][]float64) error {
	now := db.now()
	keys := make([][]byte, len(texts))
	vals := make([][]byte, len(texts))
	for i, t := range texts {
		v, err := entry.Encode(now, entry.EmbedMeta{Endpoint: req.Endpoint, Model: req.Model, Dimensions: req.Dimensions, Text: t}, entry.EncodeVector(vecs[i]))
		if err != nil {
			return err
		}
		keys[i] = []byte(eval.EmbedKey(req.Endpoint, req.Model, req.Dimensions, t))
		vals[i] = v
	}
	return db.update(func(tx *bolt.Tx) error { return putAll(tx.Bucket(bucketEmbedding), keys, vals) })
}

// embedClaim names the embedding of a set of texts for Claim.
func embedClaim(req eval.EmbedRequest, texts []string) string {
	h := sha256.New()
	for _, t := range texts {
		h.Write([]byte(eval.EmbedKey(req.Endpoint, req.Model, req.Dimensions, t)))
	}
	return "embed:" + hex.EncodeToString(h.Sum(nil))
}
