package fakejudge

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/ragscope/ragscope/prompts"
)

// Persona is how a family of real servers and models answers, over a clean
// judge that gives the right verdicts: what ragscope must read exactly as
// it reads the clean judge.
//   - PersonaQwen3: "<think>" reasoning that quotes an example of the JSON,
//     "</think>", the JSON;
//   - PersonaR1Distill: the same without the opening tag (DeepSeek-R1
//     distills, whose chat template writes it into the prompt);
//   - PersonaDeepSeek: json_schema refused with HTTP 400, n ignored, the
//     reasoning in reasoning_content;
//   - PersonaOllama: the reasoning in a "reasoning" field, n ignored;
//   - PersonaOllamaOld: n and response_format ignored, the reply in prose
//     around a fenced Python-style dict;
//   - PersonaBudget: a reasoning model under a token budget: a reply that
//     does not fit is cut inside its reasoning, finish_reason "length";
//   - PersonaQwQ: QwQ on DashScope: answers only a streaming call, the
//     reasoning in reasoning_content deltas, n ignored.
type Persona string

const (
	PersonaClean     Persona = "clean"
	PersonaQwen3     Persona = "qwen3"
	PersonaR1Distill Persona = "r1-distill"
	PersonaDeepSeek  Persona = "deepseek"
	PersonaOllama    Persona = "ollama"
	PersonaOllamaOld Persona = "ollama-old"
	PersonaBudget    Persona = "budget"
	PersonaQwQ       Persona = "qwq"
)

// Personas are all the personas, the clean one first.
var Personas = []Persona{PersonaClean, PersonaQwen3, PersonaR1Distill, PersonaDeepSeek, PersonaOllama, PersonaOllamaOld, PersonaBudget, PersonaQwQ}

// BudgetDefault is PersonaBudget's max_tokens when the request sets none.
const BudgetDefault = 256

// DeepSeekRefusal is the body DeepSeek's API answers json_schema with.
const DeepSeekRefusal = `{"error":{"message":"This response_format type is unavailable now","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`

// StreamOnlyRefusal is the body DashScope answers a call to QwQ without
// streaming with.
const StreamOnlyRefusal = `{"error":{"code":"invalid_parameter_error","param":null,"message":"This model only support stream mode, please enable the stream parameter to access the model. ","type":"invalid_request_error"}}`

// Wrap returns the handler of a server that answers as the persona, with
// clean's verdicts underneath. clean is asked with the task guessed from
// the prompt when the request names none (json_object, text).
func (p Persona) Wrap(clean func(*Request) Reply) func(*Request) Reply {
	return func(r *Request) Reply {
		if p == PersonaDeepSeek && r.Format == "json_schema" {
			return Reply{Status: 400, Body: DeepSeekRefusal}
		}
		if p == PersonaQwQ && r.Raw["stream"] != true {
			return Reply{Status: 400, Body: StreamOnlyRefusal}
		}
		q := *r
		q.Task = cmp.Or(q.Task, GuessTask(r.Prompt()))
		if p == PersonaDeepSeek || p == PersonaOllama || p == PersonaOllamaOld || p == PersonaQwQ {
			q.N = 1 // n is ignored: one choice whatever was asked
		}
		rep := clean(&q)
		if rep.Status != 0 && rep.Status != 200 || rep.Body != "" || rep.Stream != nil || rep.Hang {
			return rep
		}
		thought := reasoningAbout(q.Task)
		out := rep
		out.Choices = slices.Clone(rep.Choices)
		for i, c := range rep.Choices {
			switch p {
			case PersonaQwen3:
				out.Choices[i] = "<think>\n" + thought + "\n</think>\n\n" + c
			case PersonaR1Distill:
				out.Choices[i] = thought + "\n</think>\n\n" + c
			case PersonaDeepSeek, PersonaOllama, PersonaQwQ:
				out.Reasoning = append(out.Reasoning, thought)
				out.ReasoningField = map[Persona]string{PersonaDeepSeek: "reasoning_content", PersonaOllama: "reasoning", PersonaQwQ: "reasoning_content"}[p]
			case PersonaOllamaOld:
				out.Choices[i] = "Sure! Here is my judgement as a dictionary:\n\n```python\n" + pythonDict(c) + "\n```\n\nLet me know if you need anything else."
			case PersonaBudget:
				full := "<think>\n" + strings.Repeat(thought+"\n", 4) + "</think>\n\n" + c
				budget := cmp.Or(r.MaxTokens, BudgetDefault) // MaxTokens is 0 when the request sets none
				if _, n := Usage(r.Model, nil, []string{full}); n > budget {
					runes := []rune(full)
					full = string(runes[:len(runes)*budget/n])
					out.FinishReason = "length"
				}
				out.Choices[i] = full
			}
		}
		return out
	}
}

