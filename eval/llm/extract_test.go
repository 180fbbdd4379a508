package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval/endpoint"
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
		{"placeholder then valid", `fill in {x} then {"b": 2}`, `{"b": 2}`, ""},
		{"valid object wins over an earlier repairable one", `{a: 1} then {"b": 2}`, `{"b": 2}`, ""},
		{"outer before inner", `note: {"a": {"b": 2}} done`, `{"a": {"b": 2}}`, ""},
		{"stray quote in prose", `The model's "answer: {"a": 1}`, `{"a": 1}`, ""},
		{"closing braces in prose", `}} {"a": 1} }`, `{"a": 1}`, ""},
		{"empty object", `{}`, `{}`, ""},
		{"cjk", "判定如下：{\"理由\": \"上下文支持\"}。", `{"理由": "上下文支持"}`, ""},
		// Reasoning is never read as the answer.
		{"think block with an example object", "<think>I should answer like {\"verdict\": 1, \"reason\": \"example\"}.</think>\n{\"verdict\": 0, \"reason\": \"the context says otherwise\"}", `{"verdict": 0, "reason": "the context says otherwise"}`, ""},
		{"closing tag only", "Okay, the format is {\"statements\": [\"...\"]}.\n</think>\n\n{\"statements\": [\"real\"]}", `{"statements": ["real"]}`, ""},
		{"empty think block", "<think>\n\n</think>\n\n{\"a\": 1}", `{"a": 1}`, ""},
		{"thinking tag, upper case", "<THINKING>{\"a\": 0}</THINKING>{\"a\": 1}", `{"a": 1}`, ""},
		{"several blocks", "<think>{\"a\": 0}</think>\nhmm\n<think>{\"a\": 2}</think>\n{\"a\": 1}", `{"a": 1}`, ""},
		{"a tag inside the answer's JSON is text", `{"statements": ["The model wraps its thoughts in <think> tags."]}`, `{"statements": ["The model wraps its thoughts in <think> tags."]}`, ""},
		{"a closing tag inside the answer's JSON is text", `{"reason": "it ends with </think> here", "verdict": 1}`, `{"reason": "it ends with </think> here", "verdict": 1}`, ""},
		{"only reasoning", "<think>The answer is {\"a\": 1}", "", "the reply is all reasoning"},
		// Almost-JSON is repaired, the reply's own object only.
		{"python dict", `Here you go: {'verdict': 'yes', 'reason': "it's stated", 'ok': True, 'x': None,}`, `{"verdict": "yes", "reason": "it's stated", "ok": true, "x": null}`, ""},
		{"trailing commas in a fence", "```json\n{\"statements\": [\"a\", \"b\",],}\n```", `{"statements": ["a", "b"]}`, ""},
		{"comments", "{\"verdict\": 1, // supported\n \"reason\": \"r\" /* done */}", `{"verdict": 1, 
 "reason": "r" }`, ""},
		{"unescaped quotes in a string", "{\"reason\": \"the text says \"no\" at all\", \"verdict\": 0}", `{"reason": "the text says \"no\" at all", "verdict": 0}`, ""},
		{"raw newline in a string", "{\"reason\": \"line\nbreak\", \"verdict\": 0}", `{"reason": "line\nbreak", "verdict": 0}`, ""},
		{"broken outer gives the outer repaired, not the inner", `{"x": {"b": 2},}`, `{"x": {"b": 2}}`, ""},
		{"missing comma", `{"verdict": 1 "reason": "x"}`, `{"verdict": 1, "reason": "x"}`, ""},
		// Objects cut short are never completed.
		{"truncated", `{"statements": ["a", "b`, "", "not complete (truncated?) (23 bytes)"},
		{"truncated then whole", "{\"statements\": [\"foo\", \"ba\nSorry, here it is: {\"statements\": [\"foo\"]}", "", "not complete (truncated?)"},
		{"unbalanced open before", `{{ {"a": 1}`, "", "not complete (truncated?)"},
		{"empty", "  \n ", "", "the reply is empty"},
		{"prose only", "I cannot judge this.", "", "no JSON object in the reply (20 bytes): I cannot judge this."},
		{"array only", `["a", "b"]`, "", "no JSON object in the reply (10 bytes)"},
		{"array of objects is no object", `[{"verdict": 1}, {"verdict": 0}]`, "", "no JSON object in the reply"},
		{"broken array of objects", `[{"a": 1}, {"b": 2}}`, "", "no JSON object in the reply"},
		{"bracket in prose, then the object", `See [1] below: {"a": 1}`, `{"a": 1}`, ""},
		{"placeholder only", `{x}`, "", "not valid JSON, even repaired (3 bytes)"},
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
		{"fences on one long line", rep("```x") + "\n"},
		{"fences and braces on one long line", rep("```x{") + "\n"},
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
				checkObject(t, got)
				return
			}
			if want := fmt.Sprintf("(%d bytes", len(tt.in)); !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name the size %q", err, want)
			}
		})
	}
}

