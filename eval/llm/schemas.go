package llm

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/prompts"
)

// Schema returns the strict JSON schema of a task; the schemas live with
// the prompts, whose worked examples are tested against them.
func Schema(task string) json.RawMessage {
	s, err := prompts.Schema(task)
	if err != nil {
		panic("llm: no schema for task " + task + ": " + err.Error())
	}
	return s
}

// The reply shapes of the tasks.
type statementsReply struct {
	Statements []string `json:"statements"`
}

type entitiesReply struct {
	Entities []string `json:"entities"`
}

type verdictsReply struct {
	Statements []struct {
		Statement string `json:"statement"`
		evidenceReply
		Reason  string `json:"reason"`
		Verdict *int   `json:"verdict"`
	} `json:"statements"`
}

// evidenceReply is the evidence of contract 2. Both keys absent is a reply
// of contract 1 (cached, or a judge that ignores the schema): no evidence
// given. The chunk is read leniently (a number, a numeric string, null):
// the evidence is checked and shown, not scored, so a sloppy one must not
// turn a usable verdict into a parse error.
type evidenceReply struct {
	Chunk json.RawMessage `json:"chunk"`
	Quote *string         `json:"quote"`
}

// citation is the reply's evidence, nil when it gave none.
func (e evidenceReply) citation() *eval.Citation {
	if e.Chunk == nil && e.Quote == nil {
		return nil
	}
	c := &eval.Citation{}
	if e.Quote != nil {
		c.Quote = strings.TrimSpace(*e.Quote)
	}
	var n json.Number
	if json.Unmarshal(e.Chunk, &n) != nil || n == "" {
		return c // null, absent or not a number: no chunk named
	}
	f, err := n.Float64()
	switch {
	case err != nil || f == 0:
	case f != math.Trunc(f) || f < 0 || f > math.MaxInt32:
		c.Chunk = -1 // names no chunk that can exist: flagged NoSuchChunk
	default:
		c.Chunk = int(f)
	}
	return c
}

type questionReply struct {
	Question     *string `json:"question"`
	Noncommittal *int    `json:"noncommittal"`
}

type chunkReply struct {
	Reason  string `json:"reason"`
	Verdict *int   `json:"verdict"`
}

// correctnessReply's lists are slices whose nil-ness tells a missing key
// from an empty list.
type correctnessReply struct {
	TP []correctnessItem `json:"TP"`
	FP []correctnessItem `json:"FP"`
	FN []correctnessItem `json:"FN"`
}

type correctnessItem struct {
	Statement string `json:"statement"`
	Reason    string `json:"reason"`
}

type classificationsReply struct {
	Classifications []struct {
		Statement string `json:"statement"`
		evidenceReply
		Reason     string `json:"reason"`
		Attributed *int   `json:"attributed"`
	} `json:"classifications"`
}

// entailmentReply is entailment_verdicts' reply: a verdict per statement.
type entailmentReply struct {
	Verdicts []struct {
		Statement string `json:"statement"`
		Reason    string `json:"reason"`
		Verdict   *int   `json:"verdict"`
	} `json:"verdicts"`
}