// reasoningAbout is what the reasoning model thinks before it answers: it
// quotes an example of the reply, a valid one for the task, whose verdicts
// are not the real ones. Read as the answer, it gives a wrong score that
// looks right.
func reasoningAbout(task string) string {
	example := cmp.Or(map[string]string{
		"faithfulness_statements":        `{"statements": ["The example statement from the instructions."]}`,
		"faithfulness_verdicts":          `{"statements": [{"statement": "example", "reason": "supported", "verdict": 1}]}`,
		"answer_relevancy_question":      `{"question": "What is an example question?", "noncommittal": 1}`,
		"context_precision_verdict":      `{"reason": "example", "verdict": 0}`,
		"context_utilization_verdict":    `{"reason": "example", "verdict": 0}`,
		"context_recall_classifications": `{"classifications": [{"statement": "example", "reason": "example", "attributed": 0}]}`,
	}[task], `{"example": true}`)
	return "Okay, the user wants me to judge this. The output format is JSON, for example " + example +
		". Let me read the input carefully, check each part against the text, and then write my own object, not the example."
}

// pythonDict writes a JSON object the way an older local model writes a
// Python dict: single quotes, a trailing comma after every member and
// element, and 'yes'/'no' for the 0/1 flags.
func pythonDict(js string) string {
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		return js
	}
	var b strings.Builder
	writePy(&b, v, "")
	return b.String()
}

func writePy(b *strings.Builder, v any, key string) {
	switch v := v.(type) {
	case map[string]any:
		b.WriteString("{")
		for _, k := range slices.Sorted(maps.Keys(v)) {
			b.WriteString(pyString(k) + ": ")
			writePy(b, v[k], k)
			b.WriteString(", ")
		}
		b.WriteString("}")
	case []any:
		b.WriteString("[")
		for _, e := range v {
			writePy(b, e, "")
			b.WriteString(", ")
		}
		b.WriteString("]")
	case string:
		b.WriteString(pyString(v))
	case float64:
		if slices.Contains([]string{"verdict", "attributed", "noncommittal"}, key) {
			b.WriteString(map[bool]string{true: "'yes'", false: "'no'"}[v == 1])
			return
		}
		fmt.Fprint(b, v)
	case bool:
		b.WriteString(map[bool]string{true: "True", false: "False"}[v])
	case nil:
		b.WriteString("None")
	}
}

