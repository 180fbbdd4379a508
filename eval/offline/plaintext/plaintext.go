// Package plaintext brings a text to what a reader sees as its words:
// control sequences and invisible characters stripped (StripControls),
// Markdown, citation markers and links not read as content (StripMarkup),
// and its sentences and the pieces they are cut into (Sentences: UAX #29,
// mended where it cuts after an initial, an abbreviation or a title).
package plaintext

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/ragscope/ragscope/internal/sanitize"
)

// StripControls removes from a text what a reader never sees: escape
// sequences, C0 and C1 controls but tab, newline and carriage return, DEL,
// bidi controls and invisible format characters (those sanitize shows as
// <U+...>), so a hostile escape cannot split or add a word. U+2028 and
// U+2029 become line breaks. An unterminated string sequence loses only its
// introducer.
func StripControls(s string) string {
	i := firstControl(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		if j := sanitize.SkipHidden(s, i); j > i {
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0x2028 || r == 0x2029 { // a line or paragraph separator is a line break
			b.WriteByte('\n')
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstControl is the offset of the first byte stripControls removes, or -1.
func firstControl(s string) int {
	for i, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r >= 0x7f && r < 0xa0 || sanitize.IsInvisible(r) {
			return i
		}
	}
	return -1
}

var (
	// [Source: handbook.pdf, p. 1], [1], [^2], 【1】: a citation's page number
	// would read as a quantity.
	citationRe = regexp.MustCompile(`\[(?:\^?\d+(?:\s*[,-]\s*\d+)*|(?i:source|sources|ref|reference|citation|doc|document|来源|出处|参考)\s*[:：][^\]]*)\]|【\d+】`)
	// [text](url) keeps its text; a bare URL is dropped.
	linkRe = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	urlRe  = regexp.MustCompile(`https?://\S+`)
	// LineMark is a list marker or heading at the start of a line.
	LineMark = regexp.MustCompile(`(?m)^[ \t]*(?:[-*+•]|\d{1,3}[.)]|#{1,6}|>)[ \t]+`)
)

// StripMarkup removes Markdown emphasis, list markers, headings, code
// ticks, links' targets, citation markers and table pipes from text, which
// is analysed; the text shown is not changed.
func StripMarkup(s string) string {
	if !strings.ContainsAny(s, "*_`#[]|>•【") && !strings.Contains(s, "http") && !hasLineMark(s) {
		return s
	}
	if strings.ContainsAny(s, "[【") {
		s = citationRe.ReplaceAllString(s, " ")
		s = linkRe.ReplaceAllString(s, "$1")
	}
	if strings.Contains(s, "http") {
		s = urlRe.ReplaceAllString(s, " ")
	}
	s = LineMark.ReplaceAllString(s, "")
	if strings.ContainsAny(s, "*`_") {
		s = strings.NewReplacer("**", "", "__", "", "`", "", "*", " ").Replace(s)
	}
	if strings.Contains(s, "|") {
		// A table cell boundary separates fields like a semicolon.
		s = strings.Trim(strings.TrimSpace(s), "|")
		s = strings.ReplaceAll(s, "|", ";")
	}
	return s
}

// hasLineMark: a line of s starts with a list marker, the cheap test.
func hasLineMark(s string) bool {
	for line := range strings.Lines(s) {
		t := strings.TrimLeft(line, " \t")
		i := 0
		for i < len(t) && i < 3 && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		if i+1 < len(t) && (t[i+1] == ' ' || t[i+1] == '\t') &&
			(i == 0 && (t[0] == '-' || t[0] == '+') || i > 0 && (t[i] == '.' || t[i] == ')')) {
			return true
		}
	}
	return false
}
