package criteria

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"golang.org/x/text/width"
)

// Match is a span of the answer an exact check found: byte offsets into
// the answer as given, the text there, and what it matched (the value,
// the pattern, the PII kind, the character over the limit).
type Match struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text"`
	What  string `json:"what"`
	// InContext: a PII number or address that a chunk holds too (allowed).
	InContext bool `json:"in_context,omitempty"`
}

// Outcome is an exact check's verdict on one answer.
type Outcome struct {
	Score   float64
	Matches []Match
	// Reason says why, in a line a reviewer can check against the answer.
	Reason string
}

// Check runs an exact check on an answer and the sample's chunks (which
// only pii reads). It must not be called for kinds that need the judge.
func (c *Criterion) Check(answer string, contexts []string) Outcome {
	switch c.Kind {
	case Contains, NotContains:
		return c.checkFound(answer, c.findValues(answer), c.Values)
	case Regex, NotRegex:
		return c.checkFound(answer, c.findPatterns(answer), c.Patterns)
	case MaxChars:
		return c.checkLength(answer)
	case JSONValid:
		return checkJSON(answer)
	case Lang:
		return checkLang(answer, c.Language)
	case PII:
		return c.checkPII(answer, contexts)
	}
	panic(fmt.Sprintf("criteria: Check on %s, a kind the judge decides", c.Kind))
}

func pass(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}

// folded is a text with full-width forms narrowed (and, for matching
// without case, lower-cased), with the byte offset in the original of
// each byte of the folded text, so matches point into the answer.
type folded struct {
	text string
	orig []int // len(text)+1 entries
}

func fold(s string, lower bool) folded {
	var b strings.Builder
	orig := make([]int, 0, len(s)+1)
	for i, r := range s {
		f := foldWidth(string(r))
		if lower {
			f = strings.ToLower(f)
		}
		b.WriteString(f)
		for range len(f) {
			orig = append(orig, i)
		}
	}
	orig = append(orig, len(s))
	return folded{b.String(), orig}
}

// span maps a folded span back to the original text's byte offsets. An
// end inside the fold of one original character takes the whole character.
func (f folded) span(start, end int) (int, int) {
	for end > start && end < len(f.text) && f.orig[end] == f.orig[end-1] {
		end++
	}
	return f.orig[start], f.orig[end]
}

// foldWidth narrows full-width Latin letters, digits and punctuation
// (Ａ, １, ＠) to ASCII, as a reader sees them as the same text.
func foldWidth(s string) string { return width.Narrow.String(s) }

// findValues finds every occurrence of each value, per value.
func (c *Criterion) findValues(answer string) [][]Match {
	text := fold(answer, !c.CaseSensitive)
	out := make([][]Match, len(c.Values))
	for i, v := range c.Values {
		needle := fold(v, !c.CaseSensitive).text
		for from := 0; ; {
			j := strings.Index(text.text[from:], needle)
			if j < 0 {
				break
			}
			s, e := text.span(from+j, from+j+len(needle))
			out[i] = append(out[i], Match{Start: s, End: e, Text: answer[s:e], What: v})
			from += j + len(needle)
		}
	}
	return out
}

func (c *Criterion) findPatterns(answer string) [][]Match {
	text := fold(answer, false) // case is the compiled pattern's (?i)
	out := make([][]Match, len(c.Compiled))
	for i, re := range c.Compiled {
		for _, loc := range re.FindAllStringIndex(text.text, -1) {
			if loc[0] == loc[1] {
				continue // an empty match shows nothing and decides nothing
			}
			s, e := text.span(loc[0], loc[1])
			out[i] = append(out[i], Match{Start: s, End: e, Text: answer[s:e], What: c.Patterns[i]})
		}
	}
	return out
}

