// Package entry is how a call-cache value is framed in the store: its time,
// the small meta a hit decodes (the reply) and the payload it never needs to
// (the canonical request, or an embedding vector).
package entry

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/ragscope/ragscope/eval"
)

// A cache value is framed as [1 byte version][8 bytes unix ns][4 bytes
// meta length][meta JSON][payload], integers big endian, so that a hit decodes
// only the meta (the reply), never the request with its whole prompt, and
// `cache clear --older-than` reads the time alone. The payload is the
// canonical request JSON, or the vector as float32 little endian.
const entryVersion = 1

const headerLen = 1 + 8 + 4

// ChatMeta is a chat entry's meta: the reply and what it answered.
type ChatMeta struct {
	Task     string            `json:"task,omitempty"`
	Model    string            `json:"model"`
	Response eval.ChatResponse `json:"response"`
}

// EmbedMeta is an embedding entry's meta: the text and where it was embedded.
type EmbedMeta struct {
	Endpoint   string `json:"endpoint"`
	Model      string `json:"model"`
	Dimensions int    `json:"dimensions,omitempty"`
	Text       string `json:"text"`
}

// Encode frames meta (as JSON) and payload, stamped with t.
func Encode(t time.Time, meta any, payload []byte) ([]byte, error) {
	m, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	if len(m) > math.MaxUint32 {
		return nil, errors.New("cache entry too large")
	}
	out := make([]byte, headerLen, headerLen+len(m)+len(payload))
	out[0] = entryVersion
	binary.BigEndian.PutUint64(out[1:9], uint64(t.UnixNano()))
	binary.BigEndian.PutUint32(out[9:13], uint32(len(m)))
	out = append(out, m...)
	return append(out, payload...), nil
}

// Split returns the parts of a framed value; they alias v, which bbolt
// only keeps valid inside the transaction.
func Split(v []byte) (t time.Time, meta, payload []byte, err error) {
	t, ok := Time(v)
	if !ok {
		return time.Time{}, nil, nil, errors.New("unreadable cache entry (damaged or from another version)")
	}
	n := binary.BigEndian.Uint32(v[9:13])
	if uint64(len(v)-headerLen) < uint64(n) {
		return time.Time{}, nil, nil, errors.New("truncated cache entry")
	}
	return t, v[headerLen : headerLen+int(n)], v[headerLen+int(n):], nil
}

// Decode splits a framed value and decodes its meta into m (a
// *ChatMeta or *EmbedMeta, what names it); the parts alias v.
func Decode(v []byte, m any, what string) (t time.Time, meta, payload []byte, err error) {
	if t, meta, payload, err = Split(v); err != nil {
		return t, nil, nil, err
	}
	if err := json.Unmarshal(meta, m); err != nil {
		return t, nil, nil, fmt.Errorf("unreadable %s entry: %w", what, err)
	}
	return t, meta, payload, nil
}

// Time is when a framed value was stored, without decoding it; false for a
// value that is not framed.
func Time(v []byte) (time.Time, bool) {
	if len(v) < headerLen || v[0] != entryVersion {
		return time.Time{}, false
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(v[1:9]))), true
}

// Vectors are stored as float32: embedding APIs compute in float32 or lower
// and float32 keeps cosines exact to about 1e-7, at half the bytes. Replies
// fresh from the network are rounded the same way so that a run and its
// cached re-run compute identical scores.
func EncodeVector(v []float64) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(float32(x)))
	}
	return out
}

func DecodeVector(b []byte) ([]float64, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("embedding vector of %d bytes is not a whole number of float32", len(b))
	}
	out := make([]float64, len(b)/4)
	for i := range out {
		out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return out, nil
}

func RoundVector(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(float32(x))
	}
	return out
}

// CanonicalRequest is the request JSON shown in the raw-call view and
// stored with the entry; Key hashes the same fields.
func CanonicalRequest(req eval.ChatRequest) ([]byte, error) {
	return json.Marshal(req)
}
