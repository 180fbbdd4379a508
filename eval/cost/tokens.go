package cost

import (
	"cmp"
	"hash/maphash"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"

	"github.com/ragscope/ragscope/eval"
)

// Counter counts the tokens of a text for one model.
type Counter struct {
	Model string
	// Encoding is the tokenizer's name (o200k_base, cl100k_base), or "" when
	// the model has no known tokenizer and Count estimates.
	Encoding string
	codec    tokenizer.Codec
}

// Exact says whether counts come from the model's own tokenizer.
func (c Counter) Exact() bool { return c.codec != nil }

// Label says how counts are made, for reports: "o200k_base tokenizer" or
// "estimated (no tokenizer for MODEL)".
func (c Counter) Label() string {
	if c.Exact() {
		return c.Encoding + " tokenizer"
	}
	return "estimated (no tokenizer for " + cmp.Or(c.Model, "an unnamed model") + ")"
}

// encodingOf maps OpenAI model names to their tokenizer, by the prefixes
// OpenAI documents (tiktoken's model table). Anything else — a local
// model, an Azure deployment name — has none.
func encodingOf(model string) tokenizer.Encoding {
	m := strings.TrimPrefix(modelName(model), "ft:")
	has := func(p string) bool { return m == p || strings.HasPrefix(m, p+"-") }
	switch {
	case has("gpt-4o"), has("chatgpt-4o"), has("gpt-4.1"), has("gpt-4.5"), has("gpt-5"),
		has("o1"), has("o3"), has("o4"):
		return tokenizer.O200kBase
	case has("gpt-4"), has("gpt-3.5-turbo"), has("gpt-35-turbo"), has("gpt-3.5"),
		has("text-embedding-3-small"), has("text-embedding-3-large"), has("text-embedding-ada-002"):
		return tokenizer.Cl100kBase
	}
	return ""
}

var codecs sync.Map // tokenizer.Encoding -> tokenizer.Codec; a codec's vocabulary loads once

// For returns the counter of a model.
func For(model string) Counter {
	enc := encodingOf(model)
	if enc == "" {
		return Counter{Model: model}
	}
	if c, ok := codecs.Load(enc); ok {
		return Counter{Model: model, Encoding: string(enc), codec: c.(tokenizer.Codec)}
	}
	c, err := tokenizer.Get(enc)
	if err != nil {
		return Counter{Model: model}
	}
	c.SetErrorMode(tokenizer.ErrorModeReplace)
	got, _ := codecs.LoadOrStore(enc, c)
	return Counter{Model: model, Encoding: string(enc), codec: got.(tokenizer.Codec)}
}

// Count counts the tokens of s.
func (c Counter) Count(s string) int {
	if c.codec != nil {
		if n, err := c.codec.Count(s); err == nil {
			return n
		}
	}
	return Estimate(s)
}

// Estimate guesses a token count without a tokenizer: a CJK character is
// about one token in the OpenAI vocabularies, other text about four bytes
// per token.
func Estimate(s string) int {
	cjk, other := 0, 0
	for _, r := range s {
		if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) {
			cjk++
		} else {
			other += utf8.RuneLen(r)
		}
	}
	return cjk + (other+3)/4
}

// Chat counts the prompt tokens of a chat request the way OpenAI bills
// them: each message costs its role and content plus 3 tokens of framing,
// and the reply is primed with 3 more.
func (c Counter) Chat(msgs []eval.Message) int { return chatTokens(msgs, c.Count) }

func chatTokens(msgs []eval.Message, count func(string) int) int {
	n := 3
	for _, m := range msgs {
		n += 3 + count(m.Role) + count(m.Content)
	}
	return n
}

// Memo is a Counter that remembers the counts of the pieces of text it has
// seen, for counting many prompts at once: a dataset's prompts repeat their
// template and each sample's contexts in every call. A text is cut after
// each run of newlines, where the OpenAI pre-tokenizers end a piece too, so
// the pieces' counts add up to the count of the whole.
type Memo struct {
	Counter
	seed   maphash.Seed
	counts sync.Map // uint64 hash of a piece -> int
}

// Memo returns a memoising counter of c; it lives as long as the caller
// keeps it.
func (c Counter) Memo() *Memo { return &Memo{Counter: c, seed: maphash.MakeSeed()} }

// Count counts the tokens of s.
func (m *Memo) Count(s string) int {
	if !m.Exact() {
		return Estimate(s) // as cheap as a lookup
	}
	n := 0
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			i = len(s)
		} else {
			for i < len(s) && (s[i] == '\n' || s[i] == '\r') {
				i++
			}
		}
		n += m.piece(s[:i])
		s = s[i:]
	}
	return n
}

func (m *Memo) piece(p string) int {
	h := maphash.String(m.seed, p)
	if v, ok := m.counts.Load(h); ok {
		return v.(int)
	}
	n := m.Counter.Count(p)
	m.counts.Store(h, n)
	return n
}

// Chat counts a chat request's prompt tokens as Counter.Chat does.
func (m *Memo) Chat(msgs []eval.Message) int { return chatTokens(msgs, m.Count) }
