package offline

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// A yes/no question about two things ("Are both X and Y American?", "Are
// X and Y both plants?") asks two propositions at once. Its "yes" is two
// statements, one for each (as RAGAS's statement step breaks an answer
// into atomic claims): one context sentence rarely names both, and each
// is checked where the context speaks of it. Its "no", and the "no" to
// any yes/no question, denies the proposition: the context supports a
// denial when it contradicts the proposition (or one of the two), a
// detector firing on a sentence that covers it; a context that merely
// does not say is no support for "no".

// conjuncts splits a yes/no proposition about two things into one
// proposition per thing: "both X and Y P" and "X and Y both P" give "X P"
// and "Y P". ok is false for any other proposition.
func conjuncts(prop string) (parts []string, ok bool) {
	x, y, p, ok := conjunctParts(prop)
	if !ok {
		return nil, false
	}
	return []string{x + " " + p, y + " " + p}, true
}

// conjunctParts are the two things and what is asked of both.
func conjunctParts(prop string) (x1, y1, p1 string, ok bool) {
	w := strings.Fields(prop)
	var x, y, p []string
	switch {
	case len(w) > 3 && strings.EqualFold(w[0], "both"):
		rest := w[1:]
		a := indexWord(rest, "and", 0)
		if a < 1 || a+1 >= len(rest) {
			return "", "", "", false
		}
		x = rest[:a]
		y, p = nameRun(rest[a+1:])
	default:
		b := indexWord(w, "both", 1)
		if b < 0 {
			// "X and Y Chilean": a nationality is asked of each; other
			// predicates without "both" may be asked of the two
			// together ("X and Y related").
			a := indexWord(w, "and", 1)
			if a < 1 || a+1 >= len(w) || !allCapitalised(w[:a]) {
				return "", "", "", false
			}
			y, p = nameRun(w[a+1:])
			if len(p) == 0 && len(y) > 1 && demonym(y[len(y)-1]) {
				y, p = y[:len(y)-1], y[len(y)-1:] // "… Bo Chen Chilean"
			}
			if len(p) == 0 || !demonym(p[0]) {
				return "", "", "", false
			}
			x = w[:a]
			break
		}
		a := -1
		for i := b - 1; i > 0; i-- {
			if strings.EqualFold(w[i], "and") {
				a = i
				break
			}
		}
		if a < 1 || a+1 >= b {
			return "", "", "", false
		}
		x, y, p = w[:a], w[a+1:b], w[b+1:]
	}
	if len(x) == 0 || len(y) == 0 || len(p) == 0 {
		return "", "", "", false
	}
	return strings.TrimRight(strings.Join(x, " "), ","), strings.TrimRight(strings.Join(y, " "), ","), strings.Join(p, " "), true
}

func allCapitalised(w []string) bool {
	for _, x := range w {
		if !capitalised(strings.Trim(x, ",")) {
			return false
		}
	}
	return true
}

// singularAux is the question's be or have for one of its two things
// ("Are X and Y both P?" -> "X is P"); do-auxiliaries and modals leave
// the verb that follows them to say it, and give "".
var singularAux = map[string]string{"are": "is", "is": "is", "were": "was", "was": "was", "have": "has", "has": "has", "had": "had"}

func indexWord(w []string, word string, from int) int {
	for i := from; i < len(w); i++ {
		if strings.EqualFold(w[i], word) {
			return i
		}
	}
	return -1
}

// nameParticles are the lowercase words inside one name: Kings of Leon,
// Band of Brothers, First for Women, Theo van Gogh.
var nameParticles = setOf("of", "for", "the", "de", "du", "da", "del", "della", "di", "la", "le", "van", "von", "der", "den", "y", "&")

// nameConnectors may join the capitalised words of a subject: one name's
// particles, and "and" between two names (Pam Veasey and Jon Jost).
var nameConnectors = func() map[string]bool {
	m := setOf("and")
	for k := range nameParticles {
		m[k] = true
	}
	return m
}()

// nameRun splits "Kings of Leon American rock bands" into the name it
// opens with and the rest. The name is the run of capitalised words (and
// connectors between them); a demonym at its end that the lowercase rest
// follows (American rock bands) opens the predicate instead.
func nameRun(w []string) (name, rest []string) {
	end := 0
	for i, x := range w {
		if capitalised(x) {
			end = i + 1
			continue
		}
		if !nameConnectors[strings.ToLower(x)] || i+1 >= len(w) || !capitalised(w[i+1]) {
			break
		}
	}
	if end == 0 {
		return nil, w
	}
	if end > 1 && end < len(w) && demonym(w[end-1]) {
		end--
	}
	return w[:end], w[end:]
}

