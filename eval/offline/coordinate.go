package offline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval/offline/phrase"
)

// conjuncts are the statement read once for each of two coordinated names
// (phrase.Conjuncts); B ends where the longest name a sentence writes as
// one ends.
func conjuncts(text string, sents []*span) []phrase.Conjunct {
	return phrase.Conjuncts(text, func(seq []string) bool {
		return slices.ContainsFunc(sents, func(cs *span) bool { return phrase.ContainsRun(phrase.Stems(cs.text), seq) })
	})
}

// coordinated: a statement is supported when each of its conjuncts is, by
// a sentence about its name (else the first that fails gives the evidence);
// ok is false when it coordinates no two names.
func coordinated(st, q *span, sents []*span) (Evidence, bool) {
	cs := conjuncts(st.text, sents)
	if len(cs) == 0 {
		return Evidence{}, false
	}
	var evs []Evidence
	for _, c := range cs {
		ev := supportAbout(analyze(c.Text), q, sents, c.Name)
		if ev.Verdict != 1 || !about(ev, sents, c.Name) {
			ev.Verdict = 0
			ev.Reason = fmt.Sprintf("said of each of two, not of %q: %s", clip(c.Name), ev.Reason)
			return ev, true
		}
		evs = append(evs, ev)
	}
	ev := evs[0]
	ev.Coverage = min(evs[0].Coverage, evs[1].Coverage)
	ev.Reason = fmt.Sprintf("says it of each of two: %q: %s; %q: %s", clip(cs[0].Text), evs[0].Reason, clip(cs[1].Text), evs[1].Reason)
	return ev, true
}

// supportAbout is support against the sentences about a Chinese name only
// (about), so that one that says it of another thing does not decide; its
// evidence is indexed into sents.
func supportAbout(st, q *span, sents []*span, name string) Evidence {
	if !containsHan(name) {
		return support(st, q, sents)
	}
	var own []*span
	var at []int
	for i := range sents {
		if names(sents[i], name) {
			own, at = append(own, sents[i]), append(at, i)
		}
	}
	ev := support(st, q, own)
	for _, k := range []*int{&ev.From, &ev.Also} {
		if *k >= 0 && *k < len(at) {
			*k = at[*k]
		}
	}
	return ev
}

// about reports whether a sentence that decided ev names the name.
func about(ev Evidence, sents []*span, name string) bool {
	return decidedBy(ev, sents, func(cs *span) bool { return names(cs, name) })
}

// decidedBy: holds is true of a sentence that decided ev (its From or
// Also; -1 for none).
func decidedBy(ev Evidence, sents []*span, holds func(*span) bool) bool {
	return slices.ContainsFunc([]int{ev.From, ev.Also}, func(i int) bool { return i >= 0 && i < len(sents) && holds(sents[i]) })
}

// names: the sentence names the name, by a word of it (saysOf), or a
// Chinese one whole in its chunk so far (a pair of characters two names
// share, 种子, is none).
func names(cs *span, name string) bool {
	if containsHan(name) {
		for ; cs != nil && !strings.Contains(cs.text, name); cs = cs.prev {
		}
		return cs != nil
	}
	nf := analyzeText(name).feats
	return len(nf) == 0 || saysOf(cs, nf)
}

// contradicted: a detector fires on evidence that covers the proposition and
// names all it names, or on one of its conjuncts (a denial of "both A and B
// American"): a sentence that leaves a name out ("A is X" of "both A and B
// X") says nothing of it.
func contradicted(p string, q *span, sents []*span) (Evidence, bool) {
	pst := analyze(p)
	ev := support(pst, q, sents)
	if ev.Detector != "" && ev.Coverage >= SupportThreshold && !slices.ContainsFunc(pst.names, func(n name) bool {
		return !decidedBy(ev, sents, func(cs *span) bool { return cs.feats[n.feat] || cs.refFeats[n.feat] })
	}) {
		return ev, true
	}
	for _, c := range conjuncts(p, sents) {
		cst := analyze(c.Text)
		if cev := support(cst, q, sents); cev.Detector != "" && (cev.Coverage >= SupportThreshold || cev.Detector == DetectorNumber && coveredButValues(cst, sents, cev.From)) && about(cev, sents, c.Name) {
			cev.Reason = fmt.Sprintf("of %q: %s", clip(c.Text), cev.Reason)
			return cev, true
		}
	}
	return ev, false
}

// coveredButValues: sentence i covers the statement without the words of
// its values, which a conflict of values does not ask it to repeat
// ("Mishima is Chilean" against "..., a Japanese author").
func coveredButValues(st *span, sents []*span, i int) bool {
	if i < 0 || i >= len(sents) {
		return false
	}
	text := st.text
	for _, q := range st.quants {
		text = strings.Replace(text, q.text, "", 1)
	}
	return text != st.text && coverage(analyzeText(text), nil, sents[i], false) >= SupportThreshold
}

// ofPair reads a statement that says "both" or "only" of the two names the
// question coordinates, naming neither or one: "Both are painters" (两家机构都…)
// is said of each, and holds only when each conjunct does; "only A" holds
// when what it says of A does and the context contradicts it of the other
// (silence about the other supports no "only").
func ofPair(statement, question string, q *span, sents []*span) (Evidence, bool) {
	if !phrase.SaysBoth(statement) && !strings.Contains(strings.ToLower(statement), "only ") || len(conjuncts(statement, sents)) > 0 {
		return Evidence{}, false // most statements: no reading of the question
	}
	x, y, ok := questionPair(question, sents)
	if !ok {
		return Evidence{}, false
	}
	if a, b, ok := phrase.OnlyAs(statement, x, y); ok {
		ev := support(analyze(a), q, sents)
		if bev, no := contradicted(b, q, sents); no && ev.Verdict == 1 {
			ev.Reason += fmt.Sprintf("; the context contradicts %q: %s", clip(b), bev.Reason)
		} else if ev.Verdict == 1 {
			ev.Verdict = 0
			ev.Reason = fmt.Sprintf("says it of one alone, but no context sentence contradicts %q; %s", clip(b), ev.Reason)
		}
		return ev, true
	}
	if text := phrase.BothAs(statement, x, y); text != statement && !strings.Contains(statement, x) && !strings.Contains(statement, y) {
		return coordinated(analyze(text), q, sents)
	}
	return Evidence{}, false
}

// questionPair is the two things the question coordinates, as written.
func questionPair(question string, sents []*span) (a, b string, ok bool) {
	if containsHan(question) {
		return phrase.HanPair(question, func(s string) bool {
			return slices.ContainsFunc(sents, func(cs *span) bool { return strings.Contains(cs.text, s) })
		})
	}
	if cs := conjuncts(question, sents); len(cs) == 2 {
		return cs[0].Name, cs[1].Name, true
	}
	return "", "", false
}