// checkFound scores contains/regex (want found) and their negations from
// the matches of each value or pattern.
func (c *Criterion) checkFound(answer string, found [][]Match, what []string) Outcome {
	var hit, miss []string
	var matches []Match
	for i, ms := range found {
		if len(ms) > 0 {
			hit = append(hit, what[i])
			matches = append(matches, ms...)
		} else {
			miss = append(miss, what[i])
		}
	}
	negated := c.Kind == NotContains || c.Kind == NotRegex
	noun := "value"
	if c.Kind == Regex || c.Kind == NotRegex {
		noun = "pattern"
	}
	var ok bool
	var passed, failed string
	switch {
	case !negated && !c.All:
		ok, passed, failed = len(hit) > 0, "found "+quoteList(hit), fmt.Sprintf("no %s found in the answer (looked for %s)", noun, quoteList(what))
	case !negated:
		ok, passed, failed = len(miss) == 0, "found every "+noun, "missing "+quoteList(miss)
	case !c.All:
		ok, passed, failed = len(hit) == 0, "none found", "the answer has "+quoteList(hit)
	default: // negated, all: fails only when every one is there
		ok, passed, failed = len(miss) > 0, "not all found (missing "+quoteList(miss)+")", "the answer has all of "+quoteList(hit)
	}
	if !ok {
		return Outcome{Score: 0, Matches: matches, Reason: failed}
	}
	return Outcome{Score: 1, Matches: matches, Reason: passed}
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// checkLength counts characters as a reader does (grapheme clusters: an
// emoji with a modifier, a letter with a combining accent are one), of the
// answer without its surrounding space.
func (c *Criterion) checkLength(answer string) Outcome {
	trimmed := strings.TrimSpace(answer)
	lead := strings.Index(answer, trimmed)
	n, cut := 0, -1
	g := uniseg.NewGraphemes(trimmed)
	for g.Next() {
		n++
		if n == c.Max+1 {
			cut, _ = g.Positions()
		}
	}
	if n <= c.Max {
		return Outcome{Score: 1, Reason: fmt.Sprintf("%d characters (at most %d)", n, c.Max)}
	}
	s, e := lead+cut, lead+len(trimmed)
	return Outcome{
		Score:   0,
		Matches: []Match{{Start: s, End: e, Text: answer[s:e], What: fmt.Sprintf("over %d characters", c.Max)}},
		Reason:  fmt.Sprintf("%d characters, more than %d", n, c.Max),
	}
}

// checkJSON: the answer without surrounding space is one JSON value.
func checkJSON(answer string) Outcome {
	trimmed := strings.TrimSpace(answer)
	if trimmed == "" {
		return Outcome{Score: 0, Reason: "the answer is empty, not JSON"}
	}
	var v any
	err := json.Unmarshal([]byte(trimmed), &v)
	if err == nil {
		return Outcome{Score: 1, Reason: "valid JSON"}
	}
	lead := strings.Index(answer, trimmed)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		at := lead + int(se.Offset)
		if at > 0 {
			at-- // the offset is after the byte that failed
		}
		end := at
		if end < len(answer) {
			_, size := utf8.DecodeRuneInString(answer[end:])
			end += size
		}
		return Outcome{Score: 0, Reason: fmt.Sprintf("not JSON at character %d: %s", utf8.RuneCountInString(answer[:at])+1, se.Error()),
			Matches: []Match{{Start: at, End: end, Text: answer[at:end], What: "invalid JSON"}}}
	}
	return Outcome{Score: 0, Reason: "not JSON: " + err.Error()}
}

// Script counts of a text: Han characters, Latin-script words, and the
// characters only one of the two Chinese scripts writes.
type scriptCount struct {
	han, latin int
	simp, trad []Match
}

func countScripts(s string) scriptCount {
	var c scriptCount
	inWord := false
	for i, r := range s {
		switch {
		case unicode.Is(unicode.Han, r):
			c.han++
			m := Match{Start: i, End: i + utf8.RuneLen(r), Text: string(r)}
			switch scriptOf[r] {
			case 's':
				m.What = "Simplified"
				c.simp = append(c.simp, m)
			case 't':
				m.What = "Traditional"
				c.trad = append(c.trad, m)
			}
			inWord = false
		case unicode.Is(unicode.Latin, r):
			if !inWord {
				c.latin++
			}
			inWord = true
		default:
			inWord = false
		}
	}
	return c
}

// checkLang decides whether the answer is written in lang. A Chinese
// character and a Latin word weigh the same, so the English product names
// of a Chinese answer (OA, Workflow) do not make it English; the expected
// script must write more than half of it. Simplified and Traditional are
// told apart by the characters only one of them writes; the script with
// more of them is the answer's.
func checkLang(answer, lang string) Outcome {
	c := countScripts(answer)
	total := c.han + c.latin
	if total == 0 {
		return Outcome{Score: 0, Reason: "the answer has no words to tell its language by"}
	}
	switch lang {
	case "en":
		if 2*c.latin > total {
			return Outcome{Score: 1, Reason: fmt.Sprintf("English: %d of %d words in Latin script", c.latin, total)}
		}
		return Outcome{Score: 0, Reason: fmt.Sprintf("not English: %d Chinese characters against %d Latin words", c.han, c.latin)}
	}
	if 2*c.han <= total {
		return Outcome{Score: 0, Reason: fmt.Sprintf("not Chinese: %d Latin words against %d Chinese characters", c.latin, c.han)}
	}
	switch {
	case lang == "zh-Hans" && len(c.trad) > len(c.simp):
		return Outcome{Score: 0, Matches: c.trad, Reason: fmt.Sprintf("Traditional Chinese: %d characters only Traditional writes against %d only Simplified writes", len(c.trad), len(c.simp))}
	case lang == "zh-Hant" && len(c.simp) > len(c.trad):
		return Outcome{Score: 0, Matches: c.simp, Reason: fmt.Sprintf("Simplified Chinese: %d characters only Simplified writes against %d only Traditional writes", len(c.simp), len(c.trad))}
	}
	var ms []Match
	if lang == "zh-Hans" {
		ms = c.trad // in the minority: shown, not decisive
	} else if lang == "zh-Hant" {
		ms = c.simp
	}
	return Outcome{Score: 1, Matches: ms, Reason: fmt.Sprintf("Chinese (%s): %d of %d words", lang, c.han, total)}
}