func capitalised(w string) bool {
	for _, r := range w {
		return unicode.IsUpper(r)
	}
	return false
}

// demonym: American, Canadian, Chinese, English, Korean, Dutch... by the
// suffixes of English demonyms, and the common ones without them. A name
// that merely ends in -an (Corman, Gorman) is not one.
func demonym(w string) bool {
	lw := strings.ToLower(strings.Trim(w, ",."))
	if demonyms[lw] {
		return true
	}
	for _, suf := range []string{"ican", "ian", "ean", "ese", "ish"} {
		if len(lw) > len(suf)+2 && strings.HasSuffix(lw, suf) {
			return true
		}
	}
	return false
}

var demonyms = setOf("dutch", "french", "german", "greek", "thai", "swiss", "welsh", "irish", "british", "czech", "danish", "swedish", "polish", "turkish", "finnish")

// denialParts returns the propositions a statement of StatementsFor
// denies, when it is the denial of question's proposition (a bare "no"):
// the proposition, or its two conjuncts.
func denialParts(question, statement string) ([]string, bool) {
	aff, den, ok := proposition(question)
	if !ok {
		return nil, false
	}
	if containsHan(question) {
		if statement != "不，"+den {
			return nil, false
		}
		return []string{aff}, true
	}
	if statement != "No, "+den {
		return nil, false
	}
	if parts, ok := conjuncts(aff); ok {
		return parts, true
	}
	return []string{aff}, true
}

// verdict is the support test of one statement of an answer to question:
// support, except for the denial of the question's proposition, which is
// supported when the context contradicts it (see denialParts).
func verdict(statement, question string, q *span, sents []*span) Evidence {
	if ev, ok := sameEvidence(statement, q, sents); ok {
		return ev
	}
	if premise, ok := questionPremise(statement, q); ok {
		return Evidence{Verdict: 1, From: -1, Reason: fmt.Sprintf("repeats the question's own premise %q: the answer claims nothing by it", clip(premise))}
	}
	parts, ok := denialParts(question, statement)
	if !ok {
		return support(analyze(statement), q, sents)
	}
	var first Evidence
	for i, p := range parts {
		if ev, ok := nationalityConflict(p, sents); ok {
			ev.Verdict = 1
			ev.Reason = fmt.Sprintf("the context contradicts %q: %s", clip(p), ev.Reason)
			return ev
		}
		ev := support(analyze(p), q, sents)
		if ev.Detector == DetectorComparison || ev.Detector == DetectorValue || ev.Detector != "" && ev.Coverage >= SupportThreshold {
			ev.Verdict = 1
			ev.Reason = fmt.Sprintf("the context contradicts %q: %s", clip(p), ev.Reason)
			return ev
		}
		if i == 0 {
			first = ev
		}
	}
	first.Verdict, first.Detector = 0, ""
	first.Reason = fmt.Sprintf("no context sentence contradicts %q, which the answer denies; closest: %s", clip(strings.Join(parts, "; ")), first.Reason)
	return first
}

// questionPremise reports whether the statement repeats, word for word, a
// sentence of the question that is no question itself ("Ann Lee won the
// Harbour Prize in 2006. What is her name?" answered "Ann Lee won the
// Harbour Prize in 2006. Ann Lee is her name."): the question gives it,
// and the answer claims nothing by repeating it, as a restatement's
// premise is given (missingName). A premise of fewer than four words is
// too short to be one rather than a coincidence.
func questionPremise(statement string, q *span) (string, bool) {
	if q == nil {
		return "", false
	}
	premises := factsOf(q).premises
	if len(premises) == 0 {
		return "", false
	}
	st := normalizeWords(statement)
	if len(st) < 4 {
		return "", false
	}
	for _, p := range premises {
		if slices.Equal(p.words, st) {
			return p.text, true
		}
	}
	return "", false
}

// questionSentence is a sentence of a question that is no question, and
// its normalised words.
type questionSentence struct {
	text  string
	words []string
}

// premisesOf are a question's sentences that are no questions, cut at
// any full stop: a question that goes on in lower case ("… of "Chuck".
// what is her name?") is not one sentence.
func premisesOf(question string) []questionSentence {
	if !strings.ContainsAny(question, ".!;") {
		return nil
	}
	var out []questionSentence
	for _, qs := range strings.FieldsFunc(question, func(r rune) bool { return r == '.' || r == '!' || r == ';' }) {
		if !strings.Contains(qs, "?") {
			out = append(out, questionSentence{text: strings.TrimSpace(qs), words: normalizeWords(qs)})
		}
	}
	return out
}

// normalizeWords are a text's words, lowered, without punctuation.
func normalizeWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
