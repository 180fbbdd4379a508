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

// bit is a 0/1 field of a reply. Judges write it many ways; it reads 0
// and 1, "0" and "1", true and false, yes and no, 是 and 否 (as strings, in
// any case, with spaces around). Anything else is kept as written (raw)
// and fails the reply's check with the value quoted: never guessed.
type bit struct {
	n   int
	ok  bool
	raw string
}

func (b *bit) UnmarshalJSON(data []byte) error {
	b.raw = clip(string(data), 40)
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case float64:
		if v == 0 || v == 1 {
			b.n, b.ok = int(v), true
		}
	case bool:
		b.ok = true
		if v {
			b.n = 1
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "1", "true", "yes", "是":
			b.n, b.ok = 1, true
		case "0", "false", "no", "否":
			b.n, b.ok = 0, true
		}
	}
	return nil
}

// The reply shapes of the tasks.
type statementsReply struct {
	Statements []string `json:"statements"`
}

type entitiesReply struct {
	Entities []string `json:"entities"`
}

// verdictsReply is a verdict per statement: faithfulness_verdicts lists
// them as statements, entailment_verdicts as verdicts.
type verdictsReply struct {
	Statements []verdictItem `json:"statements"`
	Verdicts   []verdictItem `json:"verdicts"`
}

type verdictItem struct {
	Statement string `json:"statement"`
	evidenceReply
	reasonedVerdict
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

// questionReply is also conversation_standalone_question's, which has no
// noncommittal.
type questionReply struct {
	Question     *string `json:"question"`
	Noncommittal *bit    `json:"noncommittal"`
}

// reasonedVerdict is a one-chunk verdict's reply, and the reason and
// verdict of the replies that hold more.
type reasonedVerdict struct {
	Reason  string `json:"reason"`
	Verdict *bit   `json:"verdict"`
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
	Classifications []classificationItem `json:"classifications"`
}

type classificationItem struct {
	Statement string `json:"statement"`
	evidenceReply
	Reason     string `json:"reason"`
	Attributed *bit   `json:"attributed"`
}
