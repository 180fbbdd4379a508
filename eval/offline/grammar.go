package offline

import (
	"strings"
	"unicode"
)

// whPhraseEnd is the index of the first word after the interrogative
// phrase that opens with the wh-word at: "which tennis player | won",
// "what type of vegetation | grows", and a coordination whole, "which
// Russian writer, novelist and playwright | ?", "which large village and
// civil parish | in the South Holland district". The answer takes its
// place in a restatement (replaceInterrogative), which need not repeat
// it (interrogativeFeats). w are the question's words, lw the same
// lowered and trimmed.
func whPhraseEnd(w, lw []string, at int) int {
	end := at + 1
	if end+1 < len(w) && (lw[end] == "kind" || lw[end] == "type" || lw[end] == "sort" || lw[end] == "form") && (lw[end+1] == "of" || lw[end+1] == "or") {
		return min(end+3, len(w))
	}
	// A participle after the noun opens what the question says of it:
	// "what wrestler | born November 29, 1966".
	inPhrase := func(i int) bool {
		return !englishStop[lw[i]] && !englishAux[lw[i]] && !irregularPast[lw[i]] && !(i > at+1 && irregularParticiples[lw[i]])
	}
	if end < len(w) && (lw[end] == "other" || lw[end] == "another") {
		end++ // "what other real life boxer"
		at++
	}
	for end < len(w) && end-at <= 3 && inPhrase(end) {
		end++
	}
	for end+1 < len(w) && (lw[end] == "and" || lw[end] == "or") && inPhrase(end+1) && !capitalised(w[end+1]) {
		end += 2
		// Up to the comma that ends the last item: "…, and animal
		// welfare advocate, best known for…".
		for end < len(w) && !strings.HasSuffix(w[end-1], ",") && inPhrase(end) && !capitalised(w[end]) {
			end++
		}
	}
	return end
}

// nounPhraseEnd is the index of the first word after the noun phrase
// that opens at i ("which tennis player | won", "which genus of moth in
// the country | contains"): the phrase ends at an auxiliary or a word that
// reads as a verb (a past tense, or a present tense in -s after the
// phrase's head). It always takes the word at i.
func nounPhraseEnd(w, lw []string, i int) int {
	if i >= len(lw) || englishAux[lw[i]] {
		return i
	}
	j := i + 1
	quoted := false
	for ; j < len(lw); j++ {
		x := lw[j]
		// A quoted title is one word of the phrase: "starring in \"Lisa
		// Picard Is Famous\"" has no verb.
		closes := strings.HasSuffix(strings.TrimRight(w[j], ",.?!"), "\"")
		if quoted || strings.HasPrefix(w[j], "\"") {
			quoted = !closes
			continue
		}
		if englishAux[x] || irregularPast[x] || strings.HasSuffix(x, "ed") && len(x) > 3 {
			break
		}
		if strings.HasSuffix(x, "s") && !strings.HasSuffix(x, "ss") && !strings.HasSuffix(x, "'s") && len(x) > 3 && !englishStop[lw[j-1]] && !nameParticles[lw[j-1]] {
			break
		}
	}
	return j
}

// alternativeOr is the index of the "or" between a question's
// alternatives, or -1: the last "or" inside the question whose second
// alternative is a name ("..., Ann Lee or Bo Chen?"), or any in a yes/no
// question ("Was he a democrat or a republican?"). "What type or
// product" offers no names. An "or" before a wh-question's first
// interrogative is its premise's ("The Royal Commission ... or Woodward
// Royal Commission was ... active in all of which country?"), unless the
// interrogative follows the alternatives and their comma ("Ann Lee or Bo
// Chen, who was born first?").
func alternativeOr(w []string) int {
	yesNo := len(w) > 0 && englishAux[strings.ToLower(w[0])]
	wh := 0
	if !yesNo {
		for i, x := range w {
			if whWords[strings.ToLower(strings.Trim(x, ",\"'("))] {
				wh = i
				break
			}
		}
	}
	for i := len(w) - 2; i > 0; i-- {
		if !strings.EqualFold(strings.Trim(w[i], ","), "or") {
			continue
		}
		if i < wh {
			if name, _ := oneName(w[i+1:]); len(name) == 0 || i+1+len(name) != wh || !strings.HasSuffix(name[len(name)-1], ",") {
				continue
			}
		}
		next := strings.Trim(w[i+1], "\"'(")
		if englishDeterminers[strings.ToLower(next)] && i+2 < len(w) {
			next = strings.Trim(w[i+2], "\"'(")
		}
		if yesNo || capitalised(next) || startsWithDigit(next) {
			return i
		}
	}
	return -1
}

// oneName is the name a run of words opens with (capitalised words and
// the particles between them: First for Women, Band of Brothers) and the
// rest; unlike nameRun, "and" ends it.
func oneName(w []string) (name, rest []string) {
	end := 0
	for i, x := range w {
		if capitalised(x) || i > 0 && startsWithDigit(x) && end == i {
			end = i + 1
			if strings.HasSuffix(x, ",") {
				break
			}
			continue
		}
		if !nameParticles[strings.ToLower(x)] || i+1 >= len(w) || !capitalised(w[i+1]) {
			break
		}
	}
	return w[:end], w[end:]
}

// englishDeterminers open a noun phrase.
var englishDeterminers = setOf("the", "a", "an", "this", "that", "these", "those", "his", "her", "its", "their", "our", "my", "your")

// participle: a word that reads as a past participle (born, located,
// founded, written).
func participle(w string) bool {
	return strings.HasSuffix(w, "ed") && len(w) > 4 || irregularParticiples[w]
}

var irregularParticiples = setOf("born", "known", "written", "given", "made", "held", "built", "sung", "won", "shown", "drawn", "taken", "begun", "sold", "found", "led", "run", "set", "put")

// irregularPast are common irregular past tenses, for nounPhraseEnd.
var irregularPast = setOf("won", "wrote", "made", "began", "became", "held", "led", "ran", "took", "gave", "came", "went", "sang",
	"saw", "grew", "fought", "built", "bought", "sold", "lost", "left", "met", "paid", "told", "found", "drew", "flew", "rode", "spoke", "stood", "taught", "threw", "wore")

// whWords open a wh-question's interrogative.
var whWords = setOf("which", "what", "who", "whom", "whose", "where", "when", "how")

func startsWithDigit(w string) bool {
	for _, r := range w {
		return unicode.IsDigit(r)
	}
	return false
}

var (
	englishAux = setOf("is", "are", "was", "were", "did", "does", "do", "has", "have", "had", "can", "could", "will", "would")
)
