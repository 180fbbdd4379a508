package endpoint

import (
	"slices"
	"strings"
)

// reasoningTags are the names reasoning models wrap their thinking in:
// <think> (Qwen3, QwQ, DeepSeek-R1 and its distills, GLM-Z1), <thinking>,
// <reasoning> and <reason> (others, and prompts that ask for it).
var reasoningTags = []string{"think", "thinking", "reasoning", "reason"}

// SplitReasoning separates a reply's reasoning from its answer. A
// reasoning model's content may hold (a tag that opens a block at the
// start of a line; one that closes a block the reply did not open there
// too, or before a line end or the answer's object):
//   - one or more complete blocks <think>…</think>, empty ones included
//     (Qwen3 writes one even with thinking off);
//   - a closing tag with no opening one, when the chat template wrote the
//     opening tag into the prompt (DeepSeek-R1 distills): all before it is
//     reasoning;
//   - an opening tag that never closes, when the reply was cut inside the
//     reasoning: all after it is reasoning, and cut reports it.
//
// The answer is what is left; the reasoning is the blocks' text joined by
// blank lines. Nothing inside the reasoning is ever part of the answer, so
// an example object the model quotes while thinking cannot be read as its
// verdict. Tags are matched without regard to case. A reply without tags
// comes back unchanged with no reasoning.
func SplitReasoning(content string) (answer, reasoning string, cut bool) {
	if !strings.Contains(content, "<") {
		return content, "", false
	}
	var parts []string
	var b strings.Builder
	pos := 0
	for pos < len(content) {
		// The next opening or closing tag of any name.
		at, name, closing := nextTag(content, pos)
		if at < 0 {
			b.WriteString(content[pos:])
			break
		}
		tagEnd := at + len(name) + 2
		if closing {
			tagEnd++
			// A closing tag with no opening one: everything up to it,
			// answer text seen so far included, was reasoning.
			parts = append(parts, strings.TrimSpace(b.String()+content[pos:at]))
			b.Reset()
			pos = tagEnd
			continue
		}
		b.WriteString(content[pos:at])
		closeTag := "</" + name + ">"
		end := indexFold(content[tagEnd:], closeTag)
		if end < 0 {
			parts = append(parts, strings.TrimSpace(content[tagEnd:]))
			cut = true
			pos = len(content)
			break
		}
		parts = append(parts, strings.TrimSpace(content[tagEnd:tagEnd+end]))
		pos = tagEnd + end + len(closeTag)
	}
	if parts == nil {
		return content, "", false
	}
	kept := slices.DeleteFunc(parts, func(p string) bool { return p == "" })
	return strings.TrimSpace(b.String()), strings.Join(kept, "\n\n"), cut
}

// nextTag finds the first <name> or </name> of a reasoning tag at or after
// pos, in any case. Offsets are the content's own: the content is never
// case-folded whole, which changes the length of invalid UTF-8.
func nextTag(content string, pos int) (at int, name string, closing bool) {
	for i := pos; i < len(content); {
		k := strings.IndexByte(content[i:], '<')
		if k < 0 {
			return -1, "", false
		}
		i += k
		rest := content[i+1:]
		cl := strings.HasPrefix(rest, "/")
		if cl {
			rest = rest[1:]
		}
		for _, t := range reasoningTags {
			if len(rest) > len(t) && strings.EqualFold(rest[:len(t)], t) && rest[len(t)] == '>' &&
				(lineStart(content, i) || cl && endsReasoning(rest[len(t)+1:])) {
				return i, t, cl
			}
		}
		i++
	}
	return -1, "", false
}

// lineStart reports whether only spaces stand between the start of
// content's line and i. A reasoning tag opens a block, or closes one the
// chat template opened, at the start of a line; a tag written inside the
// answer's JSON (a statement that quotes "<think>") is not one: a JSON
// string cannot hold a raw line break.
func lineStart(content string, i int) bool {
	before := strings.TrimRight(content[:i], " \t")
	return before == "" || strings.HasSuffix(before, "\n") || strings.HasSuffix(before, "\r")
}

// endsReasoning reports whether what follows a closing tag with no opening
// one is the end of a line, of the reply, or the answer's object: where the
// reasoning ends and the answer begins ("…I will write it.</think>{…}").
// Inside a JSON string the tag is followed by more of the string.
func endsReasoning(after string) bool {
	after = strings.TrimLeft(after, " \t")
	return after == "" || after[0] == '\n' || after[0] == '\r' || after[0] == '{'
}

// indexFold is strings.Index of an ASCII tag, in any case.
func indexFold(s, tag string) int {
	for i := 0; i+len(tag) <= len(s); {
		k := strings.IndexByte(s[i:], '<')
		if k < 0 {
			return -1
		}
		i += k
		if i+len(tag) <= len(s) && strings.EqualFold(s[i:i+len(tag)], tag) {
			return i
		}
		i++
	}
	return -1
}
