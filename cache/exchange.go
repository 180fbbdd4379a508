package cache

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/cache/internal/entry"
	"github.com/ragscope/ragscope/eval"
)

// An export is JSON Lines: a header line, then one call-cache entry per
// line. Entries carry everything their key is derived from, so an import
// recomputes each key and refuses entries that were edited or damaged:
// a shared cache can never make one request answer for another.
const (
	exportFormat  = "ragscope-cache"
	exportVersion = 1
)

type exportHeader struct {
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	ExportedAt time.Time `json:"exported_at"`
	Entries    int       `json:"entries"`
}

type exportLine struct {
	Kind string    `json:"kind"`
	Key  string    `json:"key"`
	Time time.Time `json:"time"`

	// chat
	Task     string             `json:"task,omitempty"`
	Request  json.RawMessage    `json:"request,omitempty"`
	Response *eval.ChatResponse `json:"response,omitempty"`

	// embedding (Model is shared with chat)
	Endpoint   string `json:"endpoint,omitempty"`
	Model      string `json:"model"`
	Dimensions int    `json:"dimensions,omitempty"`
	Text       string `json:"text,omitempty"`
	// Vector is the float32 little-endian vector, base64: exact and compact.
	Vector string `json:"vector_f32le,omitempty"`
}

// Export writes every call-cache entry (not the runs) as JSON Lines and
// returns how many it wrote. Unreadable entries stop the export with an
// error naming their key rather than being left out.
func (db *DB) Export(w io.Writer) (n int, err error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	err = db.view(func(tx *bolt.Tx) error {
		total := 0
		for _, name := range [][]byte{bucketChat, bucketEmbedding} {
			if b := tx.Bucket(name); b != nil {
				total += b.Stats().KeyN
			}
		}
		if err := enc.Encode(exportHeader{Format: exportFormat, Version: exportVersion, ExportedAt: db.now().UTC(), Entries: total}); err != nil {
			return err
		}
		for _, name := range [][]byte{bucketChat, bucketEmbedding} {
			b := tx.Bucket(name)
			if b == nil {
				continue
			}
			if err := b.ForEach(func(k, v []byte) error {
				line, err := exportEntry(name, string(k), v)
				if err != nil {
					return damaged(db.path, "cache entry %s is unreadable: %v", k, err)
				}
				if err := enc.Encode(line); err != nil {
					return err
				}
				n++
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return n, fmt.Errorf("export %s: %w", db.path, err)
	}
	return n, nil
}

func exportEntry(bucket []byte, key string, v []byte) (exportLine, error) {
	if bytes.Equal(bucket, bucketChat) {
		e, err := decodeChatEntry(key, v)
		if err != nil {
			return exportLine{}, err
		}
		return exportLine{Kind: KindChat, Key: key, Time: e.Time.UTC(), Task: e.Task, Model: e.Model, Request: e.Request, Response: &e.Response}, nil
	}
	var m entry.EmbedMeta
	t, _, payload, err := entry.Decode(v, &m, "embedding")
	if err != nil {
		return exportLine{}, err
	}
	return exportLine{Kind: KindEmbedding, Key: key, Time: t.UTC(), Endpoint: m.Endpoint, Model: m.Model,
		Dimensions: m.Dimensions, Text: m.Text, Vector: base64.StdEncoding.EncodeToString(payload)}, nil
}

// importChunk bounds one transaction of an import.
const importChunk = 5000

type importEntry struct {
	bucket []byte
	key    []byte
	value  []byte
}

// Import merges an export into the cache and returns how many entries it
// added, keeping those already present. The whole input is checked before
// anything is written: a bad line leaves the database unchanged.
func (db *DB) Import(r io.Reader) (n int, err error) {
	entries, err := parseExport(r)
	if err != nil {
		return 0, err
	}
	for chunk := range slices.Chunk(entries, importChunk) {
		added := 0
		if err := db.update(func(tx *bolt.Tx) error {
			added = 0 // the function may run more than once
			for _, e := range chunk {
				b := tx.Bucket(e.bucket)
				if b.Get(e.key) != nil {
					continue
				}
				if err := b.Put(e.key, e.value); err != nil {
					return err
				}
				added++
			}
			return nil
		}); err != nil {
			return n, fmt.Errorf("import into %s: %w", db.path, err)
		}
		n += added
	}
	return n, nil
}

func parseExport(r io.Reader) ([]importEntry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), math.MaxInt) // a line holds a whole prompt
	var entries []importEntry
	sawHeader := false
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if !sawHeader {
			if err := checkHeader(line); err != nil {
				return nil, fmt.Errorf("import: line %d: %w", lineNo, err)
			}
			sawHeader = true
			continue
		}
		e, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("import: line %d: %w", lineNo, err)
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("import: read line %d: %w", lineNo+1, err)
	}
	if !sawHeader {
		return nil, errors.New("import: the input is empty; expected a file written by `ragscope cache export`")
	}
	return entries, nil
}

func checkHeader(line []byte) error {
	var h exportHeader
	if err := json.Unmarshal(line, &h); err != nil || h.Format != exportFormat {
		return fmt.Errorf("not a ragscope cache export (the first line must be its %q header); write one with `ragscope cache export FILE`", exportFormat)
	}
	if h.Version < 1 || h.Version > exportVersion {
		return fmt.Errorf("export version %d is not readable by this ragscope (reads version %d); upgrade ragscope", h.Version, exportVersion)
	}
	return nil
}

func parseLine(line []byte) (importEntry, error) {
	var l exportLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return importEntry{}, fmt.Errorf("invalid JSON: %w", err)
	}
	if l.Time.IsZero() {
		return importEntry{}, errors.New(`entry has no "time"`)
	}
	switch l.Kind {
	case KindChat:
		return parseChatLine(l)
	case KindEmbedding:
		return parseEmbeddingLine(l)
	}
	return importEntry{}, fmt.Errorf("unknown kind %q (want %q or %q)", l.Kind, KindChat, KindEmbedding)
}

