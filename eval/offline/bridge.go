package offline

import (
	"fmt"
	"maps"
	"strings"
)

// Bridged support of a statement that restates a multi-hop question.
//
// "Who represents the district that Elmfield is in?" is answered in two
// hops: one sentence puts Elmfield in Carrow, another says who
// represents Carrow. The restating statement "Mara Quill represents the
// district that Elmfield is in." has its words in two sentences, and no
// one sentence covers it: the one that names Mara Quill does not name
// Elmfield (HaluEval's knowledge joins two such paragraphs). A statement
// that restates the question (restates) may be supported by two sentences
// together when
//
//   - one of them, the answer sentence, has on its own what the statement
//     adds to the question (SupportThreshold of it): the claim is still
//     checked in one sentence, so the question's words around a true fact
//     from elsewhere do not make it an answer;
//   - the other names something of the question and is joined to the
//     answer sentence by a bridge: a name both mention (Carrow), or one
//     is the sentence next to the other in its chunk and continues its
//     subject with a pronoun ("He chaired the ceremony");
//   - an answer sentence that itself names something of the question is
//     about one of its things, not a second hop: the other sentence is
//     about another thing and must say what the statement adds too
//     ("Harbour Airport and Quay Air are based in Canada" needs Canada
//     in both);
//   - the two together cover SupportThreshold of the statement and
//     mention each name it adds to the question; the question's own
//     names are its premises, given once the answer sentence is linked
//     to the question (a multi-hop question names the things of every
//     hop, in sentences of their own);
//   - neither the negation nor the number detector fires on the answer
//     sentence.
//
// Chinese statements keep the one-sentence rule: names are what ties the
// two sentences, and a Chinese text has no capitalised names to find.

// bridged returns the evidence of the best bridged support of a statement
// that restates the question, or ok false when there is none.
func bridged(st, q *span, sents []*span) (ev Evidence, ok bool) {
	if st.hasHan || !restates(st, q) {
		return Evidence{}, false
	}
	var added []string
	for f := range st.feats {
		if !(q.feats[f] || q.unis[f]) || comparativeFeats[f] {
			added = append(added, f)
		}
	}
	if len(added) == 0 {
		return Evidence{}, false
	}
	qNames := questionNames(q)
	says := func(cs *span) bool {
		in := 0
		for _, f := range added {
			if cs.feats[f] {
				in++
			}
		}
		return float64(in) >= SupportThreshold*float64(len(added))
	}
	best, bestB, bestCov := -1, -1, -1.0
	tried := 0
	for i, a := range sents {
		if !says(a) {
			continue
		}
		// Each answer sentence is paired with every other: the first
		// few decide, or a context that says the answer in thousands of
		// sentences would cost their square (maxResidualCandidates).
		if tried++; tried > maxResidualCandidates {
			break
		}
		named := hasAny(a.feats, qNames)
		for j, b := range sents {
			if j == i || !hasAny(b.feats, qNames) {
				continue
			}
			if named {
				if !says(b) || !sharesName(a, b) {
					continue
				}
			} else if !sharesName(a, b) && !continues(a, b) {
				continue
			}
			if cov := coverage(st, q, union(a, b), false); cov > bestCov {
				best, bestB, bestCov = i, j, cov
			}
		}
	}
	if best < 0 || bestCov < SupportThreshold {
		return Evidence{}, false
	}
	a, b := sents[best], sents[bestB]
	if _, _, neg := negationConflict(st, a); neg {
		return Evidence{}, false
	}
	if _, conflict := numberConflict(st, q, a, sents, true); conflict {
		return Evidence{}, false
	}
	for _, n := range st.names {
		if !a.feats[n.feat] && !b.feats[n.feat] && !q.feats[n.feat] {
			return Evidence{}, false
		}
	}
	return Evidence{Verdict: 1, Coverage: bestCov, Quote: a.text, From: best,
		Reason: fmt.Sprintf("context says %q, bridged to the question by %q (coverage %.2f)", clip(a.text), clip(b.text), bestCov)}, true
}

// questionNames are the features of the question's names. analyze does
// not take a sentence's capitalised first word for a name, but a
// question that opens on one ("Jinchang and Liling are in which
// country?") names it all the same.
func questionNames(q *span) map[string]bool {
	out := map[string]bool{}
	for _, n := range q.names {
		out[n.feat] = true
	}
	if w := strings.Fields(q.text); len(w) > 0 && capitalised(w[0]) && !strings.HasSuffix(strings.ToLower(w[0]), "ly") {
		for f := range analyze(w[0]).feats {
			out[f] = true
		}
	}
	return out
}

// sharesName reports whether a and b mention the same name: a name of
// one is a word of the other.
func sharesName(a, b *span) bool {
	for _, n := range a.names {
		if b.feats[n.feat] {
			return true
		}
	}
	for _, n := range b.names {
		if a.feats[n.feat] {
			return true
		}
	}
	return false
}

func hasAny(m, keys map[string]bool) bool {
	for k := range keys {
		if m[k] {
			return true
		}
	}
	return false
}

// union is two sentences' features together, for coverage.
func union(a, b *span) *span {
	f := make(map[string]bool, len(a.feats)+len(b.feats))
	maps.Copy(f, a.feats)
	maps.Copy(f, b.feats)
	var comps map[string]bool
	if len(a.comps)+len(b.comps) > 0 {
		comps = map[string]bool{}
		maps.Copy(comps, a.comps)
		maps.Copy(comps, b.comps)
	}
	return &span{feats: f, comps: comps}
}

// continues reports whether one of a and b is the sentence right after
// the other in its chunk and opens with a pronoun that refers back to it.
func continues(a, b *span) bool {
	return a.prev == b && (a.pronoun || a.ref != "") || a.next == b && (b.pronoun || b.ref != "")
}
