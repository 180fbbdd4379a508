package offline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/phrase"
)

// bridged: a statement that joins what two prose sentences say of one
// thing it names ("Gunmen from Laredo starred Walter Darwin Coy of
// "Frontier"": the film's cast names Walter Coy, and the sentence after
// Walter Darwin Coy's says he narrated "Frontier") is supported by the two
// together when the best one lacks names the other gives, and both write
// a name of the statement, its link; a name the statement takes from the
// other sentence without its link is not joined ("Gunmen from Laredo
// starred Robert Knapp of "Frontier"").
func bridged(st, q *span, sents []*span, best int, useUnis bool, derived map[string]bool) (Evidence, bool) {
	b := sents[best]
	if !b.prose {
		return Evidence{}, false
	}
	for i, t := range sents {
		if i == best || !t.prose {
			continue
		}
		link := linkName(st, b, t)
		if link == "" {
			continue
		}
		u := unionSpan(b, t)
		if _, missing := missingName(st, q, u); missing || !tiesAsSaid(st, q, b, t) {
			continue
		}
		// Each name as one sentence writes it: the link joins them ("Walter
		// Darwin Coy of "Frontier"").
		if _, ok := namedAsWritten(ofJoins.Replace(st.text), withReferent(b)+" "+withReferent(t), q, append(wholeNames(b), wholeNames(t)...)...); !ok {
			continue
		}
		cov := coverageWith(st, q, u, useUnis, derived)
		if cov < SupportThreshold {
			continue
		}
		if _, _, neg := negationConflict(st, t); neg {
			return Evidence{}, false
		}
		if _, bad := numberConflict(st, q, u, sents, nil, true); bad {
			continue
		}
		return Evidence{Verdict: 1, Coverage: cov, Quote: b.text, From: best, Also: i,
			Reason: fmt.Sprintf("context says %q and %q, both of %s (coverage %.2f together)", clip(b.text), clip(t.text), link, cov)}, true
	}
	return Evidence{}, false
}

// tiesAsSaid: each name of the statement the best sentence b lacks (or
// writes otherwise: "Hall A" for its "Hall C") is tied to the rest of it
// by a word the other sentence t has too ("born in Dunvarrow" is not
// "studied … in Dunvarrow"; "The Greywater Morris Weekend draws more" not
// "… was founded").
func tiesAsSaid(st, q, b, t *span) bool {
	tied := func(nm string) bool {
		rel := nameRelation(st.text, nm)
		return rel == "" || t.feats["w:"+rel]
	}
	for i, n := range st.names {
		if !namesName(st, i, b) && !tied(n.text) {
			return false
		}
	}
	r, ok := namedAsWritten(ofJoins.Replace(st.text), withReferent(b), q, wholeNames(b)...)
	return ok || tied(r)
}

// nameRelation is the stem of the word that ties a name to the rest of the
// text: the one before it (phrase.RelationWord), else the first after it
// that is neither a stop word nor capitalised, of the three after it; ""
// when there is none.
func nameRelation(text, nm string) string {
	if r := phrase.RelationWord(text, nm); r != "" {
		return r
	}
	words := strings.Fields(text)
	at := slices.IndexFunc(words, func(w string) bool { return phrase.TrimWord(w) == nm })
	for k := at + 1; at >= 0 && k < min(len(words), at+4); k++ {
		w := phrase.TrimWord(words[k])
		if lw := strings.ToLower(w); w != "" && !phrase.Capitalised(w) && !englishStop[lw] {
			return norm.Stem(lw)
		}
	}
	return ""
}

// ofJoins part the names an "of" joins ("Donald Hugh Henley of the Eagles").
var ofJoins = strings.NewReplacer(" of the ", ", the ", " of ", ", ")

// linkName is the first name of the statement both sentences write, or
// "": its last word capitalised and its first too, or a short form of it
// ("Don Henley" for "Donald Hugh Henley"), so that a word two names share
// ("Airport", "University") links nothing.
func linkName(st, a, b *span) string {
	for i := 0; i < len(st.names); {
		j := i
		for j < len(st.names)-1 && !st.names[j].head {
			j++
		}
		first, head := st.names[i], st.names[j]
		if namesIn(first, head, a) && namesIn(first, head, b) {
			return head.text
		}
		i = j + 1
	}
	return ""
}

// namesIn: the sentence (or the name its pronoun stands for) writes the
// name's last word capitalised, and its first or a short form of it.
func namesIn(first, head name, sp *span) bool {
	if sp.refFeats[head.feat] && sp.refFeats[first.feat] {
		return true
	}
	if first == head {
		return headOf(sp, head.feat, nil, true)
	}
	return capitalIn(sp, head.feat) && (capitalIn(sp, first.feat) || phrase.ShortFirst(strings.TrimPrefix(first.feat, "w:"), strings.TrimPrefix(head.feat, "w:"), phrase.Stems(sp.text)))
}
