package holder

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/labels"
)

// The arguments and replies of the RPC methods. Every reply is a JSON
// object: net/rpc's JSON codec takes a null result for an error.
type (
	none struct{}

	idReply struct {
		ID string `json:"id"`
	}
	countReply struct {
		N int `json:"n"`
	}
	runIDArgs struct {
		RunID string `json:"run_id"`
	}
	keyArgs struct {
		Key string `json:"key"`
	}
	// keysArgs name cached embeddings, labels, or the claims a client
	// rejoins with.
	keysArgs struct {
		Keys []string `json:"keys"`
	}

	putRunArgs struct {
		Info report.RunInfo `json:"info"`
	}
	putResultArgs struct {
		RunID  string       `json:"run_id"`
		Result *eval.Result `json:"result"`
	}
	putResultsArgs struct {
		RunID   string         `json:"run_id"`
		Results []*eval.Result `json:"results"`
	}
	runsReply struct {
		Runs []report.RunInfo `json:"runs"`
	}
	runArgs struct {
		Ref string `json:"ref"`
	}
	runReply struct {
		Info    report.RunInfo `json:"info"`
		Results []*eval.Result `json:"results"`
	}
	runPageArgs struct {
		Ref   string `json:"ref"`
		From  int    `json:"from"`
		Limit int    `json:"limit"`
	}
	runPageReply struct {
		runReply
		Next int `json:"next"`
	}
	// runSummariesReply is a page of summaries (cache.DB.RunSummaries),
	// each as its own JSON, which the client reads with the summary reader
	// rather than decoding whole results.
	runSummariesReply struct {
		Results []json.RawMessage `json:"results"`
		Next    int               `json:"next"`
	}
	liveUpdatesArgs struct {
		RunID string        `json:"run_id"`
		After int64         `json:"after"`
		Wait  time.Duration `json:"wait"`
	}
	// liveUpdatesReply holds a cache.LiveBatch as the client reads it, or
	// a cache.RawLiveBatch as the holder writes it.
	liveUpdatesReply[B any] struct {
		Batch B `json:"batch"`
	}

	lookupChatReply struct {
		Response eval.ChatResponse `json:"response"`
		Found    bool              `json:"found"`
	}
	putChatArgs struct {
		Key     string           `json:"key"`
		Request eval.ChatRequest `json:"request"`
		// Task is json:"-" in eval.ChatRequest but the cache stores it.
		Task     string            `json:"task"`
		Response eval.ChatResponse `json:"response"`
	}
	vectorsReply struct {
		Vectors vectors `json:"vectors"`
	}
	putEmbeddingsArgs struct {
		Request eval.EmbedRequest `json:"request"`
		Texts   []string          `json:"texts"`
		Vectors vectors           `json:"vectors"`
	}
	claimReply struct {
		Granted bool   `json:"granted"`
		Token   uint64 `json:"token,omitempty"`
	}
	releaseArgs struct {
		Token uint64 `json:"token"`
	}
	callReply struct {
		Entry *cache.CallEntry `json:"entry"`
		// The json:"-" fields of the entry's response, which Call sets.
		ResponseKey    string `json:"response_key,omitempty"`
		ResponseCached bool   `json:"response_cached,omitempty"`
	}
	labelsArgs struct {
		Labels []labels.Label `json:"labels"`
	}
	labelsReply struct {
		Labels map[string]labels.Label `json:"labels"`
	}
	statsReply struct {
		Stats cache.Stats `json:"stats"`
	}
	clearArgs struct {
		OlderThan time.Duration `json:"older_than"`
	}
	deleteRunsArgs struct {
		IDs []string `json:"ids"`
	}
	deleteRunsReply struct {
		Runs    int `json:"runs"`
		Results int `json:"results"`
	}
	exportReply struct {
		Data []byte `json:"data"`
		N    int    `json:"n"`
	}
	importArgs struct {
		Data []byte `json:"data"`
	}
	liveReply struct {
		Runs map[string]LiveRun `json:"runs"`
	}
)

// vectors travel as base64 of float32 little endian, one string per vector
// (null for a missing one): the store keeps float32 anyway, it is a quarter
// of decimal JSON's size, and it carries NaN and infinities.
type vectors [][]float64

func (vs vectors) MarshalJSON() ([]byte, error) {
	if vs == nil {
		return []byte("null"), nil
	}
	// encoding/json writes a []byte as base64, a nil one as null.
	raw := make([][]byte, len(vs))
	for i, v := range vs {
		if v != nil {
			raw[i] = make([]byte, 0, 4*len(v))
		}
		for _, x := range v {
			raw[i] = binary.LittleEndian.AppendUint32(raw[i], math.Float32bits(float32(x)))
		}
	}
	return json.Marshal(raw)
}

func (vs *vectors) UnmarshalJSON(data []byte) error {
	var raw [][]byte
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw == nil {
		*vs = nil
		return nil
	}
	out := make(vectors, len(raw))
	for i, b := range raw {
		if b == nil {
			continue
		}
		if len(b)%4 != 0 {
			return fmt.Errorf("vector %d holds %d bytes, not whole float32s", i, len(b))
		}
		v := make([]float64, len(b)/4)
		for j := range v {
			v[j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:])))
		}
		out[i] = v
	}
	*vs = out
	return nil
}
