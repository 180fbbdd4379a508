package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestExtractJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        string
	}{
		{"bare", `{"statements": ["a"]}`, `{"statements": ["a"]}`, ""},
		{"bare with whitespace", "\n  {\"a\": 1}\n\n", `{"a": 1}`, ""},
		{"json fence in prose", "Sure! Here is my judgement:\n```json\n{\"a\": 1}\n```\nLet me know.", `{"a": 1}`, ""},
		{"fence without info string", "```\n{\"a\": 1}\n```", `{"a": 1}`, ""},
		{"fence on one line", "see ```{\"a\": 1}``` there", `{"a": 1}`, ""},
		{"fence with non-breaking space", "```json\n\u00a0{\"a\": 1}\u00a0\n```", `{"a": 1}`, ""},
		{"first fence not an object", "```python\nprint(1)\n```\nand\n```json\n{\"b\": 2}\n```", `{"b": 2}`, ""},
		{"fence wins over an earlier bare object", "{\"a\": 1} or rather\n```json\n{\"b\": 2}\n```", `{"b": 2}`, ""},
		{"unclosed fence falls back to braces", "```json\n{\"a\": 1}\n", `{"a": 1}`, ""},
		{"prose around", `The answer is {"verdict": 1, "reason": "ok"} as asked.`, `{"verdict": 1, "reason": "ok"}`, ""},
		{"braces and quotes inside strings", `x {"reason": "a } \" { b", "v": {"w": 1}} y`, `{"reason": "a } \" { b", "v": {"w": 1}}`, ""},
		{"first object wins", `{"a": 1} {"b": 2}`, `{"a": 1}`, ""},
		{"invalid first then valid", `{a: 1} then {"b": 2}`, `{"b": 2}`, ""},
		{"valid inside an invalid outer", `{"x": {"b": 2},}`, `{"b": 2}`, ""},
		{"outer before inner", `note: {"a": {"b": 2}} done`, `{"a": {"b": 2}}`, ""},
		{"stray quote in prose", `The model's "answer: {"a": 1}`, `{"a": 1}`, ""},
		{"truncated then whole", "{\"statements\": [\"foo\", \"ba\nSorry, here it is: {\"statements\": [\"foo\"]}", `{"statements": ["foo"]}`, ""},
		{"unbalanced open before", `{{ {"a": 1}`, `{"a": 1}`, ""},
		{"closing braces in prose", `}} {"a": 1} }`, `{"a": 1}`, ""},
		{"empty object", `{}`, `{}`, ""},
		{"cjk", "判定如下：{\"理由\": \"上下文支持\"}。", `{"理由": "上下文支持"}`, ""},
		{"empty", "  \n ", "", "the reply is empty"},
		{"prose only", "I cannot judge this.", "", "no JSON object in the reply (20 bytes): I cannot judge this."},
		{"array only", `["a", "b"]`, "", "no JSON object in the reply (10 bytes)"},
		{"truncated", `{"statements": ["a", "b`, "", "the reply is not complete JSON (truncated?) (23 bytes)"},
		{"broken object", `{"a": 1,}`, "", "not complete JSON (truncated?) (9 bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExtractJSON(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ExtractJSON(%q) = %q, %v; want an error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ExtractJSON(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// hostile are replies on which the old extractor, which matched braces
// from every '{' again, took time quadratic in their length (a 300 KB reply
// of '{' took 38 s of CPU), and others built to defeat a single scan.
func hostile() []struct{ name, in string } {
	const n = 300_000
	rep := func(s string) string { return strings.Repeat(s, n/len(s)) }
	deep := 100_000
	return []struct{ name, in string }{
		{"{ repeated", rep("{")},
		{"[ repeated", rep("[")},
		{`" repeated`, rep(`"`)},
		{`{"a": repeated`, rep(`{"a":`)},
		{`{" repeated`, rep(`{"`)},
		{`"{ repeated`, rep(`"{`)},
		{`\ repeated`, `{"` + rep(`\`)},
		{"{} repeated", rep("{}")},
		{"{{}} in an open brace", "{" + rep("{{}}")},
		{"fences", rep("```")},
		{"fences with braces", rep("```{") + "\n"},
		{"fence and newline", rep("```\n{")},
		{"deep nesting, balanced", strings.Repeat(`{"a":`, deep) + "1" + strings.Repeat("}", deep)},
		{"deep braces, balanced", strings.Repeat("{", deep) + strings.Repeat("}", deep)},
		{"deep nesting then prose", strings.Repeat(`{"a":[`, deep) + "oops"},
		{"long invalid objects", rep(`{"a":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],}`)},
		{"long nearly valid nested", "{" + strings.Repeat(`{"a":[`+strings.Repeat("1,", 1000)+`1]},`, 140) + "}"},
	}
}

// TestExtractJSONLinear: every hostile reply is answered in well under a
// second, with an error that names the reply's size.
func TestExtractJSONLinear(t *testing.T) {
	for _, tt := range hostile() {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got, err := ExtractJSON(tt.in)
			el := time.Since(start)
			t.Logf("%d bytes in %v", len(tt.in), el)
			if el > 900*time.Millisecond {
				t.Errorf("took %v on a reply of %d bytes", el, len(tt.in))
			}
			if err == nil {
				checkExtracted(t, tt.in, got)
				return
			}
			if want := fmt.Sprintf("(%d bytes", len(tt.in)); !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name the size %q", err, want)
			}
		})
	}
}

// TestExtractJSONWorkIsBounded checks the bounds themselves rather than the
// clock: however many candidates a reply has, json.Valid is given at most
// maxCandidates spans and validateFactor×len+validateSlack bytes.
func TestExtractJSONWorkIsBounded(t *testing.T) {
	for _, tt := range hostile() {
		s := strings.TrimSpace(tt.in)
		x := &extractor{ctx: context.Background(), s: s, b: []byte(s), budget: validateFactor*len(s) + validateSlack}
		if _, _, err := x.fenced(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := x.braces(); err != nil {
			t.Fatal(err)
		}
		used := validateFactor*len(s) + validateSlack - x.budget
		if x.tried > maxCandidates || x.budget < 0 {
			t.Errorf("%s: %d candidates, %d bytes validated", tt.name, x.tried, used)
		}
	}
}

func TestExtractJSONFindsTheObjectAfterHostileProse(t *testing.T) {
	obj := `{"verdict": 1, "reason": "fine"}`
	for _, prefix := range []string{strings.Repeat(`"`, 10_001), strings.Repeat("}", 100_000), "```json\n" + strings.Repeat("x", 100_000) + "\n```\n"} {
		got, err := ExtractJSON(prefix + " " + obj + " thanks")
		if err != nil || got != obj {
			t.Errorf("after %.20q...: %q, %v", prefix, got, err)
		}
	}
	// Many candidates before the object exhaust the bound: the error says so.
	many := "a " + strings.Repeat("{x} ", maxCandidates) + obj
	if _, err := ExtractJSON(many); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("gave up after checking %d candidate objects", maxCandidates)) {
		t.Errorf("many candidates: error %v", err)
	}
	if got, err := ExtractJSON("a " + strings.Repeat("{x} ", maxCandidates-1) + obj); err != nil || got != obj {
		t.Errorf("candidates within the bound: %q, %v", got, err)
	}
}

func TestExtractJSONContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ExtractJSONContext(ctx, strings.Repeat(`{"a":`, 100_000))
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "500000 bytes") {
		t.Fatalf("error %v, want context.Canceled naming the size", err)
	}
	got, err := ExtractJSONContext(context.Background(), `x {"a": 1}`)
	if err != nil || got != `{"a": 1}` {
		t.Fatalf("%q, %v", got, err)
	}
}

