package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ExtractJSON takes the JSON object out of a judge reply. Endpoints without
// JSON-schema support (--response-format json_object|text) often wrap it in
// a code fence or in prose; strict endpoints return it bare. The first
// complete, valid object wins: a fenced block first, then any balanced {...}.
func ExtractJSON(content string) (string, error) {
	s := strings.TrimSpace(content)
	if s == "" {
		return "", errors.New("the reply is empty")
	}
	if json.Valid([]byte(s)) && strings.HasPrefix(s, "{") {
		return s, nil
	}
	for rest := s; ; {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		body := rest[i+3:]
		// Skip an info string such as ```json.
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.Contains(body[:nl], "{") {
			body = body[nl+1:]
		}
		end := strings.Index(body, "```")
		if end < 0 {
			break
		}
		if cand := strings.TrimSpace(body[:end]); strings.HasPrefix(cand, "{") && json.Valid([]byte(cand)) {
			return cand, nil
		}
		rest = body[end+3:]
	}
	for start := strings.IndexByte(s, '{'); start >= 0; {
		if end := matchBrace(s, start); end > 0 && json.Valid([]byte(s[start:end])) {
			return s[start:end], nil
		}
		next := strings.IndexByte(s[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	if strings.HasPrefix(s, "{") {
		return "", fmt.Errorf("the reply is not complete JSON (truncated?): %s", clip(s, 200))
	}
	return "", fmt.Errorf("no JSON object in the reply: %s", clip(s, 200))
}

// matchBrace returns the index just past the brace that closes s[start],
// honouring strings and escapes, or -1.
func matchBrace(s string, start int) int {
	depth, inStr, esc := 0, false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// redactURL drops credentials and the query string from a base URL before it
// is shown or stored.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}
