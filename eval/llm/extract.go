package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"github.com/kaptinlin/jsonrepair"
	"github.com/ragscope/ragscope/eval/endpoint"
)

// Bounds of the search for the object in a reply, so that whatever a reply
// holds it costs time linear in its length:
const (
	// maxCandidates is how many candidate objects are looked at.
	maxCandidates = 64
	// maxRescans is how many candidates whose quotes do not pair up are
	// matched again by braces alone (each such match may read to the end).
	maxRescans = 8
	// maxRepairs and maxRepairBytes bound the repair of almost-JSON, which
	// takes time quadratic in the object's length.
	maxRepairs     = 4
	maxRepairBytes = 24 << 10
)

// ExtractJSON takes the JSON object out of a judge reply. It is the
// reply's own answer, found in this order:
//
//  1. Reasoning is removed first (endpoint.SplitReasoning): an object the model
//     wrote while thinking — often an example of the one it is about to
//     give — is never read.
//  2. Candidates are the bodies of Markdown code fences that open with '{',
//     then the top-level {...} spans of the text in the order they start.
//     A span is matched from its '{' to the '}' that closes it, outside
//     strings; an object inside another is never a candidate of its own,
//     so a broken outer object does not give its first inner one.
//  3. The first candidate that is valid JSON wins; failing that, the first
//     that the JSON-repair library turns into an object (single quotes,
//     trailing commas, comments, Python's True/False/None, raw newlines
//     and unescaped quotes in strings, a missing comma).
//  4. A span that never closes is an object cut short: never repaired (a
//     repair would complete it with what the model did not say), and the
//     error says it looks truncated.
//
// The object is then held to the task's strict contract by its decoder.
func ExtractJSON(content string) (string, error) {
	answer, _, _ := endpoint.SplitReasoning(content)
	s := strings.TrimSpace(answer)
	if s == "" {
		if strings.TrimSpace(content) != "" {
			return "", fmt.Errorf("the reply is all reasoning: no answer follows it (%d bytes)", len(content))
		}
		return "", errors.New("the reply is empty")
	}
	if s[0] == '{' && json.Valid([]byte(s)) {
		return s, nil
	}
	x := &extractor{s: s}
	cands := x.candidates()
	for _, c := range cands {
		if json.Valid([]byte(c)) {
			return c, nil
		}
	}
	repaired, tooLong := 0, 0
	for _, c := range cands {
		if len(c) > maxRepairBytes {
			tooLong++
			continue
		}
		if repaired == maxRepairs {
			break
		}
		repaired++
		if out, ok := repair(c); ok {
			return out, nil
		}
	}
	size := fmt.Sprintf("%d bytes", len(content))
	if tooLong > 0 {
		size += fmt.Sprintf("; an object over %d KiB is not repaired", maxRepairBytes>>10)
	}
	switch {
	case x.truncated && len(cands) == 0:
		return "", fmt.Errorf("the reply's JSON object is not complete (truncated?) (%s): %s", size, clip(s, 200))
	case len(cands) > 0:
		return "", fmt.Errorf("the reply's object is not valid JSON, even repaired (%s): %s", size, clip(s, 200))
	}
	return "", fmt.Errorf("no JSON object in the reply (%s): %s", size, clip(s, 200))
}

// repair returns the repaired object, if the repair gives one.
func repair(c string) (string, bool) {
	out, err := jsonrepair.Repair(c)
	if err != nil {
		return "", false
	}
	out = strings.TrimSpace(out)
	var obj map[string]json.RawMessage
	if !strings.HasPrefix(out, "{") || json.Unmarshal([]byte(out), &obj) != nil {
		return "", false
	}
	return out, true
}

// extractor is the state of one search.
type extractor struct {
	s         string
	rescans   int
	truncated bool
}

// candidates are the fenced bodies that open with '{', then the top-level
// brace spans, at most maxCandidates in all.
func (x *extractor) candidates() []string {
	out := x.fenced()
	for pos := 0; pos < len(x.s) && len(out) < maxCandidates; {
		i := strings.IndexAny(x.s[pos:], "{[")
		if i < 0 {
			break
		}
		start := pos + i
		open := x.s[start]
		end := x.match(start, open)
		if end < 0 {
			x.truncated = open == '{'
			break // the rest is inside an object or array that never closes
		}
		// The objects of an array are its elements, not the reply's own
		// object: an array is skipped whole.
		if open == '{' {
			out = append(out, x.s[start:end])
		}
		pos = end
	}
	return out
}

// fenced returns the bodies of the Markdown code blocks that open with '{'.
// An info string (```json) on the opening line is skipped when that line
// holds no '{'. The next '{' or newline is remembered, so no byte is
// searched twice for it however many fences there are.
func (x *extractor) fenced() []string {
	s := x.s
	var out []string
	stop := -2 // the next '{' or newline at or after a body's start: -2 unknown, -1 none
	for pos := 0; len(out) < maxCandidates; {
		i := strings.Index(s[pos:], "```")
		if i < 0 {
			break
		}
		body := pos + i + 3
		if stop != -1 && stop < body {
			stop = strings.IndexAny(s[body:], "{\n")
			if stop >= 0 {
				stop += body
			}
		}
		if stop >= 0 && s[stop] == '\n' {
			body = stop + 1
		}
		end := strings.Index(s[body:], "```")
		if end < 0 {
			break
		}
		seg := strings.TrimFunc(s[body:body+end], unicode.IsSpace)
		if strings.HasPrefix(seg, "{") {
			out = append(out, seg)
		}
		pos = body + end + 3
	}
	return out
}

// match returns the offset just past the '}' (or ']') that closes the '{'
// (or '[') at start, or -1 when the reply ends first. Brackets inside
// double-quoted strings do not count. When the quotes do not pair up (an
// unescaped quote inside a string) and the strings hide the closing
// bracket, the brackets alone are matched, maxRescans times at most.
func (x *extractor) match(start int, open byte) int {
	if end := x.scan(start, open, true); end >= 0 || x.rescans == maxRescans {
		return end
	}
	x.rescans++
	return x.scan(start, open, false)
}

// scan is one match, with strings (quotes true) or brackets alone.
func (x *extractor) scan(start int, open byte, quotes bool) int {
	closing := byte('}')
	if open == '[' {
		closing = ']'
	}
	inStr, esc, depth := false, false, 0
	for j := start; j < len(x.s); j++ {
		c := x.s[j]
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"' && quotes:
			inStr = true
		case c == open:
			depth++
		case c == closing:
			if depth--; depth == 0 {
				return j + 1
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
