// Package plaintext brings a text to what a reader sees as its words:
// control sequences and invisible characters stripped (StripControls),
// Markdown, citation markers and links not read as content (StripMarkup).
package plaintext

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/ragscope/ragscope/internal/sanitize"
)

// StripControls removes from a text what a reader never sees as text: ANSI
// escape sequences (CSI such as ESC [ 31 m, OSC such as the clipboard write
// ESC ] 52 ; ... BEL, DCS, SOS, PM and APC strings, and the short ESC
// sequences), their one-rune C1 forms (U+009B CSI, U+009D OSC ...), every
// other C0 and C1 control but tab, newline and carriage return, DEL, the
// bidi controls and the zero-width and other invisible format characters
// that sanitize shows as <U+...>. The analysis then sees the words a
// terminal would show, so a hostile escape neither splits a word ("Par" ESC
// [31m "is") nor adds one (the 31 of the sequence read as a number), and
// cannot change a verdict. U+2028 and U+2029 become line breaks. A text
// without any of these is returned as it is.
//
// A string sequence (OSC, DCS ...) without its terminator loses only its
// introducer: what follows is the rest of the text, not the sequence, for
// every reader that does not execute it.
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
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r >= 0x80 && r < 0xa0) || sanitize.IsInvisible(r) {
			return i
		}
		i += size
	}
	return -1
}

// What the analysis does not read as content: Markdown markup, citation
// markers and answer frames. They are stripped from the text analysed; the
// text shown (statements, quotes) is not changed, so a quote is still found
// in its chunk.

var (
	// [Source: handbook.pdf, p. 1], [1], [^2], 【1】: a citation says where a
	// claim comes from, not what it claims, and its page number would read
	// as a quantity the context does not give.
	citationRe = regexp.MustCompile(`\[(?:\^?\d+(?:\s*[,-]\s*\d+)*|(?i:source|sources|ref|reference|citation|doc|document|来源|出处|参考)\s*[:：][^\]]*)\]|【\d+】`)
	// [text](url) keeps its text; a bare URL is dropped.
	linkRe = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	urlRe  = regexp.MustCompile(`https?://\S+`)
	// LineMark is a list marker or heading at the start of a line: "*   ", "- ", "1. ",
	// "### ", "> ".
	LineMark = regexp.MustCompile(`(?m)^[ \t]*(?:[-*+•]|\d{1,3}[.)]|#{1,6}|>)[ \t]+`)
)

// StripMarkup removes Markdown emphasis, list markers, headings, code
// ticks, links' targets, citation markers and table pipes from text. Text
// without any of their characters is returned as it is, without a copy.
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

// hasLineMark reports whether a line of s starts with a list marker
// ("- ", "+ ", "1. "), the cheap test before the regular expression.
func hasLineMark(s string) bool {
	for {
		t := strings.TrimLeft(s, " \t")
		i := 0
		for i < len(t) && i < 3 && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		if i+1 < len(t) && (t[i+1] == ' ' || t[i+1] == '\t') &&
			(i == 0 && (t[0] == '-' || t[0] == '+') || i > 0 && (t[i] == '.' || t[i] == ')')) {
			return true
		}
		nl := strings.IndexByte(s, '\n')
		if nl < 0 {
			return false
		}
		s = s[nl+1:]
	}
}
