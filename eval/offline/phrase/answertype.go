package phrase

import (
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval/offline/norm"
)

// AnswerType is the kind of thing a "which" or "what" question asks for,
// as the stems of the last (at most two) words of its noun phrase ("Which
// American animated television series created by ..." asks for a
// "television series"; "In which football game was ..." for a "football
// game"); nil when it names none, or a name ("Which Byron Edmund Walker
// founded institution ..."), or a word that says nothing of the kind
// ("what type of", "what year").
func AnswerType(question string) []string {
	if containsHan(question) {
		return nil
	}
	w := strings.Fields(question)
	at := slices.IndexFunc(w, func(x string) bool { t := strings.ToLower(TrimWord(x)); return t == "which" || t == "what" })
	if at < 0 {
		return nil
	}
	var np []string
	noun := false // a lowercase word that is no participle: a participle after it ends the phrase
	for _, x := range w[at+1:] {
		t := TrimWord(x)
		lt := strings.ToLower(t)
		verbal := pastForm(lt) || strings.HasSuffix(lt, "ing")
		if t == "" || EnglishStop[lt] || copulas[lt] || norm.EnglishQuestionAux[lt] || verbal && noun {
			break
		}
		noun = noun || !verbal && !Capitalised(t)
		np = append(np, t)
		if EndsInPunct(x) {
			break
		}
	}
	if len(np) == 0 || Capitalised(np[len(np)-1]) || vagueKinds[strings.ToLower(np[len(np)-1])] {
		return nil
	}
	return Stems(strings.Join(np[max(0, len(np)-2):], " "))
}

// vagueKinds are nouns a question asks "what" of that say nothing of the
// kind of its answer.
var vagueKinds = map[string]bool{"type": true, "kind": true, "sort": true, "form": true, "name": true, "year": true, "number": true, "part": true}

// TypedNames are the names a sentence gives as of a kind (AnswerType's
// stems): written right after it ("the animated television series South
// Park") or, opening the sentence, said
// to be one ("Target Corporation is
// the second-largest discount store retailer in ...": in the clause after
// the copula).
func TypedNames(sentence string, kind []string) []string {
	if len(kind) == 0 {
		return nil
	}
	w := strings.Fields(sentence)
	stems := make([]string, len(w))
	for i, x := range w {
		stems[i] = norm.Stem(strings.ToLower(TrimWord(x)))
	}
	var out []string
	for i := 0; i+len(kind) <= len(w); i++ {
		if !slices.Equal(stems[i:i+len(kind)], kind) || Capitalised(TrimWord(w[i])) {
			continue // not the kind, or a word of a name ("Canadian Football League")
		}
		end := i + len(kind)
		if end < len(w) && !EndsInPunct(w[end-1]) && Capitalised(TrimWord(w[end])) && definite(w, i) {
			e := NameEnd(w, end)
			for e < len(w) && len(TrimWord(w[e-1])) == 1 && strings.HasSuffix(w[e-1], ".") && Capitalised(TrimWord(w[e])) {
				e = NameEnd(w, e) // past the point of an initial ("William T. Anderson")
			}
			if n := trimName(w[end:e]); n != "" {
				out = append(out, n)
			}
		}
	}
	if n := NameEnd(w, 0); n > 0 && n < len(w) && !EnglishStop[strings.ToLower(TrimWord(w[0]))] && copulas[strings.ToLower(TrimWord(w[n]))] {
		for i := n + 1; i+len(kind) <= len(w); i++ {
			if slices.Equal(stems[i:i+len(kind)], kind) {
				out = append(out, trimName(w[:n]))
				break
			}
			if EndsInPunct(w[i]) || clauseStops[strings.ToLower(w[i])] {
				break // "X is the seventh episode of the series Y": the series is Y's kind
			}
		}
	}
	return out
}

// definite: the noun phrase that ends at w[i:] opens on "the" (or a
// possessive): "the animated series South Park" names it, "a song Parton had
// written" does not.
func definite(w []string, i int) bool {
	for j := i - 1; j >= 0 && j >= i-4; j-- {
		t := strings.ToLower(TrimWord(w[j]))
		switch {
		case t == "the" || strings.HasSuffix(t, "'s"):
			return true
		case EnglishStop[t] || EndsInPunct(w[j]):
			return false
		}
	}
	return false
}

// clauseStops end the phrase after a copula that says what its subject is.
var clauseStops = map[string]bool{"that": true, "which": true, "who": true, "of": true, "in": true, "by": true, "for": true, "from": true, "with": true, "at": true, "on": true, "to": true, "between": true}
