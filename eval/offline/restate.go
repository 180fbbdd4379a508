package offline

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/phrase"
	"github.com/ragscope/ragscope/internal/memo"
)

// RestateShare is the least share of the question's content a statement
// must repeat to restate it ("The CEO of X in 2021 is A.").
const RestateShare = 0.7

// RestateEcho is how many of the question's words a sentence that gives a
// restatement's answer repeats to be about what the question asks, when no
// name links it to the premise ("The club plays its home matches at ..."
// for "... a club that plays its home matches where?").
const RestateEcho = 4

// restates reports whether the statement restates a question that
// presupposes its content around an answer of its own.
func restates(st, q *span) bool {
	return q != nil && factsOf(q).presupposes && repeats(st, q, "")
}

// repeats: the statement has RestateShare of the question's features that
// open on prefix.
func repeats(st, q *span, prefix string) bool {
	n, in := 0, 0
	for f := range q.feats {
		if strings.HasPrefix(f, prefix) {
			n++
			if st.feats[f] {
				in++
			}
		}
	}
	return n > 0 && float64(in) >= RestateShare*float64(n)
}

// questionFacts are what the support test asks of a question, per text.
type questionFacts struct {
	presupposes bool
	stems       []string // stems of its text, for namedAsWritten
	kind        []string // what a which/what question asks for (phrase.AnswerType)
}

// factsOf is q's questionFacts, memoised and shared.
func factsOf(q *span) *questionFacts {
	return questions.Get(q.text, func(text string) *questionFacts {
		return &questionFacts{presupposes: phrase.Presupposes(text), stems: phrase.Stems(text), kind: phrase.AnswerType(text)}
	})
}

var questions = memo.New[*questionFacts](analysisCacheSize)

