package cache

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/stacks"
)

// fakeInner stands in for the network: it answers deterministically from
// the request and counts what it was asked.
type fakeInner struct {
	chats  atomic.Int64
	embeds atomic.Int64 // requests
	texts  atomic.Int64 // texts embedded

	mu        sync.Mutex
	sentTexts [][]string // each Embed request's texts, in order

	chatErr  error
	embedErr error
	// reply overrides the chat reply content.
	reply func(req eval.ChatRequest) string
	// vectors overrides how many vectors Embed returns (for malformed replies).
	vectors func(n int) int
	// gate, when set, is received from before answering a chat call;
	// embedGate likewise for an embeddings call.
	gate, embedGate chan struct{}
	// poison, when set, changes each returned vector (NaN, zeros, dims).
	poison func(i int, v []float64) []float64
}

func (f *fakeInner) Chat(ctx context.Context, req eval.ChatRequest) (eval.ChatResponse, error) {
	f.chats.Add(1)
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return eval.ChatResponse{}, ctx.Err()
		}
	}
	if f.chatErr != nil {
		return eval.ChatResponse{}, f.chatErr
	}
	content := fmt.Sprintf(`{"answer":"%s draw %d"}`, req.Model, req.Draw)
	if f.reply != nil {
		content = f.reply(req)
	}
	return eval.ChatResponse{
		Choices:       []string{content},
		FinishReasons: []string{"stop"},
		Usage:         eval.Usage{PromptTokens: 100, CompletionTokens: 7},
		LatencyMS:     420,
	}, nil
}

func (f *fakeInner) Embed(ctx context.Context, req eval.EmbedRequest) (eval.EmbedResponse, error) {
	f.embeds.Add(1)
	f.texts.Add(int64(len(req.Texts)))
	f.mu.Lock()
	f.sentTexts = append(f.sentTexts, append([]string(nil), req.Texts...))
	f.mu.Unlock()
	if f.embedGate != nil {
		select {
		case <-f.embedGate:
		case <-ctx.Done():
			return eval.EmbedResponse{}, ctx.Err()
		}
	}
	if f.embedErr != nil {
		return eval.EmbedResponse{}, f.embedErr
	}
	n := len(req.Texts)
	if f.vectors != nil {
		n = f.vectors(n)
	}
	out := eval.EmbedResponse{Usage: eval.Usage{PromptTokens: 3 * n}, LatencyMS: 55}
	for i := 0; i < n; i++ {
		v := vectorOf(req.Texts[i%len(req.Texts)], 8)
		if f.poison != nil {
			v = f.poison(i, v)
		}
		out.Vectors = append(out.Vectors, v)
	}
	return out, nil
}

// vectorOf is a deterministic vector whose components are not exactly
// representable as float32, to exercise the precision rounding.
func vectorOf(text string, dims int) []float64 {
	sum := sha256.Sum256([]byte(text))
	v := make([]float64, dims)
	for i := range v {
		v[i] = float64(binary.BigEndian.Uint16(sum[2*i:]))/65536.0 + 1e-9
	}
	return v
}

var errBoom = errors.New("boom: endpoint down")

func openTemp(t testing.TB) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "sub", "ragscope.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func chatReq(model string, draw int) eval.ChatRequest {
	seed := 7
	return eval.ChatRequest{
		Endpoint: "api.openai.com/v1",
		Model:    model,
		Messages: []eval.Message{
			{Role: "system", Content: "You split answers into statements."},
			{Role: "user", Content: "Question: 小规模纳税人转为一般纳税人后，纳税人识别号会变吗？\nAnswer: No."},
		},
		Temperature:    0.7,
		Seed:           &seed,
		MaxTokens:      512,
		ResponseFormat: eval.ResponseFormat{Type: "json_schema", Name: "faithfulness_statements", Schema: []byte(`{"type":"object"}`)},
		Draw:           draw,
		Task:           "faithfulness_statements",
	}
}

func ptr(f float64) *float64 { return &f }

func sampleResult(i int) *eval.Result {
	return &eval.Result{
		Index: i, ID: fmt.Sprintf("s%d", i),
		Question: "Does the TIN change?", Answer: "No.", Contexts: []string{"The TIN stays the same."},
		Scores: map[eval.Metric]*float64{eval.Faithfulness: ptr(1), eval.ContextRecall: nil},
		Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.ContextRecall: eval.StatusMissingInput},
		Faithfulness: &eval.FaithfulnessTrace{
			Statements: []eval.StatementVerdict{{Statement: "The TIN does not change.", Verdict: 1, Reason: "stated in context 1"}},
			Supported:  1,
		},
		Calls: []eval.CallRecord{{Task: "faithfulness_statements", Key: "abc", Cached: true}},
	}
}

// Results returns the finished samples of a run by index, as the tests check them.
func (db *DB) Results(runID string) (map[int]*eval.Result, error) {
	var out map[int]*eval.Result
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketRuns)
		if b == nil || b.Get([]byte(runID)) == nil {
			return fmt.Errorf("no run %q in %s; `ragscope runs` lists the recorded runs", runID, db.path)
		}
		var err error
		out, err = readResults(tx, db.path, runID)
		return err
	})
	return out, err
}

// claimWaiters counts the goroutines waiting for a claim, as their stacks
// show them.
func claimWaiters() int { return stacks.Blocked("cache.(*claims).claim(", "select") }

// Of returns the stats of one kind (zero when unknown).
func (s Stats) Of(kind string) KindStats { return ofKind(s.Kinds, KindStats{Kind: kind}) }

func (k KindStats) kind() string    { return k.Kind }
func (k KindCheck) kind() string    { return k.Kind }
func (k SalvageCount) kind() string { return k.Kind }

// ofKind finds the counts of one kind in a report's list: those of the
// kind of none, or none when the list has no such kind.
func ofKind[T interface{ kind() string }](list []T, none T) T {
	if i := slices.IndexFunc(list, func(k T) bool { return k.kind() == none.kind() }); i >= 0 {
		return list[i]
	}
	return none
}

// Of returns the counts of one kind.
func (r Report) Of(kind string) KindCheck { return ofKind(r.Kinds, KindCheck{Kind: kind}) }

// Of returns the counts of one kind.
func (r SalvageReport) Of(kind string) SalvageCount { return ofKind(r.Kinds, SalvageCount{Kind: kind}) }