func pyString(s string) string {
	if strings.Contains(s, "'") {
		q, _ := json.Marshal(s)
		return string(q)
	}
	return "'" + strings.ReplaceAll(s, `\`, `\\`) + "'"
}

// taskOpenings maps the first line of each embedded prompt to its task, for
// requests that name no task (json_object and text formats).
var taskOpenings = func() map[string]string {
	m := map[string]string{}
	set := prompts.Embedded()
	for _, info := range set.List() {
		src, _ := set.Source(info.Task, info.Lang)
		if i := strings.Index(src, "*/ -}}"); i >= 0 {
			src = src[i+len("*/ -}}"):]
		}
		line, _, _ := strings.Cut(strings.TrimLeft(src, "\n"), "\n")
		if line = strings.TrimSpace(line); line != "" && !strings.Contains(line, "{{") {
			m[line] = info.Task
		}
	}
	return m
}()

// GuessTask is the task of a rendered prompt of the embedded set, "" when
// it is none of them.
func GuessTask(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimLeft(prompt, "\n"), "\n")
	return taskOpenings[strings.TrimSpace(line)]
}

// Oracle is a clean judge whose verdicts follow from the text, so that
// scores differ from sample to sample and a wrong parse shows: statements
// are the answer's sentences; a statement is supported, a reference
// sentence attributed and a chunk useful when a chunk contains the
// sentence (case and surrounding punctuation aside); every generated
// question is the same ("What about " and the answer's first sentence), so
// one request with n and separate draws give the same questions; an
// answer saying it does not know is noncommittal. Other tasks are
// Generic's.
func Oracle(r *Request) Reply {
	chunks := r.Chunks()
	in := func(s string, texts ...string) (int, bool) {
		k := norm(s)
		i := slices.IndexFunc(texts, func(t string) bool { return k != "" && strings.Contains(norm(t), k) })
		return i + 1, i >= 0
	}
	switch r.Task {
	case "faithfulness_statements":
		return one(JSON(map[string]any{"statements": sentences(r.TaskText("answer"))}))
	case "faithfulness_verdicts":
		return one(JSON(map[string]any{"statements": cited(r.TaskItems("statement"), "verdict", func(s string) (int, bool) { return in(s, chunks...) })}))
	case "answer_relevancy_question":
		answer := r.TaskText("answer")
		nc := 0
		if l := strings.ToLower(answer); strings.Contains(l, "don't know") || strings.Contains(answer, "不知道") {
			nc = 1
		}
		first := answer
		if ss := sentences(answer); len(ss) > 0 {
			first = ss[0]
		}
		return each(r, func(int) any { return map[string]any{"question": "What about " + first + "?", "noncommittal": nc} })
	case "context_precision_verdict", "context_utilization_verdict":
		text := r.TaskText("reference")
		if r.Task == "context_utilization_verdict" {
			text = r.TaskText("answer")
		}
		for _, s := range sentences(text) {
			if _, ok := in(s, r.TaskText("chunk")); ok {
				return one(JSON(map[string]any{"reason": "the chunk states: " + s, "verdict": 1}))
			}
		}
		return one(JSON(map[string]any{"reason": "the chunk states none of it", "verdict": 0}))
	case "context_recall_classifications":
		return one(JSON(map[string]any{"classifications": cited(sentences(r.TaskText("reference")), "attributed", func(s string) (int, bool) { return in(s, chunks...) })}))
	}
	return Generic(r)
}

// cited is the oracle's verdict on each statement, under the 0/1 field
// named flag: 1 citing the chunk that states it, 0 when none does.
func cited(statements []string, flag string, find func(string) (int, bool)) []map[string]any {
	items := []map[string]any{}
	for _, st := range statements {
		k, ok := find(st)
		v := map[string]any{"statement": st, "reason": "no chunk states it", flag: 0, "chunk": nil, "quote": ""}
		if ok {
			v["reason"], v[flag], v["chunk"], v["quote"] = fmt.Sprintf("chunk %d states it", k), 1, k, strings.TrimSpace(st)
		}
		items = append(items, v)
	}
	return items
}

// sentences splits a text at sentence ends (. ! ? and their full-width
// forms), trimmed, empty ones dropped.
func sentences(text string) []string {
	out := []string{}
	for _, s := range strings.FieldsFunc(text, func(c rune) bool { return strings.ContainsRune(".!?。！？\n", c) }) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func norm(s string) string {
	s = strings.ToLower(strings.TrimFunc(s, func(c rune) bool { return unicode.IsPunct(c) || unicode.IsSpace(c) }))
	return strings.Join(strings.Fields(s), " ")
}
