package plaintext

import (
	"slices"
	"strings"
	"unicode"

	"github.com/ragscope/ragscope/eval/offline/words"
)

// minClauseRunes is the least content (contentRunes) a Chinese clause needs
// to stand as a claim of its own: shorter ones ("会的") are fragments,
// merged into their neighbour.
const minClauseRunes = 6

// minStatementRunes: a claim with less content ("No.", "不会。") is merged
// into the next one (the previous when last); a lone one stays.
const minStatementRunes = 3

// subordinateEnds and subordinateStarts mark a Chinese clause that only sets
// the scene for the next one (转为一般纳税人后, 根据公司制度, 如果...).
var (
	subordinateEnds   = words.List("subordinate_ends")
	subordinateStarts = words.List("subordinate_starts")
)

// Claims splits a text into claims: sentences by UAX #29, cut at
// semicolons and line breaks, Chinese ones at commas (an English comma more
// often sets off an apposition), short or subordinate clauses, and those
// holdBack holds, merged into their neighbour.
func Claims(text string, holdBack func(string) bool) []string {
	var out []string
	sents, _ := Sentences(text)
	for _, sent := range sents {
		if !strings.ContainsFunc(sent, isHan) {
			out = append(out, splitEnglish(sent)...)
			continue
		}
		out = append(out, mergeForward(ContentPieces(sent, "，,"), "，",
			func(c string) bool { return contentRunes(c) < minClauseRunes || isSubordinate(c) || holdBack(c) },
			func(c string) bool { return contentRunes(c) < minClauseRunes })...)
	}
	tooShort := func(s string) bool { return contentRunes(s) < minStatementRunes }
	return mergeForward(out, " ", tooShort, tooShort)
}

// mergeForward joins with sep each piece holdBack holds onto the next, and
// a last piece lastTooShort holds onto the one before.
func mergeForward(pieces []string, sep string, holdBack, lastTooShort func(string) bool) []string {
	var out []string
	pending := ""
	for i, p := range pieces {
		if pending != "" {
			p = pending + sep + p
			pending = ""
		}
		if i+1 < len(pieces) && holdBack(p) {
			pending = p
			continue
		}
		out = append(out, p)
	}
	if n := len(out); n >= 2 && lastTooShort(out[n-1]) {
		out[n-2] += sep + out[n-1]
		out = out[:n-1]
	}
	return out
}

// englishJoins are where an English sentence is cut when both sides are
// claims of their own: a comma and a conjunction, or a semicolon.
var englishJoins = func() []string {
	var out []string
	for _, w := range words.List("english_joins") {
		out = append(out, ", "+w+" ")
	}
	return append(out, "; ")
}()

// minEnglishClauseWords is the least words each side of a joint needs.
const minEnglishClauseWords = 4

func splitEnglish(sent string) []string {
	for _, j := range englishJoins {
		for from := 0; from < len(sent); {
			k := indexFold(sent[from:], j)
			if k < 0 {
				break
			}
			i := from + k
			from = i + len(j)
			left, right := strings.TrimSpace(sent[:i]), strings.TrimSpace(sent[i+len(j):])
			if len(strings.Fields(left)) >= minEnglishClauseWords && len(strings.Fields(right)) >= minEnglishClauseWords && !(closesList(j) && endsList(left)) {
				return append([]string{left}, splitEnglish(right)...)
			}
		}
	}
	return []string{sent}
}

// maxListItemWords: a left side whose last comma-separated piece is this
// short ends a list ("an actress, dancer, and singer"), not a claim.
const maxListItemWords = 2

// endsList reports whether the text before a joint ends on an item of a
// list: a comma, then at most maxListItemWords words and no number (a
// date's year, "September 3, 2024", is none).
func endsList(left string) bool {
	c := strings.LastIndexByte(left, ',')
	return c >= 0 && len(strings.Fields(left[c+1:])) <= maxListItemWords && !strings.ContainsFunc(left[c+1:], unicode.IsDigit)
}

// closesList: the joint's word is one that closes a list ("and", "or").
func closesList(joint string) bool { return joint == ", and " || joint == ", or " }

func isSubordinate(c string) bool {
	plain := strings.TrimRight(c, "。！？!?.")
	return slices.ContainsFunc(subordinateEnds, func(e string) bool { return strings.HasSuffix(plain, e) }) ||
		slices.ContainsFunc(subordinateStarts, func(s string) bool { return strings.HasPrefix(plain, s) })
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// contentRunes counts Han characters, and a Latin word as two (a Chinese word).
func contentRunes(s string) int {
	n := 0
	inWord := false
	for _, r := range s {
		switch {
		case isHan(r):
			n++
			inWord = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !inWord {
				n += 2
			}
			inWord = true
		default:
			inWord = false
		}
	}
	return n
}

// indexFold is the byte offset of sub in s, ignoring case, or -1; offsets in
// strings.ToLower(s) are not offsets in s (a Kelvin sign changes length).
func indexFold(s, sub string) int {
	for i := range s {
		if i+len(sub) <= len(s) && strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