// TestExtractJSONRepairIsBounded: an object too long to repair in linear
// time is reported as such, not repaired.
func TestExtractJSONRepairIsBounded(t *testing.T) {
	long := "{'a': '" + strings.Repeat("x", maxRepairBytes) + "'}"
	if _, err := ExtractJSON(long); err == nil || !strings.Contains(err.Error(), "is not repaired") {
		t.Fatalf("error %v, want one saying the object is too long to repair", err)
	}
	short := "{'a': '" + strings.Repeat("x", maxRepairBytes/2) + "'}"
	if _, err := ExtractJSON(short); err != nil {
		t.Fatalf("an object under the bound: %v", err)
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
	// Candidates past the bound are not looked at.
	many := "a " + strings.Repeat("{x} ", maxCandidates) + obj
	if _, err := ExtractJSON(many); err == nil {
		t.Errorf("many candidates: the object past the bound was found")
	}
	if got, err := ExtractJSON("a " + strings.Repeat("{x} ", maxCandidates-1) + obj); err != nil || got != obj {
		t.Errorf("candidates within the bound: %q, %v", got, err)
	}
}

func TestExtractJSONAfterAWord(t *testing.T) {
	got, err := ExtractJSON(`x {"a": 1}`)
	if err != nil || got != `{"a": 1}` {
		t.Fatalf("%q, %v", got, err)
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
		"<think>{\"a\": 1}</think>{'b': True,}",
		"reasoning {\"x\": 0}</think>{\"a\": 1}",
		"<think>unterminated {\"a\": 1}",
		"判定：{\"理由\": \"支持\"}",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ExtractJSON(in)
		if err != nil {
			if got != "" {
				t.Fatalf("returned %q with the error %v", got, err)
			}
			if strings.TrimSpace(in) != "" && !strings.Contains(err.Error(), fmt.Sprintf("(%d bytes", len(in))) {
				t.Fatalf("error %q does not name the reply's size", err)
			}
			return
		}
		checkObject(t, got)
		answer, _, _ := endpoint.SplitReasoning(in)
		// A reply that is one object is returned whole.
		if s := strings.TrimSpace(answer); strings.HasPrefix(s, "{") && json.Valid([]byte(s)) && got != s {
			t.Fatalf("reply %q is an object, returned %q", in, got)
		}
		// An object taken verbatim is the answer's, never the reasoning's.
		if json.Valid([]byte(got)) && strings.Contains(in, got) && !strings.Contains(answer, got) {
			t.Fatalf("reply %q: returned %q from its reasoning", in, got)
		}
		// What was returned is found again in prose.
		if again, err := ExtractJSON("Here: " + got + " done."); err != nil || again != got {
			t.Fatalf("%q in prose: %q, %v", got, again, err)
		}
	})
}

// checkObject is the contract of a returned object: valid JSON, an object.
func checkObject(t testing.TB, got string) {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(got), &obj); err != nil {
		t.Fatalf("returned %q, which is not a JSON object: %v", got, err)
	}
}

// httpFailure is an endpoint failure as RefusedFormat reads it.
func httpFailure(status int, msg string) *endpoint.Failure {
	return &endpoint.Failure{Status: status, ServerMessage: msg}
}

// TestRefusedFormat: the refusals of a response format that real servers
// send step the format down; other failures, and other errors that happen
// to mention a schema or a 400, do not.
func TestRefusedFormat(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{httpFailure(400, "This response_format type is unavailable now"), true}, // DeepSeek
		{httpFailure(400, "'response_format.type' must be 'json_object' or 'text'"), true},
		{httpFailure(400, "Unrecognized request argument supplied: response_format"), true},
		{httpFailure(422, "json_schema is not supported by this model"), true},
		{httpFailure(400, "Invalid schema for response_format 'faithfulness_verdicts': additionalProperties is required"), true},
		{httpFailure(400, "the model does not support response format"), true},
		{httpFailure(400, "'response_format.type' must be 'json_schema' or 'text'"), true},                                                           // LM Studio refusing json_object (LoadShine/tada#16)
		{httpFailure(400, "deepseek-reasoner does not support Json Output."), true},                                                                  // gomate-community/TrustRAG#140
		{httpFailure(400, "Failed to initialize samplers: failed to parse grammar"), true},                                                           // llama.cpp, a schema it cannot compile (lidge-jun/opencodex#2135)
		{httpFailure(400, "JSON schema conversion failed:\nUnrecognized schema: {\"description\":\"Value for add/replace/test operations\"}"), true}, // llama.cpp (ggml-org/llama.cpp#19716)
		{httpFailure(400, "invalid schema for response format: response_format/json_schema/next_step: minItems is not supported"), true},             // Groq (i-am-bee/beeai-framework#1215)
		// Groq's json_schema and JSON mode refusing the model's reply, not the format
		// (console.groq.com/docs/structured-outputs; thepersonalaicompany/amurex-backend#38).
		{httpFailure(400, "Generated JSON does not match the expected schema. Please adjust your prompt."), false},
		{httpFailure(400, "Failed to generate JSON. Please adjust your prompt. See 'failed_generation' for more details."), false},
		{httpFailure(400, "maximum context length is 8192 tokens"), false},
		{httpFailure(500, "internal error in response_format handling"), false},
		{httpFailure(401, "Incorrect API key provided"), false},
		{fmt.Errorf("faithfulness_verdicts: %w", httpFailure(400, "This response_format type is unavailable now")), true},
		// Not the server's refusal: a parse error quoting a reply, a host on :4000.
		{errors.New(`reply does not match the schema: missing field "verdict" (reply: costs $400)`), false},
		{errors.New("cannot connect to 127.0.0.1:4000: json_schema endpoint"), false},
	}
	for _, tt := range tests {
		if got := RefusedFormat(tt.err); got != tt.want {
			t.Errorf("RefusedFormat(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
