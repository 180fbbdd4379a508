package report

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"slices"

	"github.com/ragscope/ragscope/eval"
)

// Matching samples of two runs (ragscope diff, a run against its
// --baseline): a sample of the run after pairs with the sample before that
// has the same id, and one without an id with the one of the same content
// (question, answer, contexts and reference). The dataset's id hashes
// cannot serve: their seed is drawn per process. These keys are sha256
// over the exact bytes, tagged by kind and length-prefixed, truncated to
// 96 bits.

// sampleKey identifies a sample across runs: by id, or by content.
type sampleKey [12]byte

func idKey(id string) sampleKey {
	sum := sha256.Sum256([]byte("id\x00" + id))
	return sampleKey(sum[:])
}

func contentKey(r *eval.Result) sampleKey {
	h := sha256.New()
	var n [8]byte
	field := func(s string) {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	h.Write([]byte("content\x00"))
	field(r.Question)
	field(r.Answer)
	binary.BigEndian.PutUint64(n[:], uint64(len(r.Contexts)))
	h.Write(n[:])
	for _, c := range r.Contexts {
		field(c)
	}
	field(r.Reference)
	return sampleKey(h.Sum(nil))
}

// MatchKind says how a pair of samples was matched.
type MatchKind int

const (
	MatchNone MatchKind = iota
	MatchByID
	MatchByContent
)

// keyEntry is a sample's key and its position in the index.
type keyEntry struct {
	key sampleKey
	pos int32
}

// KeyIndex is the run before of a comparison as compactly as it can be
// kept: per sample its key, its index and per metric compared its score
// and status, never its texts or judgements; the few samples a comparison
// shows are read again in full.
type KeyIndex struct {
	metrics []eval.Metric
	index   []int32
	scores  []float64 // len(metrics) per sample; NaN: no score
	status  []uint8   // len(metrics) per sample: statusCodes
	keys    []keyEntry
	withID  int      // samples keyed by their id
	used    []uint64 // a bit per sample: matched already
	sorted  bool
	// next is, for the keys shared by several samples (repeated content,
	// or ids a hand-edited report repeats), how many of them are matched:
	// repeats pair in order, without a scan over those already taken.
	next map[sampleKey]int32
}

// statusCodes numbers the statuses for KeyIndex (0: none recorded). After
// ok they are in the order MetricSummary.Why lists them: not applicable
// first, then failures.
var statusCodes = []eval.Status{"", eval.StatusOK, eval.StatusNoStatements, eval.StatusMissingInput, eval.StatusNoQuestions, eval.StatusUnsupported,
	eval.StatusParseError, eval.StatusTruncated, eval.StatusJudgeError, eval.StatusCacheMiss, eval.StatusCancelled}

func statusCode(st eval.Status) uint8 {
	if i := slices.Index(statusCodes, st); i > 0 {
		return uint8(i)
	}
	if st == "" {
		return 0
	}
	// A status this version does not know is kept as a failure: it is
	// not a score, and it is not silently not applicable either.
	return uint8(slices.Index(statusCodes, eval.StatusJudgeError))
}

// NewKeyIndex starts an index of the samples of a run for the metrics
// compared; capacity is how many samples are expected (0: unknown).
func NewKeyIndex(metrics []eval.Metric, capacity int) *KeyIndex {
	k := len(metrics)
	capacity = max(capacity, 0)
	return &KeyIndex{
		metrics: slices.Clone(metrics),
		index:   make([]int32, 0, capacity),
		scores:  make([]float64, 0, capacity*k),
		status:  make([]uint8, 0, capacity*k),
		keys:    make([]keyEntry, 0, capacity),
	}
}

// Metrics are the metrics the index keeps.
func (x *KeyIndex) Metrics() []eval.Metric { return x.metrics }

// Len is the number of samples in the index.
func (x *KeyIndex) Len() int { return len(x.index) }

// Add appends a sample of the run before; its position is Len() before.
func (x *KeyIndex) Add(r *eval.Result) {
	pos := int32(len(x.index))
	x.index = append(x.index, int32(r.Index))
	for _, m := range x.metrics {
		v := math.NaN()
		st := r.Status[m]
		if s, ok := r.Score(m); ok && st == eval.StatusOK {
			v = s
		}
		x.scores = append(x.scores, v)
		x.status = append(x.status, statusCode(st))
	}
	key := contentKey(r)
	if r.ID != "" {
		key = idKey(r.ID)
		x.withID++
	}
	x.keys = append(x.keys, keyEntry{key, pos})
	x.sorted = false
}

// Index is the sample index, in its own run, of the sample at pos.
func (x *KeyIndex) Index(pos int) int { return int(x.index[pos]) }

// Score is metric i's score (ok false: none) and status of the sample at pos.
func (x *KeyIndex) Score(pos, i int) (float64, bool, eval.Status) {
	j := pos*len(x.metrics) + i
	v := x.scores[j]
	return v, !math.IsNaN(v), statusCodes[x.status[j]]
}

func (x *KeyIndex) sort() {
	slices.SortFunc(x.keys, func(a, b keyEntry) int {
		return cmp.Or(bytes.Compare(a.key[:], b.key[:]), int(a.pos-b.pos))
	})
	x.sorted = true
}

// Match finds the sample of the index r is compared with (by r's id, else
// by its content, matching only samples of the index that have no id) and
// marks it taken: each sample of the index is matched at most once. It
// returns its position and how it was matched, or MatchNone.
func (x *KeyIndex) Match(r *eval.Result) (int, MatchKind) {
	if !x.sorted {
		x.sort()
	}
	if r.ID != "" {
		if pos, ok := x.take(idKey(r.ID)); ok {
			return pos, MatchByID
		}
	}
	if pos, ok := x.take(contentKey(r)); ok {
		return pos, MatchByContent
	}
	return -1, MatchNone
}

// take is the first sample with key k not matched yet.
func (x *KeyIndex) take(k sampleKey) (int, bool) {
	i, found := slices.BinarySearchFunc(x.keys, k, func(e keyEntry, k sampleKey) int { return bytes.Compare(e.key[:], k[:]) })
	if !found {
		return -1, false
	}
	j := i
	if j+1 < len(x.keys) && x.keys[j+1].key == k {
		if x.next == nil {
			x.next = map[sampleKey]int32{}
		}
		j += int(x.next[k])
		if j >= len(x.keys) || x.keys[j].key != k {
			return -1, false
		}
		x.next[k]++
	} else if hasBit(x.used, int(x.keys[j].pos)) {
		return -1, false
	}
	pos := int(x.keys[j].pos)
	setBit(&x.used, pos)
	return pos, true
}

// WithID is how many samples of the index have an id.
func (x *KeyIndex) WithID() int { return x.withID }

func setBit(set *[]uint64, i int) {
	for i/64 >= len(*set) {
		*set = append(*set, 0)
	}
	(*set)[i/64] |= 1 << (i % 64)
}

func hasBit(set []uint64, i int) bool { return i/64 < len(set) && set[i/64]&(1<<(i%64)) != 0 }
