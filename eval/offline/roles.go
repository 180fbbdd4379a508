package offline

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/phrase"
)

// Roles: a sentence that gives several parties a part each ("drafted by the
// Legal team, reviewed by Procurement and signed off by the CFO", "由法务部
// 起草，采购部审核，财务总监审批") has every word of a statement that swaps
// two of them, and coverage supports the swap. The sentence binds each
// party to its verb (package phrase); a statement that says one binding's
// verb and another binding's party, with neither the first party nor the
// second verb, gives the part to the wrong party.

// roleConflict: the statement (read with its question when it only names
// its answer) says the verb of one binding of the sentence and a party of
// another, and neither the first binding's parties nor the other's verb.
func roleConflict(st, q, cs *span) (string, bool) {
	// Parts are given by "by" or 由, 归, 经: most sentences have none.
	if st.hasHan != cs.hasHan || !strings.Contains(cs.text, " by ") && !strings.ContainsAny(cs.text, "由归经") {
		return "", false
	}
	roles := phrase.Roles(withReferent(cs))
	if roles == nil {
		return "", false
	}
	gap := ""
	if q != nil && answerOnly(st) {
		gap = phrase.GapPart(q.text)
	}
	says := func(verb string) bool {
		if containsHan(verb) {
			return strings.Contains(st.text, verb) || strings.Contains(gap, verb)
		}
		return phrase.SaysVerb(st.text, verb) || phrase.SaysVerb(gap, verb)
	}
	for _, a := range roles {
		if !says(a.Verb) || partyNamed(st, a) {
			continue
		}
		for _, b := range roles {
			if b.Verb == a.Verb || says(b.Verb) || !partyNamed(st, b) {
				continue
			}
			return fmt.Sprintf("the context gives %q and %q", a.Text, b.Text), true
		}
	}
	return "", false
}

// partyNamed: the statement names one of the binding's parties whole.
func partyNamed(st *span, r phrase.Role) bool {
	for _, p := range r.Parties {
		if containsHan(p) {
			if strings.Contains(st.text, p) || len([]rune(p)) > 4 && strings.Contains(st.text, string([]rune(p)[:3])) {
				return true
			}
			continue
		}
		all, words := true, 0 // a party of no words ("by 5%") names no one
		for _, w := range strings.Fields(p) {
			lw := strings.ToLower(w)
			if englishStop[lw] || !unicode.IsLetter([]rune(lw)[0]) {
				continue
			}
			words++
			if !st.feats["w:"+norm.Stem(lw)] {
				all = false
			}
		}
		if all && words > 0 {
			return true
		}
	}
	return false
}

// answerOnly: a statement short enough to be an answer that names only
// what fills the question's gap ("Neil Gaiman"): the question gives its verb.
func answerOnly(st *span) bool {
	if st.hasHan {
		return len([]rune(norm.StripFrame(st.text))) <= 8 // 答案是X。 is X
	}
	n := 0 // "The answer is X." is X: stop words do not count
	for _, w := range strings.Fields(strings.ToLower(st.text)) {
		if t := trimWord(w); t != "" && !englishStop[t] {
			n++
		}
	}
	return n <= 4
}
