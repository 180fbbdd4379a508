package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

// RawCalls renders a sample's judge calls from the cache for the TUI's `x`
// view, from whichever process holds the database.
func RawCalls(st cache.Store) func(keys []string) (string, error) {
	return func(keys []string) (string, error) {
		var b strings.Builder
		for i, k := range keys {
			e, err := st.Call(k)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "== call %d of %d  key %s\n", i+1, len(keys), k[:min(12, len(k))])
			if e == nil {
				b.WriteString("   not in the cache (offline judge, --no-cache, or cleared)\n\n")
				continue
			}
			fmt.Fprintf(&b, "   %s %s  model %s  stored %s\n", e.Kind, e.Task, e.Model, e.Time.Local().Format("2006-01-02 15:04:05"))
			if e.Kind == cache.KindChat {
				var msgs struct {
					Messages []eval.Message `json:"messages"`
				}
				_ = json.Unmarshal(e.Request, &msgs)
				for _, m := range msgs.Messages {
					fmt.Fprintf(&b, "   [%s]\n%s\n", m.Role, indent(m.Content, "     "))
				}
				for ci, c := range e.Response.Choices {
					if ci < len(e.Response.Reasoning) && e.Response.Reasoning[ci] != "" {
						fmt.Fprintf(&b, "   [reasoning %d, never parsed]\n%s\n", ci+1, indent(e.Response.Reasoning[ci], "     "))
					}
					fmt.Fprintf(&b, "   [reply %d]\n%s\n", ci+1, indent(c, "     "))
				}
				fmt.Fprintf(&b, "   tokens %d prompt + %d completion", e.Response.Usage.PromptTokens, e.Response.Usage.CompletionTokens)
				if r := e.Response.Usage.ReasoningTokens; r > 0 {
					fmt.Fprintf(&b, " (%d reasoning)", r)
				}
				fmt.Fprintf(&b, ", %d ms\n\n", e.Response.LatencyMS)
			} else {
				fmt.Fprintf(&b, "   %s\n   vector of %d dimensions\n\n", string(e.Request), len(e.Vector))
			}
		}
		return b.String(), nil
	}
}

// RawCallsJSON gives a sample's judge calls as the cache holds them
// (request, reply or vector, model, time), for y in the TUI's raw view: a
// call that is not cached is listed by its key with "cached": false.
func RawCallsJSON(st cache.Store) func(keys []string) ([]byte, error) {
	return func(keys []string) ([]byte, error) {
		type call struct {
			*cache.CallEntry
			Key    string `json:"key"`
			Cached bool   `json:"cached"`
		}
		calls := make([]call, 0, len(keys))
		for _, k := range keys {
			e, err := st.Call(k)
			if err != nil {
				return nil, err
			}
			calls = append(calls, call{CallEntry: e, Key: k, Cached: e != nil})
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(calls); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
}

func indent(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pre + l
	}
	return strings.Join(lines, "\n")
}
