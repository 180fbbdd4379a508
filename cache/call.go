package cache

import (
	"encoding/json"
	"errors"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/cache/internal/entry"
	"github.com/ragscope/ragscope/eval"
)

// Entry kinds, as shown by `cache stats` and written by Export.
const (
	KindChat      = "chat"
	KindEmbedding = "embedding"
	KindRuns      = "runs"
	KindResults   = "results"
)

// CallEntry is one cached call as the raw-call view shows it.
type CallEntry struct {
	Key   string `json:"key"`
	Kind  string `json:"kind"` // KindChat or KindEmbedding
	Task  string `json:"task,omitempty"`
	Model string `json:"model"`
	// Request is the canonical request JSON: for chat the eval.ChatRequest
	// whose Key is Key; for an embedding {endpoint, model, dimensions, text}.
	Request  json.RawMessage   `json:"request"`
	Response eval.ChatResponse `json:"response"`         // chat only
	Vector   []float64         `json:"vector,omitempty"` // embedding only, float32 precision
	Time     time.Time         `json:"time"`             // when the reply was stored
}

// Call returns the cached call with that key, or nil, nil when there is none.
func (db *DB) Call(key string) (*CallEntry, error) {
	var e *CallEntry
	err := db.view(func(tx *bolt.Tx) (err error) {
		if v := get(tx, bucketChat, key); v != nil {
			e, err = decodeChatEntry(key, v)
		} else if v := get(tx, bucketEmbedding, key); v != nil {
			e, err = decodeEmbeddingEntry(key, v)
		}
		return err
	})
	if err != nil {
		if !errors.Is(err, ErrDamaged) {
			err = damaged(db.path, "cache entry %s is unreadable: %v", key, err)
		}
		return nil, err
	}
	return e, nil
}

// decodeChatEntry copies everything out of v, which is only valid inside
// the transaction.
func decodeChatEntry(key string, v []byte) (*CallEntry, error) {
	var m entry.ChatMeta
	t, _, payload, err := entry.Decode(v, &m, "chat")
	if err != nil {
		return nil, err
	}
	m.Response.Key, m.Response.Cached = key, true
	return &CallEntry{
		Key: key, Kind: KindChat, Task: m.Task, Model: m.Model,
		Request:  json.RawMessage(append([]byte(nil), payload...)),
		Response: m.Response, Time: t,
	}, nil
}

func decodeEmbeddingEntry(key string, v []byte) (*CallEntry, error) {
	var m entry.EmbedMeta
	t, meta, payload, err := entry.Decode(v, &m, "embedding")
	if err != nil {
		return nil, err
	}
	vec, err := entry.DecodeVector(payload)
	if err != nil {
		return nil, err
	}
	return &CallEntry{
		Key: key, Kind: KindEmbedding, Model: m.Model,
		Request: json.RawMessage(append([]byte(nil), meta...)),
		Vector:  vec, Time: t,
	}, nil
}
