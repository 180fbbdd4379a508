package offline

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval/offline/phrase"
)

// hanAnswerConflict: a Chinese statement that restates the question around
// an answer of its own (谢婉婷 of "江岸博物馆的首任馆长是谢婉婷" for "…的首任馆长是谁")
// finds that answer in a best sentence without the words the statement
// ties it by, those within HanTieRunes of it (首任馆长 against "现任馆长为文物学者
// 谢婉婷"), while a clause of another sentence says all of them of another
// ("首任馆长由…郭振华出任"): the answer stands there in another role.
func hanAnswerConflict(st, q, best *span, sents []*span) (string, bool) {
	// The statement writes RestateShare of the question's pairs of
	// characters. Unlike restates, the question's form is not asked about and
	// only pairs of characters count (restates here cost held-out -105 a pair).
	if q == nil || !st.hasHan || !q.hasHan || !repeats(st, q, "h:") {
		return "", false
	}
	rs := []rune(st.text)
	start, end := hanAnswer(rs, q.text)
	if end-start < 2 {
		return "", false
	}
	answer := string(rs[start:end])
	rel := hanBigrams(string(rs[max(0, start-HanTieRunes):start]) + "|" + string(rs[end:min(len(rs), end+HanTieRunes)]))
	// What the best sentence's chunk opens on is its topic, which the
	// sentence may name by a short form (作坊 for 青棠装订坊, 该门诊): no tie.
	head := best
	for head.prev != nil {
		head = head.prev
	}
	if head != best {
		for b := range hanBigrams(head.text) {
			delete(rel, b)
		}
	}
	if len(rel) < 2 {
		return "", false // one pair of characters ties too little (作者 of 是作者的保姆)
	}
	// The analysis's pairs are hanBigrams'.
	tied := func(feats map[string]bool) bool { return overlap(rel, feats) == len(rel) }
	if !strings.Contains(best.text, answer) || tied(best.feats) || dangling(best) {
		return "", false
	}
	for _, cs := range sents {
		if cs == best || !tied(cs.feats) {
			continue
		}
		for _, c := range cs.clauses {
			if strings.Contains(c.text, answer) || !tied(c.feats) || !saysMore(c, st, q) || otherInstance(c, cs, q) {
				continue
			}
			return fmt.Sprintf("the context says %q of another; %q does not say it of %s", clip(c.text), clip(best.text), answer), true
		}
	}
	return "", false
}

// HanTieRunes is how many characters on each side of a Chinese answer hold
// the words that tie it to the statement.
const HanTieRunes = 6

// hanAnswer is the longest run of the statement's Han characters that are
// in no pair of characters the question writes: [start, end) in runes.
func hanAnswer(rs []rune, question string) (start, end int) {
	inQ := func(i int) bool { // a pair with a neighbour the question writes
		return i > 0 && isHan(rs[i-1]) && strings.Contains(question, string(rs[i-1:i+1])) ||
			i+1 < len(rs) && isHan(rs[i+1]) && strings.Contains(question, string(rs[i:i+2]))
	}
	for i := 0; i < len(rs); {
		if !isHan(rs[i]) || chineseParticles[rs[i]] || inQ(i) {
			i++
			continue
		}
		j := i
		for j < len(rs) && isHan(rs[j]) && !inQ(j) {
			j++
		}
		if j-i > end-start {
			start, end = i, j
		}
		i = j
	}
	return start, end
}

// hanBigrams are the content pairs of characters of a text's Han runs, as
// the analysis reads them (phrase.HanFeatures: "h:" features).
func hanBigrams(text string) map[string]bool {
	out := map[string]bool{}
	for _, run := range strings.FieldsFunc(text, func(r rune) bool { return !isHan(r) }) {
		phrase.HanFeatures(run, func(f string) { out[f] = true }, func(string) {})
	}
	return out
}

// otherInstance: the clause gives another value of a number the question
// states (首届女排世锦赛于1952年… for 2018年女排世锦赛): it is about another
// of what the question names.
func otherInstance(c clause, cs, q *span) bool {
	for _, x := range cs.quants {
		for _, y := range q.quants {
			if x.unit == y.unit && x.value != y.value && c.feats["n:"+x.value] {
				return true
			}
		}
	}
	return false
}

// hanPartySwap: a Chinese statement that writes a pair of characters the
// best sentence does not, where the best sentence writes that pair's
// second character after another first ("乙供应商交货期60天" against "甲供应商
// 交货期为60天") and another sentence writes the statement's pair (乙供应商
// …): it gives one party's value to another. Not a pair of the question's
// that the statement only repeats.
func hanPartySwap(st, q, best *span, sents []*span) (string, bool) {
	if !st.hasHan {
		return "", false
	}
	// The best sentence's pairs that open on a designator, sorted, so that of
	// two it writes the same one decides each time (a map's order is random).
	var theirs []string
	for g := range best.feats {
		if r := []rune(strings.TrimPrefix(g, "h:")); strings.HasPrefix(g, "h:") && len(r) == 2 && !st.feats[g] && strings.ContainsRune(hanDesignators, r[0]) {
			theirs = append(theirs, g)
		}
	}
	if len(theirs) == 0 {
		return "", false
	}
	slices.Sort(theirs)
	for _, f := range slices.Sorted(maps.Keys(st.feats)) {
		if !strings.HasPrefix(f, "h:") || best.feats[f] || best.refFeats[f] {
			continue
		}
		pair := []rune(strings.TrimPrefix(f, "h:"))
		if len(pair) != 2 || !strings.ContainsRune(hanDesignators, pair[0]) {
			continue
		}
		for _, g := range theirs {
			r := []rune(strings.TrimPrefix(g, "h:"))
			if r[1] != pair[1] || r[0] == pair[0] {
				continue
			}
			for _, cs := range sents {
				if cs != best && cs.feats[f] && !cs.feats[g] {
					return fmt.Sprintf("statement says %c (%s) where the sentence says %c (%s); %q is %c's", pair[0], string(pair), r[0], string(r), clip(cs.text), pair[0]), true
				}
			}
		}
	}
	return "", false
}

// hanDesignators tell parties, places and times of one kind apart.
const hanDesignators = "甲乙丙丁戊己东西南北上下男女内外前后"
