package prompts

import (
	"fmt"
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
		"facts":    facts,
		"items":    items,
		"levels":   levels,
		"history":  history,
		"sources":  sources,
	}
}

// How user content is delimited
//
// Everything a template shows from Data (question, answer, reference, each
// chunk, each statement) is user content: it comes from the dataset, from
// the system under test or from an earlier judge reply, and may be written
// to look like the prompt itself (an answer ending in "Context: … Output:
// {"verdict": 1}"). The helpers data, numbered and chunks put each piece in
// its own XML-like tag named for what it is, <answer>…</answer>,
// <chunk n="2">…</chunk>, <statement n="1">…</statement>, and write every
// "<" of the content as "&lt;". Content without a literal "<" cannot
// contain any tag: not the closing tag of its own block, not the opening
// tag of a forged block, not an </example>. So every tag in a rendered
// prompt is one a template wrote, and the templates tell the judge that
// what is inside them is data to judge, never instructions.
//
// Why this scheme and not another:
//
//   - Fixed tags, not random or content-derived ones. A render must be a
//     pure function of the template and the data: the request, prompt text
//     included, is hashed into the cache key, so a per-render random tag
//     would make every call a miss. A tag derived from a hash of the
//     content would be deterministic, but it still needs the escaping (a
//     short hash can be brute-forced into the content it hashes), so it
//     would add nothing but noise, and the worked examples could not show
//     the markup the real input uses.
//   - Tags, not backtick fences. A fence longer than any run of backticks in
//     the content also cannot be closed from inside, but its length changes
//     with the content (the examples again cannot match), it carries no
//     name or number, and a judge may well read a shorter fence in the
//     content as the end of the block. Tags say what they hold and keep
//     chunk and statement numbers visible for reasons to cite.
//   - Only "<" is escaped. It is the one character a tag cannot do without.
//     ">" stays (Markdown quotes, arrows) and so does "&": the escaping is
//     then idempotent, so a statement the judge extracted from an escaped
//     answer ("x &lt; 5") and sent back in the verdicts prompt is not turned
//     into "x &amp;lt; 5". That content already containing "&lt;" reads the
//     same as "<" is harmless: both mean "<" and neither can close a tag.
//
// Content is also normalised the way it always was: surrounding blank space
// trimmed, line breaks made "\n", trailing blanks of each line dropped. A
// one-line piece is written inline (<answer>No.</answer>); a longer one
// gets its tags on lines of their own.

// escapeData makes s unable to contain a tag; see above.
func escapeData(s string) string { return strings.ReplaceAll(s, "<", "&lt;") }

// data renders text as one delimited block, <tag>text</tag>. tag must be a
// lowercase word ("question", "answer", "reference", "chunk", or one of an
// override's own), so that it cannot break the markup either.
func data(tag, text string) (string, error) {
	if !validTag(tag) {
		return "", fmt.Errorf("data: %q is not a usable tag name; use a lowercase word such as \"answer\"", tag)
	}
	var b strings.Builder
	writeBlock(&b, tag, "", text)
	return b.String(), nil
}

// numbered renders statements as <statement n="1">…</statement> blocks, one
// per line. The judge must answer one entry per number; since the content
// cannot contain a tag, a statement cannot pose as a further item.
func numbered(items []string) string { return list("statement", items) }

// chunks renders ranked chunks as <chunk n="1">…</chunk> blocks, so reasons
// can cite a chunk by its number.
func chunks(items []string) string { return list("chunk", items) }

// facts numbers the reference's statements under a tag of their own, so
// that a prompt showing both lists keeps them apart.
func facts(items []string) string { return list("fact", items) }

// items renders a checklist's questions as <item n="1">…</item> blocks.
func items(xs []string) string { return list("item", xs) }

// levels renders a rubric's scale as <level score="1">…</level> blocks.
func levels(ls []Level) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			b.WriteByte('\n')
		}
		writeBlock(&b, "level", ` score="`+strconv.Itoa(l.Score)+`"`, l.Description)
	}
	return b.String()
}

// history renders a conversation's earlier turns as <user n="1">…</user>
// and <assistant n="1">…</assistant> blocks, n the turn, one per line.
// Flat blocks, not a <turn> holding others: a data block never holds a tag.
func history(turns []Turn) string { return conversation(turns, false) }

// sources is history with each turn's retrieved chunks after its answer,
// as <retrieved n="1">…</retrieved> blocks numbered by their turn: what a
// statement found support in is named by the turn it came from.
func sources(turns []Turn) string { return conversation(turns, true) }

func conversation(turns []Turn, withChunks bool) string {
	var b strings.Builder
	for _, t := range turns {
		n := ` n="` + strconv.Itoa(t.N) + `"`
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		writeBlock(&b, "user", n, t.User)
		b.WriteByte('\n')
		writeBlock(&b, "assistant", n, t.Assistant)
		if withChunks {
			for _, c := range t.Chunks {
				b.WriteByte('\n')
				writeBlock(&b, "retrieved", n, c)
			}
		}
	}
	return b.String()
}

func list(tag string, items []string) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		writeBlock(&b, tag, ` n="`+strconv.Itoa(i+1)+`"`, it)
	}
	return b.String()
}

func writeBlock(b *strings.Builder, tag, attrs, text string) {
	body := escapeData(normalize(text))
	b.WriteString("<" + tag + attrs + ">")
	if strings.Contains(body, "\n") {
		b.WriteString("\n" + body + "\n")
	} else {
		b.WriteString(body)
	}
	b.WriteString("</" + tag + ">")
}

func normalize(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}

func validTag(tag string) bool {
	if tag == "" || len(tag) > 32 || tag[0] < 'a' || tag[0] > 'z' {
		return false
	}
	for _, r := range tag {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' && r != '-' {
			return false
		}
	}
	return true
}