func parseChatLine(l exportLine) (importEntry, error) {
	if len(l.Request) == 0 || l.Response == nil {
		return importEntry{}, errors.New(`chat entry needs "request" and "response"`)
	}
	var req eval.ChatRequest
	if err := json.Unmarshal(l.Request, &req); err != nil {
		return importEntry{}, fmt.Errorf("chat request: %w", err)
	}
	if req.Key() != l.Key {
		return importEntry{}, fmt.Errorf("key %.12s does not match its request (the entry was edited or damaged)", l.Key)
	}
	if len(l.Response.Choices) == 0 {
		return importEntry{}, errors.New("chat response has no choices")
	}
	req.Task = l.Task
	reqJSON, err := entry.CanonicalRequest(req)
	if err != nil {
		return importEntry{}, err
	}
	resp := *l.Response
	resp.Cached, resp.Key = false, ""
	v, err := entry.Encode(l.Time, entry.ChatMeta{Task: l.Task, Model: req.Model, Response: resp}, reqJSON)
	if err != nil {
		return importEntry{}, err
	}
	return importEntry{bucket: bucketChat, key: []byte(l.Key), value: v}, nil
}

func parseEmbeddingLine(l exportLine) (importEntry, error) {
	if eval.EmbedKey(l.Endpoint, l.Model, l.Dimensions, l.Text) != l.Key {
		return importEntry{}, fmt.Errorf("key %.12s does not match its endpoint, model, dimensions and text (the entry was edited or damaged)", l.Key)
	}
	raw, err := base64.StdEncoding.DecodeString(l.Vector)
	if err != nil {
		return importEntry{}, fmt.Errorf("vector_f32le: %w", err)
	}
	if len(raw) == 0 || len(raw)%4 != 0 {
		return importEntry{}, fmt.Errorf("vector_f32le holds %d bytes, not a non-empty float32 vector", len(raw))
	}
	v, err := entry.Encode(l.Time, entry.EmbedMeta{Endpoint: l.Endpoint, Model: l.Model, Dimensions: l.Dimensions, Text: l.Text}, raw)
	if err != nil {
		return importEntry{}, err
	}
	return importEntry{bucket: bucketEmbedding, key: []byte(l.Key), value: v}, nil
}
