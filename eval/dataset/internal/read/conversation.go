package read

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// Each assistant turn of a conversation becomes a sample with its
// conversation's id, its turn number and the turns before it. Conversations
// are flat (a record per turn with "conversation_id" and "turn", turns of a
// conversation in order, conversations interleaved) or nested (RAGAS
// MultiTurnSample: "user_input" is the list of messages).

// Keys of the flat form.
const (
	keyConversation = "conversation_id"
	keyTurn         = "turn"
)

// conversation is what the reader keeps of a conversation of the flat form.
type conversation struct {
	history []eval.Turn
	line    int    // where its last turn was read
	seq     uint64 // when, in turns read, its last turn was read
}

// maxLogConversations bounds the conversations a log's decoder keeps, for
// a watcher that runs for months.
const maxLogConversations = 10000

// forgetOldConversations lets go of the conversation idle the longest when
// there are more than maxLogConversations.
func (c *Collector) forgetOldConversations() {
	if len(c.convs) <= maxLogConversations {
		return
	}
	oldest, at := "", uint64(0)
	for id, conv := range c.convs {
		if oldest == "" || conv.seq < at {
			oldest, at = id, conv.seq
		}
	}
	delete(c.convs, oldest)
}

// isMessages reports whether raw is a list of objects: a conversation's
// messages, not a column of a column-oriented object.
func isMessages(raw json.RawMessage) bool {
	if KindOf(raw) != "list" {
		return false
	}
	t := bytes.TrimLeft(raw[1:], " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// addFlat adds s, read from rec, as a turn of a conversation of the flat
// form when rec has its keys: the turn must follow the conversation's last,
// whose history s gets.
func (c *Collector) addFlat(line int, rec *JSONRecord, s eval.Sample, idKey string) error {
	rawConv, hasConv := LookupKey(rec.Obj, keyConversation)
	rawTurn, hasTurn := LookupKey(rec.Obj, keyTurn)
	hasConv = hasConv && !IsNull(rawConv)
	hasTurn = hasTurn && !IsNull(rawTurn)
	if !hasConv && !hasTurn {
		return c.Add(s, idKey)
	}
	if !hasConv {
		return c.Bad(line, keyConversation, `is missing but the record has a "turn" — a turn of a conversation needs both "conversation_id" and "turn"`)
	}
	if !hasTurn {
		return c.Bad(line, keyTurn, `is missing but the record has a "conversation_id" — give each turn its number, counting from 1`)
	}
	id, err := jsonID(rawConv)
	if err != nil || strings.TrimSpace(id) == "" {
		return c.Bad(line, keyConversation, "must be a non-empty string")
	}
	var n int
	if KindOf(rawTurn) != "number" || json.Unmarshal(rawTurn, &n) != nil || n < 1 {
		return c.Bad(line, keyTurn, fmt.Sprintf("is %s, not a whole number from 1", string(rawTurn)))
	}
	if c.convs == nil {
		c.convs = map[string]*conversation{}
	}
	conv := c.convs[id]
	last := 0
	if conv != nil && len(conv.history) > 0 {
		last = conv.history[len(conv.history)-1].Turn
	}
	if c.FollowLog && n > last {
		// A log read from where a watcher left off, or sampled by the
		// service, may miss turns: the turn is judged with the history known.
		last = n - 1
	}
	if n != last+1 {
		msg := fmt.Sprintf("conversation %q starts at turn %d — its first record must be turn 1", id, n)
		if conv != nil && c.FollowLog {
			msg = fmt.Sprintf("turn %d of conversation %q comes after its turn %d (%s %d) — a repeated or reordered turn is not evaluated", n, id, last, c.Unit, conv.line)
		} else if conv != nil {
			what := "a turn order gap"
			switch {
			case n == last:
				what = "the turn is repeated"
			case n < last:
				what = "the turns are out of order"
			}
			msg = fmt.Sprintf("turn %d of conversation %q follows turn %d (%s %d) — %s: the turns of one conversation must come in order 1, 2, 3… (other conversations may come between them)",
				n, id, last, c.Unit, conv.line, what)
		}
		return c.Bad(line, keyTurn, msg)
	}
	s.Conversation, s.Turn, s.ID = id, n, cmp.Or(s.ID, turnID(id, n))
	if conv != nil {
		s.History = conv.history
	}
	// A turn taken becomes its conversation's last.
	before := c.Count
	if err := c.Add(s, idKey); err != nil || c.Count == before {
		return err
	}
	if conv == nil {
		conv = &conversation{}
		c.convs[id] = conv
		if c.FollowLog {
			c.forgetOldConversations()
		}
	}
	c.seq++
	conv.seq = c.seq
	// A new slice each time: the samples already handed on keep theirs.
	conv.history = append(conv.history[:len(conv.history):len(conv.history)], eval.Turn{Turn: s.Turn, Question: s.Question, Answer: s.Answer, Contexts: s.Contexts})
	conv.line = s.Line
	return nil
}

// cellsTurn is a row's conversation_id and turn columns as a flat-form
// record (a whole-number turn as a number, else text for addFlat to refuse).
func cellsTurn(rec []string, h *Header) *JSONRecord {
	r := &JSONRecord{Obj: map[string]json.RawMessage{}}
	if i := Index(h.Names, keyConversation); i >= 0 && i < len(rec) && strings.TrimSpace(rec[i]) != "" {
		r.Obj[keyConversation], _ = json.Marshal(strings.TrimSpace(rec[i]))
	}
	if i := Index(h.Names, keyTurn); i >= 0 && i < len(rec) && strings.TrimSpace(rec[i]) != "" {
		cell := strings.TrimSpace(rec[i])
		if n, err := strconv.Atoi(strings.TrimSuffix(cell, ".0")); err == nil {
			r.Obj[keyTurn] = json.RawMessage(strconv.Itoa(n))
		} else {
			r.Obj[keyTurn], _ = json.Marshal(cell)
		}
	}
	return r
}

// turnID is the id of a turn that has none of its own: runs are compared
// by id, and a turn is known by its conversation and number.
func turnID(conv string, turn int) string { return fmt.Sprintf("%s#%d", conv, turn) }

// convMessage is one message of the nested form.
type convMessage struct {
	Type         string          `json:"type"`
	Role         string          `json:"role"`
	Content      json.RawMessage `json:"content"`
	Contexts     json.RawMessage `json:"retrieved_contexts"`
	Reference    json.RawMessage `json:"reference"`
	Conversation json.RawMessage `json:"conversation_id"`
}

// speaker is "human" or "ai" for a message's type or role, "" for another.
func (m convMessage) speaker() string {
	switch strings.ToLower(strings.TrimSpace(m.Type + m.Role)) {
	case "human", "user":
		return "human"
	case "ai", "assistant":
		return "ai"
	}
	return ""
}

// optional decodes raw into *dst unless it is absent or null.
func optional[T any](raw []byte, dst *T, decode func([]byte) (T, error)) (err error) {
	if len(raw) > 0 && !IsNull(raw) {
		*dst, err = decode(raw)
	}
	return err
}

// nested reads a record of the nested form, whose messages are raw (read
// from key), into one sample per assistant turn.
func (c *Collector) nested(line int, rec *JSONRecord, key string, raw json.RawMessage) error {
	field := FieldNames[FQuestion]
	var msgs []convMessage
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return c.Bad(line, field, fmt.Sprintf("key %q is a list of messages that does not read: %s — each message is {\"type\": \"human\"|\"ai\", \"content\": \"…\"}", key, JSONErrText(err)))
	}
	var ids [2]string // the record's conversation_id and id
	for i, key := range []string{keyConversation, "id"} {
		v, _ := LookupKey(rec.Obj, key)
		if err := optional(v, &ids[i], jsonID); err != nil {
			return c.Bad(line, key, err.Error())
		}
	}
	id, sampleID := ids[0], ids[1]
	for i, m := range msgs {
		if m.Conversation == nil || IsNull(m.Conversation) {
			continue
		}
		mid, err := jsonID(m.Conversation)
		if err != nil {
			return c.Bad(line, keyConversation, fmt.Sprintf("message %d: %v", i+1, err))
		}
		if id == "" {
			id = mid
		} else if mid != id {
			return c.Bad(line, keyConversation, fmt.Sprintf("message %d says conversation %q but the record is conversation %q — mixed conversation ids: one record holds one conversation", i+1, mid, id))
		}
	}
	id = cmp.Or(id, sampleID, fmt.Sprintf("%s-%d", c.Unit, line))
	var reference string
	v, _ := LookupKey(rec.Obj, "reference")
	if err := optional(v, &reference, jsonReference); err != nil {
		return c.Bad(line, "reference", fmt.Sprintf("key %q %v", "reference", err))
	}
	var (
		samples  []eval.Sample
		history  []eval.Turn
		question []string
		contexts []string
	)
	for i, m := range msgs {
		n := i + 1
		var text string
		if err := optional(m.Content, &text, jsonText); err != nil {
			return c.Bad(line, field, fmt.Sprintf("message %d: content %v", n, err))
		}
		var ctx []string
		if err := optional(m.Contexts, &ctx, jsonContexts); err != nil {
			return c.Bad(line, "contexts", fmt.Sprintf("message %d: retrieved_contexts %v", n, err))
		}
		switch m.speaker() {
		case "human":
			question = append(question, text)
			contexts = append(contexts, ctx...)
		case "ai":
			if len(question) == 0 {
				return c.Bad(line, field, fmt.Sprintf("message %d is an ai turn without a human turn before it — each assistant message answers the user's message before it", n))
			}
			contexts = append(contexts, ctx...)
			s := eval.Sample{
				Line: line, Question: strings.Join(question, "\n"), Answer: text, Contexts: contexts,
				Conversation: id, Turn: len(history) + 1, History: history,
			}
			if err := optional(m.Reference, &s.Reference, jsonReference); err != nil {
				return c.Bad(line, "reference", fmt.Sprintf("message %d: reference %v", n, err))
			}
			samples = append(samples, s)
			history = append(history[:len(history):len(history)], eval.Turn{Turn: s.Turn, Question: s.Question, Answer: s.Answer, Contexts: s.Contexts})
			question, contexts = nil, nil
		default:
			return c.Bad(line, field, fmt.Sprintf(`message %d has type %q, role %q — a message is of type "human" or "ai" (role "user" or "assistant")`, n, m.Type, m.Role))
		}
	}
	if len(samples) == 0 {
		return c.Bad(line, field, "the conversation has no ai turn to evaluate — give each human message the assistant's answer after it")
	}
	if last := &samples[len(samples)-1]; last.Reference == "" {
		last.Reference = reference
	}
	for _, s := range samples {
		s.ID = turnID(cmp.Or(sampleID, id), s.Turn)
		if err := c.Add(s, ""); err != nil {
			return err
		}
	}
	return nil
}