// checkExtracted is the contract of a returned object: valid JSON, an
// object, taken verbatim from the reply.
func checkExtracted(t testing.TB, in, got string) {
	t.Helper()
	if !json.Valid([]byte(got)) {
		t.Fatalf("returned %q, which is not valid JSON", got)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(got), &obj); err != nil {
		t.Fatalf("returned %q, which is not an object: %v", got, err)
	}
	if !strings.Contains(in, got) {
		t.Fatalf("returned %q, which is not in the reply %q", got, in)
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		`{"statements": ["a", "b"]}`,
		"Sure! Here is my judgement:\n```json\n{\"statements\": [{\"statement\": \"a\", \"verdict\": 1, \"reason\": \"r\"}]}\n```\nLet me know.",
		`The answer is {"verdict": 1, "reason": "a } \" {"} as asked.`,
		`{"question": "q?", "noncommittal": 0}`,
		"{\"statements\": [\"foo\", \"ba\nSorry: {\"statements\": [\"foo\"]}",
		`{"x": {"b": 2},}`,
		`The model's "answer: {"a": 1}`,
		"```\n{\"a\": 1}\n``` and ```{\"b\": [1, {\"c\": \"\\u00e9\"}]}```",
		`{{{{`, `[[[[`, `""""`, `{"a":{"a":{"a":`, `{"{"{"{"`, "```{```{",
		`{"classifications": [{"statement": "s", "attributed": 1, "reason": "\\"}]}`,
		"判定：{\"理由\": \"支持\"}",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, bounded, err := extract(context.Background(), in)
		if len(in) <= 4096 && !bounded {
			if want, ok := quadraticExtract(in); ok != (err == nil) || got != want {
				t.Fatalf("reply %q: got %q, %v; matching from every '{' finds %q, %v", in, got, err, want, ok)
			}
		}
		if err != nil {
			if got != "" {
				t.Fatalf("returned %q with the error %v", got, err)
			}
			if strings.TrimSpace(in) != "" && !strings.Contains(err.Error(), fmt.Sprintf("(%d bytes", len(in))) {
				t.Fatalf("error %q does not name the reply's size", err)
			}
			return
		}
		checkExtracted(t, in, got)
		// A reply that is one object is returned whole.
		if s := strings.TrimSpace(in); strings.HasPrefix(s, "{") && json.Valid([]byte(s)) && got != s {
			t.Fatalf("reply %q is an object, returned %q", in, got)
		}
		// What was returned is found again in prose.
		if again, err := ExtractJSON("Here: " + got + " done."); err != nil || again != got {
			t.Fatalf("%q in prose: %q, %v", got, again, err)
		}
	})
}

// quadraticExtract is ExtractJSON as it was before it was made linear: a
// brace match from every '{' in turn. FuzzExtract checks that the linear
// search finds the same object whenever no bound stopped it.
func quadraticExtract(content string) (string, bool) {
	s := strings.TrimSpace(content)
	if s == "" {
		return "", false
	}
	if json.Valid([]byte(s)) && strings.HasPrefix(s, "{") {
		return s, true
	}
	for rest := s; ; {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		body := rest[i+3:]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.Contains(body[:nl], "{") {
			body = body[nl+1:]
		}
		end := strings.Index(body, "```")
		if end < 0 {
			break
		}
		if cand := strings.TrimSpace(body[:end]); strings.HasPrefix(cand, "{") && json.Valid([]byte(cand)) {
			return cand, true
		}
		rest = body[end+3:]
	}
	for start := strings.IndexByte(s, '{'); start >= 0; {
		if end := quadraticMatch(s, start); end > 0 && json.Valid([]byte(s[start:end])) {
			return s[start:end], true
		}
		next := strings.IndexByte(s[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	return "", false
}

func quadraticMatch(s string, start int) int {
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
