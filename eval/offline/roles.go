package offline

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/words"
	"github.com/ragscope/ragscope/internal/memo"
)

// Roles: a sentence that gives several parties a part each ("drafted by the
// Legal team, reviewed by Procurement and signed off by the CFO", "由法务部
// 起草，采购部审核，财务总监审批") has every word of a statement that swaps
// two of them, and coverage supports the swap. The sentence binds each
// party to its verb; a statement that says one binding's verb and another
// binding's party, with neither the first party nor the second verb, gives
// the part to the wrong party.

// maxRoles bounds the bindings read from one sentence: prose gives a few
// parts a sentence; more is a list.
const maxRoles = 16

// rolesOf memoises sentenceRoles: a sentence is the best match of many
// statements.
var rolesOf = memo.New[[]role](analysisCacheSize)

// role is a verb and the parties a sentence binds to it.
type role struct {
	verb    string   // a stem ("sign"), or two Han characters (审批)
	parties []string // each party as written
	text    string   // as written, for the reason
}

// sentenceRoles are the bindings of a context sentence: English
// "<participle> [off|up|out] by <party>[, <party>] [and <party>]", Chinese
// clauses "[由|归|经]<party><verb>" of two or more parts.
func sentenceRoles(text string) []role {
	if containsHan(text) {
		return chineseRoles(text)
	}
	ws := strings.Fields(text)
	var out []role
	for i := 0; i+2 < len(ws) && len(out) < maxRoles; i++ {
		w := strings.ToLower(trimWord(ws[i]))
		by := i + 1
		if by < len(ws) && roleParticles[strings.ToLower(trimWord(ws[by]))] {
			by++
		}
		if !pastForm(w) || by+1 >= len(ws) || strings.ToLower(ws[by]) != "by" {
			continue
		}
		r := role{verb: verbStem(w)}
		var party []string
		flush := func() {
			if len(party) > 0 {
				r.parties = append(r.parties, strings.Join(party, " "))
			}
			party = nil
		}
		for k := by + 1; k < len(ws) && len(party) < 5; k++ {
			t := trimWord(ws[k])
			lt := strings.ToLower(t)
			if lt == "and" || lt == "or" {
				flush()
				if k+1 < len(ws) && pastForm(strings.ToLower(trimWord(ws[k+1]))) {
					break // the next binding
				}
				continue
			}
			if t == "" || pastForm(lt) {
				break
			}
			if !englishDeterminers[lt] {
				party = append(party, t)
			}
			if strings.ContainsAny(ws[k][len(ws[k])-1:], ",;:.") {
				if strings.HasSuffix(ws[k], ",") {
					flush()
					continue
				}
				break
			}
		}
		flush()
		if len(r.parties) > 0 {
			r.text = strings.Join(ws[i:by+1], " ") + " " + strings.Join(r.parties, ", ")
			out = append(out, r)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

var roleParticles = map[string]bool{"off": true, "up": true, "out": true, "over": true}

var irregularVerbs = words.Map("irregular_verbs")

func pastForm(w string) bool { return participle(w) || irregularVerbs[w] != "" }

// verbStem is the stem of a verb's word, an irregular form read as its verb.
func verbStem(w string) string {
	if base := irregularVerbs[w]; base != "" {
		return norm.Stem(base)
	}
	return norm.Stem(w)
}

// saysVerb: a word of the text is of the verb (pays and paid of pay).
func saysVerb(text, verb string) bool {
	for _, w := range strings.Fields(strings.ToLower(text)) {
		if verbStem(trimWord(w)) == verb {
			return true
		}
	}
	return false
}

// A Chinese binding is a clause that names its party after 由, 归 or 经, or
// one that follows such a clause in the same list of parts.
func chineseRoles(text string) []role {
	var out []role
	inList := false
	for _, c := range strings.FieldsFunc(text, func(r rune) bool { return isClausePunct(r) || r == '、' }) {
		rs := []rune(strings.TrimSpace(c))
		if len(rs) < 4 || !isHan(rs[len(rs)-1]) || !isHan(rs[len(rs)-2]) {
			inList = false
			continue
		}
		verb := string(rs[len(rs)-2:])
		party := rs[:len(rs)-2]
		marked := false
		for i := len(party) - 1; i >= 0; i-- {
			if strings.ContainsRune("由归经", party[i]) {
				party, marked = party[i+1:], true
				break
			}
		}
		if !marked && !inList || len(party) < 2 || len(party) > 8 || !isHan(party[0]) {
			inList = false
			continue
		}
		inList = true
		out = append(out, role{verb: verb, parties: []string{string(party)}, text: string(rs)})
		if len(out) == maxRoles {
			break
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// roleConflict: the statement (read with its question when it only names
// its answer) says the verb of one binding of the sentence and a party of
// another, and neither the first binding's parties nor the other's verb.
func roleConflict(st, q, cs *span, answerOnly bool) (string, bool) {
	if st.hasHan != cs.hasHan {
		return "", false
	}
	roles := rolesOf.Get(withReferent(cs), sentenceRoles)
	if roles == nil {
		return "", false
	}
	gap := ""
	if answerOnly && q != nil {
		gap = gapPart(q.text)
	}
	says := func(verb string) bool {
		if containsHan(verb) {
			return strings.Contains(st.text, verb) || strings.Contains(gap, verb)
		}
		return saysVerb(st.text, verb) || saysVerb(gap, verb)
	}
	for _, a := range roles {
		if !says(a.verb) || partyNamed(st, a) {
			continue
		}
		for _, b := range roles {
			if b.verb == a.verb || says(b.verb) || !partyNamed(st, b) {
				continue
			}
			return fmt.Sprintf("the context gives %q and %q", a.text, b.text), true
		}
	}
	return "", false
}

// partyNamed: the statement names one of the binding's parties whole.
func partyNamed(st *span, r role) bool {
	for _, p := range r.parties {
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

// gapPart is the part of a question that its answer fills: the words next
// to its wh-word ("directed by who", "who wrote", "由谁审批"), so that a
// bare answer is read with the question's verb and not its premises' ("he
// wrote the screenplay for Beowulf, directed by who?"). The whole question
// when no wh-word is found.
func gapPart(question string) string {
	if containsHan(question) {
		if i := strings.Index(question, "谁"); i >= 0 {
			rs := []rune(question[i+len("谁"):])
			return string(rs[:min(len(rs), 4)])
		}
		return question
	}
	ws := strings.Fields(strings.ToLower(question))
	for i, w := range ws {
		switch trimWord(w) {
		case "who", "whom", "what", "which":
			lo, hi := max(0, i-2), min(len(ws), i+3)
			return strings.Join(ws[lo:hi], " ")
		}
	}
	return question
}
