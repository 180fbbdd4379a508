package prompts

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"text/template"
)

func funcMap() template.FuncMap {
	return template.FuncMap{
		"trim":     strings.TrimSpace,
		"data":     data,
		"numbered": numbered,
		"chunks":   chunks,
		// The reference's statements, under a tag of their own so that a
		// prompt showing both lists keeps them apart.
		"facts":  func(xs []string) string { return list("fact", xs) },
		"items":  func(xs []string) string { return list("item", xs) },
		"levels": levels,
		// A conversation's earlier turns as flat <user n="1"> and
		// <assistant n="1"> blocks (a data block never holds a tag);
		// sources adds each turn's <retrieved n="1"> chunks.
		"history": func(ts []Turn) string { return conversation(ts, false) },
		"sources": func(ts []Turn) string { return conversation(ts, true) },
	}
}

// How user content is delimited: every piece a template shows from Data is
// user content (the dataset, the system under test, an earlier judge reply)
// and may be written to look like the prompt itself. Each piece goes in its
// own tag named for what it is (<answer>, <chunk n="2">), and every "<" of
// the content is written "&lt;", so no tag in a rendered prompt is one the
// content wrote.
//
// The tags are fixed, not random: a render must be a pure function of the
// template and the data, since the prompt is hashed into the cache key, and
// the worked examples must show the markup the real input uses. Only "<" is
// escaped, and "&" is not, so the escaping is idempotent: a statement the
// judge extracted from an escaped answer is not escaped twice when sent back.
//
// Content is also normalised: surrounding blank space trimmed, line breaks
// made "\n", trailing blanks of each line dropped. A one-line piece is
// written inline; a longer one gets its tags on lines of their own.

// escapeData makes s unable to contain a tag; see above.
func escapeData(s string) string { return strings.ReplaceAll(s, "<", "&lt;") }

// tagNameRE is a usable tag name: a lowercase word, which cannot break the
// markup either.
var tagNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// data renders text as one delimited block, <tag>text</tag>.
func data(tag, text string) (string, error) {
	if !tagNameRE.MatchString(tag) {
		return "", fmt.Errorf("data: %q is not a usable tag name; use a lowercase word such as \"answer\"", tag)
	}
	return block(tag, "", text), nil
}

// numbered renders statements as <statement n="1">…</statement> blocks, one
// per line: the judge answers one entry per number.
func numbered(items []string) string { return list("statement", items) }

// chunks renders ranked chunks as <chunk n="1">…</chunk> blocks, so reasons
// can cite a chunk by its number.
func chunks(items []string) string { return list("chunk", items) }

func list(tag string, items []string) string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = block(tag, ` n="`+strconv.Itoa(i+1)+`"`, it)
	}
	return strings.Join(out, "\n")
}

// levels renders a rubric's scale as <level score="1">…</level> blocks.
func levels(ls []Level) string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = block("level", ` score="`+strconv.Itoa(l.Score)+`"`, l.Description)
	}
	return strings.Join(out, "\n")
}

func conversation(turns []Turn, withChunks bool) string {
	var out []string
	for _, t := range turns {
		n := ` n="` + strconv.Itoa(t.N) + `"`
		out = append(out, block("user", n, t.User), block("assistant", n, t.Assistant))
		if withChunks {
			for _, c := range t.Chunks {
				out = append(out, block("retrieved", n, c))
			}
		}
	}
	return strings.Join(out, "\n")
}

func block(tag, attrs, text string) string {
	body := escapeData(normalize(text))
	if strings.Contains(body, "\n") {
		body = "\n" + body + "\n"
	}
	return "<" + tag + attrs + ">" + body + "</" + tag + ">"
}

var lineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n")

func normalize(text string) string {
	lines := strings.Split(strings.TrimSpace(lineBreaks.Replace(text)), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}
