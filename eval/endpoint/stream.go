package endpoint

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// streamedReply is a chat reply sent as server-sent events, for a model
// that answers only in a streaming call: each event's data is a chunk
// whose choices carry a delta of their text, joined here into the reply
// a call without streaming gets. The body is read whole first (under the
// reply cap), as any reply is.
type streamedReply chatReply

// streamChunk is one event's data.
type streamChunk struct {
	Choices []struct {
		Index        int         `json:"index"`
		Delta        chatMessage `json:"delta"`
		FinishReason *string     `json:"finish_reason"`
	} `json:"choices"`
	Usage *chatUsage      `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type streamedChoice struct {
	content, thinking, reasoningContent, reasoning strings.Builder
	finish                                         string
}

func (r *streamedReply) read(body io.Reader) error {
	var choices []*streamedChoice // by index
	done := false
	br := bufio.NewReader(body)
	for !done {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return err
		}
		done = err == io.EOF
		// Other fields (event:, id:, comments) and blank lines carry no text.
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data:")
		if !ok {
			continue
		}
		if data = strings.TrimSpace(data); data == "[DONE]" {
			done = true
			continue
		}
		var ch streamChunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			return err
		}
		if present(ch.Error) {
			// An error said in the stream is the server's, as in a 200.
			return &httpError{status: 200, body: []byte(data)}
		}
		if ch.Usage != nil {
			r.Usage = *ch.Usage
		}
		for _, c := range ch.Choices {
			if c.Index < 0 || c.Index > 1024 {
				return errors.New("a streamed choice's index is out of range")
			}
			for len(choices) <= c.Index {
				choices = append(choices, &streamedChoice{})
			}
			sc := choices[c.Index]
			sc.content.WriteString(c.Delta.Content.text)
			sc.thinking.WriteString(c.Delta.Content.thinking)
			sc.reasoningContent.WriteString(c.Delta.ReasoningContent)
			sc.reasoning.WriteString(string(c.Delta.Reasoning))
			if c.FinishReason != nil && *c.FinishReason != "" {
				sc.finish = *c.FinishReason
			}
		}
	}
	r.Choices = r.Choices[:0]
	for i, sc := range choices {
		if sc.finish == "" {
			// Cut before its choice ended: what came is not the answer.
			return &contentError{status: eval.StatusParseError, msg: "the streamed reply ended before its choices did"}
		}
		r.Choices = append(r.Choices, chatChoice{Index: i, FinishReason: sc.finish, Message: chatMessage{
			Content:          replyText{text: sc.content.String(), thinking: sc.thinking.String()},
			ReasoningContent: sc.reasoningContent.String(),
			Reasoning:        looseText(sc.reasoning.String()),
		}})
	}
	return nil
}
