package offline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval/offline/phrase"
	"github.com/ragscope/ragscope/eval/offline/words"
)

// collectiveWords are said of two together, not distributed to each.
var collectiveWords = words.Set("collective")

// conjunct is one statement of a coordination, and the name it is about.
type conjunct struct {
	text, name string
}

// conjuncts are the statement with "A and B" (both dropped) read once as A
// and once as B; nil when it coordinates no two names or its predicate is
// collective. B ends where the longest name a sentence writes as one ends.
func conjuncts(text string, sents []*span) []conjunct {
	if containsHan(text) {
		return hanConjuncts(text)
	}
	if !strings.Contains(text, " and ") {
		return nil
	}
	w := strings.Fields(text)
	if slices.ContainsFunc(w, func(x string) bool { return collectiveWords[strings.ToLower(phrase.TrimWord(x))] }) {
		return nil
	}
	for i := 1; i+1 < len(w); i++ {
		if w[i] != "and" || phrase.EndsInPunct(w[i-1]) {
			continue
		}
		ls := phrase.NameStart(w, i)
		re := writtenEnd(w, i+1, phrase.NameEnd(w, i+1), sents)
		if ls == i || re == i+1 || re >= len(w) {
			continue
		}
		both := func(x string) bool { return strings.ToLower(x) == "both" }
		before := slices.DeleteFunc(slices.Clone(w[:ls]), both)
		after := slices.DeleteFunc(slices.Clone(w[re:]), both)
		if len(after) == 0 {
			continue
		}
		a := strings.Join(slices.Concat(before, w[ls:i], after), " ")
		b := strings.Join(slices.Concat(before, w[i+1:re], after), " ")
		return []conjunct{{a, strings.Join(w[ls:i], " ")}, {b, strings.Join(w[i+1:re], " ")}}
	}
	return nil
}

// writtenEnd shortens the name w[from:end] to the longest run of its words
// a sentence writes together ("Quay Players" of "Quay Players American").
func writtenEnd(w []string, from, end int, sents []*span) int {
	for e := end; e > from+1; e-- {
		seq := phrase.Stems(strings.Join(w[from:e], " "))
		if slices.ContainsFunc(sents, func(cs *span) bool { return phrase.ContainsRun(phrase.Stems(cs.text), seq) }) {
			return e
		}
	}
	return end
}

// hanConjuncts: "甲和乙都在上海" -> "甲在上海", "乙在上海": the runs
// around 和 (与, 及, 跟) before 都.
func hanConjuncts(text string) []conjunct {
	rs := []rune(text)
	dou := slices.Index(rs, '都')
	if dou < 0 {
		return nil
	}
	for c := range collectiveWords {
		if containsHan(c) && strings.Contains(text, c) {
			return nil
		}
	}
	and := -1
	for i := dou - 1; i > 0; i-- {
		if rs[i] == '和' || rs[i] == '与' || rs[i] == '及' || rs[i] == '跟' {
			and = i
			break
		}
		if phrase.IsClausePunct(rs[i]) {
			return nil
		}
	}
	if and < 0 {
		return nil
	}
	start := and
	for start > 0 && !phrase.IsClausePunct(rs[start-1]) && !strings.ContainsRune("：:，,、 ", rs[start-1]) {
		start--
	}
	// "是的，甲和乙都..." opens after the comma: the name is what is left.
	if and-start < 1 || dou-and-1 < 1 || dou+1 >= len(rs) {
		return nil
	}
	head, pred := string(rs[:start]), string(rs[dou+1:])
	a, b := string(rs[start:and]), string(rs[and+1:dou])
	return []conjunct{{head + a + pred, a}, {head + b + pred, b}}
}

// coordinated: a statement is supported when each of its conjuncts is, by
// a sentence about its name.
func coordinated(st, q *span, sents []*span) (Evidence, bool) {
	cs := conjuncts(st.text, sents)
	if len(cs) == 0 {
		return Evidence{}, false
	}
	var evs []Evidence
	for _, c := range cs {
		ev := support(analyze(c.text), q, sents)
		if ev.Verdict != 1 || !about(ev, sents, c.name) {
			return Evidence{}, false
		}
		evs = append(evs, ev)
	}
	ev := evs[0]
	ev.Coverage = min(evs[0].Coverage, evs[1].Coverage)
	ev.Reason = fmt.Sprintf("says it of each of two: %q: %s; %q: %s", clip(cs[0].text), evs[0].Reason, clip(cs[1].text), evs[1].Reason)
	return ev, true
}

// about reports whether a sentence that decided ev names the name.
func about(ev Evidence, sents []*span, name string) bool {
	nf := analyzeText(name).feats
	if len(nf) == 0 {
		return true
	}
	has := func(i int) bool {
		if i < 0 || i >= len(sents) {
			return false
		}
		cs := sents[i]
		for f := range nf {
			if cs.feats[f] || cs.refFeats[f] || cs.unis[f] {
				return true
			}
		}
		return false
	}
	return has(ev.From) || has(ev.Also)
}

// contradictedConjunct: a detector fires on a sentence that covers one of
// the statement's conjuncts, for a denial ("not both A and B American").
func contradictedConjunct(st, q *span, sents []*span) (Evidence, bool) {
	for _, c := range conjuncts(st.text, sents) {
		if ev := support(analyze(c.text), q, sents); ev.Detector != "" && ev.Coverage >= SupportThreshold && about(ev, sents, c.name) {
			ev.Reason = fmt.Sprintf("of %q: %s", clip(c.text), ev.Reason)
			return ev, true
		}
	}
	return Evidence{}, false
}
