package offline

import (
	"fmt"
	"slices"

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
		ev := support(analyze(c.Text), q, sents)
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
		if ev := support(analyze(c.Text), q, sents); ev.Detector != "" && ev.Coverage >= SupportThreshold && about(ev, sents, c.Name) {
			ev.Reason = fmt.Sprintf("of %q: %s", clip(c.Text), ev.Reason)
			return ev, true
		}
	}
	return Evidence{}, false
}