// residual is what a statement that restates the question adds to it: its
// words, in order, less the question's ("The director of the 2003 film ...
// is Todd Phillips." -> "Todd Phillips"), to check as a short answer; ""
// when it is no restatement or adds nothing.
func residual(st, q *span) string {
	if st.residue || st.hasHan || !restates(st, q) {
		return ""
	}
	words := strings.Fields(st.text)
	keep := make([]bool, len(words))
	for i, w := range words {
		for k := range analyzeText(w).feats { // one word: not worth a place in the cache
			keep[i] = keep[i] || !q.feats[k] && !q.unis[k]
		}
	}
	phrase.KeepNamesWhole(words, keep)
	// A word the question writes as it is, at the end of a kept run, is the
	// question's ("California US" of "in California US state" for "in which
	// US state?").
	asked := phrase.WordsOf(q.text)
	for i := len(words) - 1; i > 0; i-- {
		if keep[i] && keep[i-1] && (i+1 == len(words) || !keep[i+1]) && asked[phrase.TrimWord(words[i])] {
			keep[i] = false
		}
	}
	var kept []string
	for i, w := range words {
		if keep[i] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 || len(kept) == len(words) {
		return ""
	}
	return strings.TrimRight(strings.Join(kept, " "), ".,;:!? ")
}

// namedAsWritten returns the first name of two or more words of the text
// that neither the sentence nor the question writes as one, nor one of the
// whole names the sentence uses by their head: words of two names ("Rainbow
// Estate" from "Rainbow Terrace ... Lullwater Estate") make a hallucinated
// one.
func namedAsWritten(text, sentence string, q *span, whole ...string) (string, bool) {
	runs := phrase.NameRuns(text)
	if len(runs) == 0 {
		return "", true
	}
	seq := phrase.Stems(sentence)
	var qseq []string
	if q != nil {
		qseq = factsOf(q).stems
	}
	for _, r := range runs {
		rs := phrase.Stems(r)
		if !phrase.ContainsSeq(seq, rs) && !phrase.ContainsSeq(qseq, rs) && !slices.ContainsFunc(whole, func(w string) bool { return phrase.ContainsSeq(phrase.Stems(w), rs) }) {
			return r, false
		}
	}
	return "", true
}

// residualSupport tests a restating statement's residual as a short answer:
// supported by a sentence that supports it, writes its names as one, and
// names (or its pronoun stands for) a name of the question the statement
// repeats and the contexts mention, is linked to one that does, or repeats
// RestateEcho words of the question.
func residualSupport(st, q *span, sents []*span) (Evidence, bool) {
	r := residual(st, q)
	if r == "" {
		return Evidence{}, false
	}
	// A stop word before the residual keeps its first word a name.
	rsp := analyzeText("and " + r) // a span of its own: residue is set on it
	rsp.residue = true
	var premise []string
	for _, n := range q.names {
		if st.feats[n.feat] && slices.ContainsFunc(sents, func(cs *span) bool { return cs.feats[n.feat] }) {
			premise = append(premise, n.feat)
		}
	}
	// the sentences linked to the premise, read once when needed
	linkedOnce := sync.OnceValue(func() map[*span]bool { return linked(sents, premise) })
	for i, a := range sents {
		ev := support(rsp, q, sents[i:i+1])
		if ev.Verdict != 1 || !aboutAny(a, premise) && !linkedOnce()[a] && overlap(q.feats, a.feats) < RestateEcho {
			continue
		}
		if _, ok := namedAsWritten(r, a.text, q); !ok || !lowercaseIn(r, a.text) || !ofItsKind(r, q, a) || inAnotherRole(st, q, rsp, a, r, sents, linkedOnce) {
			continue
		}
		if _, ok := clauseConflict(st, q, a); ok {
			continue
		}
		ev.From = i
		ev.Reason = fmt.Sprintf("restates the question around %q: context says %q (coverage %.2f)", clip(r), clip(a.text), ev.Coverage)
		return ev, true
	}
	return Evidence{}, false
}

// lowercaseIn: no lowercase word of the residual is one the sentence writes
// only capitalised, as a word of a name ("played brother" is not in "the
// series Band of Brothers, playing ..."); its first word is capitalised by
// its place.
func lowercaseIn(residual, sentence string) bool {
	lower, upper := map[string]bool{}, map[string]bool{}
	for i, w := range strings.Fields(sentence) {
		if t := phrase.TrimWord(w); t != "" && i > 0 {
			m := lower
			if phrase.Capitalised(t) {
				m = upper
			}
			m[norm.Stem(strings.ToLower(t))] = true
		}
	}
	for _, w := range strings.Fields(residual) {
		t := phrase.TrimWord(w)
		if s := norm.Stem(strings.ToLower(t)); t != "" && !phrase.Capitalised(t) && upper[s] && !lower[s] {
			return false
		}
	}
	return true
}

// inAnotherRole reports whether a residual found in sentence a stands
// there in another role: a does not say the word that ties the residual
// to the statement, and a sentence of the chain (about the premise, or
// linked to it) that does not name the residual ties another answer of
// its kind by that word, one a does not name ("produced by A" beside
// "distributed by B"; "a scientist at X University" is a step to "a
// scientist in Y County" when the answer's sentence names X).
func inAnotherRole(st, q, rsp, a *span, residual string, sents []*span, chain func() map[*span]bool) bool {
	rel := phrase.RelationWord(st.text, residual)
	if rel == "" || a.feats["w:"+rel] {
		return false
	}
	number := strings.ContainsFunc(residual, unicode.IsDigit)
	skip := func(w string) bool { return q.feats["w:"+norm.Stem(strings.ToLower(w))] }
	aStems := phrase.Stems(a.text)
	for _, b := range sents {
		if !chain()[b] || !b.feats["w:"+rel] || overlap(rsp.feats, b.feats) == len(rsp.feats) {
			continue
		}
		if other := phrase.TiedBy(b.text, rel, number, skip); other != "" && !slices.Contains(aStems, norm.Stem(strings.ToLower(other))) {
			return true
		}
	}
	return false
}

// aboutAny reports whether the sentence or its referent has one of the
// features; true when there are none.
func aboutAny(cs *span, feats []string) bool {
	return len(feats) == 0 || slices.ContainsFunc(feats, func(f string) bool { return cs.feats[f] || cs.refFeats[f] })
}

// linked are the sentences about the premise and those reached from them in
// at most linkHops hops between two that name one thing (phrase.Links), each
// with its paragraph's run (runHead; a table's next row is another's).
func linked(sents []*span, premise []string) map[*span]bool {
	mentions := make(map[*span]phrase.Mentions, len(sents))
	for _, sp := range sents {
		mentions[sp] = phrase.MentionsOf(sp.text)
	}
	reached := map[*span]bool{}
	reach := func(c *span, to []*span) []*span {
		head := runHead(c)
		for d := head; d != nil && (d == head || d.prose && !mentions[d].OpensOnName()); d = d.next {
			if !reached[d] {
				reached[d] = true
				to = append(to, d)
			}
		}
		return to
	}
	var frontier []*span
	for _, b := range sents {
		if aboutAny(b, premise) {
			frontier = reach(b, frontier)
		}
	}
	budget := maxLinkPairs
	for hop := 0; hop < linkHops && len(frontier) > 0; hop++ {
		var next []*span
		for _, b := range frontier {
			for _, c := range sents {
				if reached[c] {
					continue
				}
				if budget--; budget < 0 {
					return reached
				}
				if phrase.Links(mentions[b], mentions[c]) {
					next = reach(c, next)
				}
			}
		}
		frontier = next
	}
	return reached
}

// runHead is the sentence that opens a prose sentence's run (the package doc).
func runHead(c *span) *span {
	for c.prose && c.prev != nil && !phrase.MentionsOf(c.text).OpensOnName() {
		c = c.prev
	}
	return c
}

const (
	linkHops     = 2    // from the premise's sentence to the answer's
	maxLinkPairs = 4096 // pairs of sentences linked compares
)

// ofItsKind reports whether the residual may be what the question asks
// for in its sentence: true unless the sentence names another thing as of
// the kind the question asks ("which animated series ...": "performed on
// Quay Street" in a sentence about "the animated series South Park";
// "Target is the second-largest retailer, behind Walmart") and not the
// residual.
func ofItsKind(residual string, q, a *span) bool {
	kind := factsOf(q).kind
	typed := phrase.TypedNames(a.text, kind)
	if len(typed) == 0 {
		return true
	}
	rs := slices.DeleteFunc(phrase.Stems(residual), func(s string) bool { return slices.Contains(kind, s) })
	return slices.ContainsFunc(typed, func(n string) bool {
		ns := slices.DeleteFunc(phrase.Stems(n), func(s string) bool { return s == "the" || slices.Contains(kind, s) })
		return len(ns) > 0 && len(rs) > 0 && (phrase.ContainsSeq(ns, rs) || phrase.ContainsSeq(rs, ns))
	})
}
