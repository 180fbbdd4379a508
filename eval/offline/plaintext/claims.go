package plaintext

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

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
		if !strings.ContainsFunc(sent, IsHan) {
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
			if len(strings.Fields(left)) >= minEnglishClauseWords && len(strings.Fields(right)) >= minEnglishClauseWords && !((j == ", and " || j == ", or ") && endsList(left)) {
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

func isSubordinate(c string) bool {
	plain := strings.TrimRight(c, "。！？!?.")
	return slices.ContainsFunc(subordinateEnds, func(e string) bool { return strings.HasSuffix(plain, e) }) ||
		slices.ContainsFunc(subordinateStarts, func(s string) bool { return strings.HasPrefix(plain, s) })
}

// IsHan: r is a Chinese character.
func IsHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// contentRunes counts Han characters, and a Latin word as two (a Chinese word).
func contentRunes(s string) int {
	n := 0
	inWord := false
	for _, r := range s {
		switch {
		case IsHan(r):
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

// maxSubjectWords bounds the subject a nested clause is said of.
const maxSubjectWords = 8

// Unnest reads a claim whose subject carries a claim of its own, set off by
// commas, as the two it makes (one claim when it has none): a non-restrictive relative clause ("Arthur
// Venn, who took over the works in 1899, studied at the Dunmore Institute"
// is "Arthur Venn took over the works in 1899" and "Arthur Venn studied at
// the Dunmore Institute") or an apposition ("Old Margery, the ichthyosaur
// at the museum, was found by Harold Blythe": "Old Margery is the
// ichthyosaur at the museum"; "X, founded by Y, …": "X was founded by Y").
// The subject is the claim's opening, up to its first comma, and the
// predicate after the second opens on a lowercase word.
func Unnest(claim string) []string {
	subject, rest, _ := strings.Cut(claim, ", ")
	inner, pred, ok := strings.Cut(rest, ", ") // rest is "" without a first comma
	sw, iw, pw := strings.Fields(subject), strings.Fields(inner), strings.Fields(pred)
	if !ok || len(sw) == 0 || len(sw) > maxSubjectWords || len(iw) < 2 || len(pw) < 2 || !verbLike(pw[0]) || !capitalStart(sw[0]) {
		return []string{claim}
	}
	if w := strings.ToLower(sw[0]); len(sw) == 1 && (sentenceAdverbs[w] || strings.HasSuffix(w, "ly")) || sw[0] != strings.TrimRight(sw[0], ":;") {
		return []string{claim} // "However, the passage …", "Yes, …"
	}
	var nested string
	switch lw := strings.ToLower(iw[0]); {
	case lw == "who" || lw == "which":
		nested = subject + " " + strings.Join(iw[1:], " ")
	case lw == "the" || lw == "a" || lw == "an":
		nested = subject + " is " + inner
	case strings.HasSuffix(lw, "ed") && len(iw) > 1 && strings.ToLower(iw[1]) == "by":
		nested = subject + " was " + inner
	case len(iw) > 1 && lowerStart(iw[0]) && (iw[1] == "of" || iw[1] == "to"):
		nested = subject + " is " + inner
	default:
		return []string{claim}
	}
	return []string{nested, subject + " " + pred}
}

// sentenceAdverbs open a sentence before a comma without being its subject.
var sentenceAdverbs = words.Set("sentence_adverbs")

// verbLike: the predicate after a nested clause opens on what reads as a
// verb (an auxiliary, a past or third-person form: "was", "learned",
// "came", "has", "runs"), not on the next item of a list ("an actor,
// filmmaker, and author, was born …").
func verbLike(w string) bool {
	if !lowerStart(w) {
		return false
	}
	w = strings.ToLower(strings.Trim(w, ",.;:"))
	return auxiliaries[w] || strings.HasSuffix(w, "ed") || pastForms[w] || strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss")
}

var (
	auxiliaries = words.Set("english_question_aux")
	pastForms   = words.Set("past_forms")
)

func lowerStart(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsLower(r)
}

func capitalStart(w string) bool {
	r, _ := utf8.DecodeRuneInString(strings.TrimLeft(w, "'\"‘“"))
	return unicode.IsUpper(r)
}
