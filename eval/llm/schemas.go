package llm

import "encoding/json"

// The JSON schemas of the five judge tasks. Names and fields are a public
// contract (README, "structured-output contract"): proxies and mocks rely on
// them. Strict mode requires every property to be required and no
// additional properties.
var schemas = map[string]json.RawMessage{
	"faithfulness_statements": json.RawMessage(`{
  "type": "object",
  "properties": {"statements": {"type": "array", "items": {"type": "string"}}},
  "required": ["statements"],
  "additionalProperties": false
}`),
	"faithfulness_verdicts": json.RawMessage(`{
  "type": "object",
  "properties": {"statements": {"type": "array", "items": {
    "type": "object",
    "properties": {
      "statement": {"type": "string"},
      "reason": {"type": "string"},
      "verdict": {"type": "integer", "enum": [0, 1]}
    },
    "required": ["statement", "reason", "verdict"],
    "additionalProperties": false
  }}},
  "required": ["statements"],
  "additionalProperties": false
}`),
	"answer_relevancy_question": json.RawMessage(`{
  "type": "object",
  "properties": {
    "question": {"type": "string"},
    "noncommittal": {"type": "integer", "enum": [0, 1]}
  },
  "required": ["question", "noncommittal"],
  "additionalProperties": false
}`),
	"context_precision_verdict": json.RawMessage(`{
  "type": "object",
  "properties": {
    "reason": {"type": "string"},
    "verdict": {"type": "integer", "enum": [0, 1]}
  },
  "required": ["reason", "verdict"],
  "additionalProperties": false
}`),
	"context_recall_classifications": json.RawMessage(`{
  "type": "object",
  "properties": {"classifications": {"type": "array", "items": {
    "type": "object",
    "properties": {
      "statement": {"type": "string"},
      "reason": {"type": "string"},
      "attributed": {"type": "integer", "enum": [0, 1]}
    },
    "required": ["statement", "reason", "attributed"],
    "additionalProperties": false
  }}},
  "required": ["classifications"],
  "additionalProperties": false
}`),
}

// Schema returns the compact JSON schema of a task (nil for an unknown task).
func Schema(task string) json.RawMessage {
	s, ok := schemas[task]
	if !ok {
		return nil
	}
	var v any
	if err := json.Unmarshal(s, &v); err != nil {
		panic("llm: invalid built-in schema for " + task + ": " + err.Error())
	}
	b, _ := json.Marshal(v)
	return b
}

// The reply shapes of the tasks.
type statementsReply struct {
	Statements []string `json:"statements"`
}

type verdictsReply struct {
	Statements []struct {
		Statement string `json:"statement"`
		Reason    string `json:"reason"`
		Verdict   *int   `json:"verdict"`
	} `json:"statements"`
}

type questionReply struct {
	Question     *string `json:"question"`
	Noncommittal *int    `json:"noncommittal"`
}

type chunkReply struct {
	Reason  string `json:"reason"`
	Verdict *int   `json:"verdict"`
}

type classificationsReply struct {
	Classifications []struct {
		Statement  string `json:"statement"`
		Reason     string `json:"reason"`
		Attributed *int   `json:"attributed"`
	} `json:"classifications"`
}
