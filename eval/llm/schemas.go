package llm

import (
	"encoding/json"

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
