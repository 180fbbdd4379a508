package offline

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// BlindSpots is the offline banner's pointer to where the judge is blind,
// in the README's calibration section.
const BlindSpots = "blind to paraphrase: README#offline-judge-calibration"

// Construction is how a calibration pair's answers are phrased. The same
// labelled answer can reach the judge as a bare entity, in a frame ("答案是X。",
// "The answer is X."), or as a sentence that restates the question; a
// lexical judge tuned on one phrasing can lose much on another, so the
// calibration measures each and says which ones the thresholds were chosen
// on.
type Construction string

const (
	// Given is the answer as the dataset has it.
	Given Construction = "given"
	// Declarative restates the question with the answer in place of its
	// interrogative (澳大利亚的首都在堪培拉。, Facebook acquired Instagram.).
	Declarative Construction = "declarative"
	// Framed wraps the answer in a frame that adds words the context does
	// not have: 答案是X。 or The answer is X.
	Framed Construction = "framed"
	// Bare is the answer alone: 堪培拉, Canberra.
	Bare Construction = "bare"
)

// Construct phrases the pair's answers as c. A pair without short answers
// (WikiEval's paragraphs) is returned as it is: only Given applies to it.
func Construct(p Pair, c Construction) Pair {
	if p.Short[0] == "" || p.Short[1] == "" {
		return p
	}
	out := p
	for i, a := range p.Short {
		var s string
		switch c {
		case Given:
			continue
		case Declarative:
			s = declare(p.Question, a)
		case Framed:
			s = frame(p.Question, a)
		case Bare:
			s = strings.TrimSpace(a)
		}
		if i == 0 {
			out.Faithful = s
		} else {
			out.Unfaith = s
		}
	}
	return out
}

func declare(question, answer string) string {
	if containsHan(question) {
		return StateAnswer(question, answer)
	}
	if isSentence(answer) {
		return answer
	}
	return StateAnswerEnglish(question, answer)
}

func frame(question, answer string) string {
	a := strings.TrimSpace(answer)
	if containsHan(question) {
		return "答案是" + strings.TrimRight(a, "。.") + "。"
	}
	return "The answer is " + strings.TrimRight(a, ".") + "."
}

// isSentence: an answer that already says something of its own (HaluEval's
// hallucinated answers are often whole sentences) is not restated.
func isSentence(a string) bool {
	return len(strings.Fields(a)) > 6 || strings.HasSuffix(strings.TrimSpace(a), ".") && len(strings.Fields(a)) > 3
}

var (
	englishAux   = setOf("is", "are", "was", "were", "did", "does", "do", "has", "have", "had", "can", "could", "will", "would")
	englishDoAux = setOf("did", "does", "do")
)

// StateAnswerEnglish turns an English question and a short answer into a
// statement the way a reader would restate it: "Who acquired Instagram?" +
// Facebook -> "Facebook acquired Instagram."; "Who is the CEO of X?" ->
// "The CEO of X is A."; "Are X and Y both American?" + yes -> "Yes, X and
// Y are both American."; "Who was born first, X or Y?" + Y -> "Y was born
// first."; "... was released in what year?" + 1932 -> "... was released
// in 1932."; a question without an interrogative ("Super Bowl 2021
// location") becomes "<question> is <answer>.". It is a construction for
// calibration, not a parser: it writes the sentence a generator would
// for the common shapes of question, and an odd question still gives an
// odd sentence.
func StateAnswerEnglish(question, answer string) string {
	q := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(question), "?.! "))
	a := strings.TrimRight(strings.TrimSpace(answer), ".")
	w := strings.Fields(q)
	if len(w) == 0 {
		return a + "."
	}
	lw := lowerWords(w)
	if yes, ok := yesNo(a); ok && englishAux[lw[0]] {
		return yesNoSentence(w, yes)
	} else if aux, rest, moved := auxAfterSubject(w); ok && moved {
		// "Ann Lee and Bo Chen, are Chilean?" asks "Are Ann Lee and Bo
		// Chen Chilean?".
		return yesNoSentence(append([]string{aux}, rest...), yes)
	}
	if i := indexWord(lw, "which", 0); i >= 0 && i+1 < len(lw) && (lw[i+1] == "one" || lw[i+1] == "of") {
		// "Between X and Y, which one is in Tennessee?", "Which of the
		// following documents X: A or B?" -> "A is in Tennessee.", "A
		// documents X."
		j := i + 2
		if lw[i+1] == "of" {
			for j < len(lw) && lw[j] != "following" && lw[j] != "them" && lw[j] != "these" && lw[j] != "two" {
				j++
			}
			j++
		}
		if j < len(w) {
			body := w[j:]
			if rest, ok := withoutAlternatives(append([]string{"Who"}, body...)); ok {
				body = rest[1:]
			}
			return sentence(a, strings.Join(body, " "))
		}
	}
	if rest, ok := withoutAlternatives(w); ok {
		if englishAux[lw[0]] {
			if endsWithAlternatives(w) {
				// "Was the president who appointed X a democrat or a
				// republican?" -> "The president who appointed X was democrat."
				return sentence(strings.Join(rest[1:], " "), lw[0], a)
			}
			// "Is X or Y the largest ...?" -> "A is the largest ...".
			return sentence(a, lw[0], strings.Join(rest[1:], " "))
		}
		return StateAnswerEnglish(strings.Join(rest, " "), a)
	}
	rest := func(i int) string { return strings.Join(w[i:], " ") }
	if len(w) > 3 && englishPrepositions[lw[0]] && (lw[1] == "which" || lw[1] == "what") {
		// In which game was X named MVP? -> X was named MVP in A.
		i := nounPhraseEnd(w, lw, 2)
		if i+1 < len(w) && englishAux[lw[i]] {
			return sentence(withAux(w[i+1:], lw[i]), lw[0], a)
		}
	}
	switch lw[0] {
	case "who", "what", "which":
		// wh [noun phrase] aux REST -> REST aux A, or A aux REST when
		// REST is not a noun phrase (was started first); wh verb REST
		// -> A verb REST.
		i := 1
		if lw[0] != "who" {
			i = nounPhraseEnd(w, lw, 1)
		}
		// Which band's song was used …? -> A's song was used ….
		for p := 1; p < i-1 && lw[0] != "who" && !englishStop[lw[p]]; p++ { // not "in the world's"
			if strings.HasSuffix(lw[p], "'s") && i < len(w) && !englishDoAux[lw[i]] {
				return sentence(a+"'s", strings.Join(w[p+1:i], " "), rest(i))
			}
		}
		if lw[0] != "who" && i > 2 && i+1 < len(w) && englishHave[lw[i]] && nounPhraseStart(w[i+1]) {
			// What actor in X also had a role in Y? -> A is the actor
			// in X that also had a role in Y ("had" is the verb).
			np, adv := w[1:i], ""
			if n := len(np); n > 1 && sentenceAdverbs[lw[i-1]] {
				np, adv = np[:n-1], w[i-1]
			}
			return sentence(a, "is the", strings.Join(np, " "), "that", adv, rest(i))
		}
		if i < len(w) && englishAux[lw[i]] && !englishDoAux[lw[i]] {
			if i+1 < len(w) && (!nounPhraseStart(w[i+1]) || lw[0] == "who" && englishHave[lw[i]] || superlative(lw[i+1:])) {
				// Who was inducted into X -> A was inducted into X;
				// who had a role in X -> A had a role in X.
				if modifiedNoun(lw[1:i]) {
					// What poem by the writer born in 1872 was used in
					// X? -> A is the poem by the writer born in 1872
					// that was used in X: the phrase is a premise.
					return sentence(a, "is the", strings.Join(w[1:i], " "), "that", lw[i], rest(i+1))
				}
				return sentence(a, lw[i], rest(i+1))
			}
			if endsInParticiple(lw[i+1:]) {
				// What year was X born? -> X was born in A; what city
				// are X located in? -> X are located in A.
				prep := "in"
				if englishPrepositions[lw[len(lw)-1]] {
					prep = ""
				}
				return sentence(withAux(w[i+1:], lw[i]), prep, a)
			}
			return sentence(rest(i+1), lw[i], a)
		}
		if i < len(w) && englishDoAux[lw[i]] {
			// What boxer did X act with in Rocky V? -> X did act with
			// A in Rocky V: the answer takes the place of the object
			// its stranded preposition lost.
			body := w[i+1:]
			if name, tail := oneName(body); len(name) > 0 && len(tail) > 1 {
				for k := 1; k < len(tail); k++ {
					if englishPrepositions[strings.ToLower(tail[k-1])] && englishPrepositions[strings.ToLower(tail[k])] {
						return sentence(strings.Join(name, " "), lw[i], strings.Join(tail[:k], " "), a, strings.Join(tail[k:], " "))
					}
				}
			}
			return sentence(rest(i+1), a)
		}
		if i > 2 {
			// Which genus of moth in X contains one species? -> A is
			// the genus of moth in X that contains one species.
			is, that := "is the", "that"
			if englishDeterminers[lw[1]] {
				is = "is" // "What the real name of …"
			}
			if slices.Contains(lw[1:i], "who") {
				that = "" // "… of the DJ who played …"
			}
			return sentence(a, is, strings.Join(w[1:i], " "), that, rest(i))
		}
		return sentence(a, rest(i))
	case "when", "where":
		if len(w) > 2 && englishAux[lw[1]] {
			prep := "in"
			if englishDoAux[lw[1]] {
				return sentence(rest(2), prep, a)
			}
			if englishPrepositions[lw[len(lw)-1]] {
				prep = "" // Where is X based in?
			}
			return sentence(withAux(w[2:], lw[1]), prep, a)
		}
	case "how":
		if len(w) > 3 && englishAux[lw[2]] && !englishDoAux[lw[2]] && lw[1] != "many" && lw[1] != "much" {
			// How old is X? -> X is A.
			return sentence(rest(3), lw[2], a)
		}
		if len(w) > 3 && (lw[1] == "many" || lw[1] == "much") {
			if englishDoAux[lw[3]] {
				return sentence(rest(4), a, w[2])
			}
			return sentence(a, rest(2))
		}
	}
	if englishAux[lw[0]] {
		return sentence(rest(1), ":", a)
	}
	if s, ok := replaceInterrogative(w, lw, a); ok {
		return s
	}
	return sentence(q, "is", a)
}

// modifiedNoun reports whether an interrogative's noun phrase says more
// than what kind of thing is asked for: a preposition or a participle
// after its noun ("poem by this writer", "actor starring in X"), not
// "tennis player".
func modifiedNoun(lw []string) bool {
	if len(lw) == 0 || englishDeterminers[lw[0]] || slices.Contains(lw, "who") {
		return false // "what the real name of the DJ who…": no phrase to restate
	}
	for k, x := range lw {
		if k > 0 && (englishPrepositions[x] || strings.HasSuffix(x, "ing") && len(x) > 4) {
			return true
		}
	}
	return false
}

func lowerWords(w []string) []string {
	lw := make([]string, len(w))
	for i, x := range w {
		lw[i] = strings.ToLower(strings.Trim(x, ",\"'"))
	}
	return lw
}

// sentence joins the parts with single spaces, capitalised and ended with
// a full stop.
func sentence(parts ...string) string {
	s := strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
	s = strings.TrimRight(s, ",;: ")
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r) + "."
}

var (
	englishPrepositions = setOf("in", "on", "at", "of", "for", "from", "to", "with", "by", "during", "into", "under", "since")
	englishHave         = setOf("has", "have", "had")
	// sentenceAdverbs go with the verb after them, not the noun phrase
	// before them ("the actor in X also had…").
	sentenceAdverbs = setOf("also", "still", "once", "later", "currently", "previously", "originally", "first")
)

// participle: a word that reads as a past participle (born, located,
// founded, written).
func participle(w string) bool {
	return strings.HasSuffix(w, "ed") && len(w) > 4 || irregularParticiples[w]
}

var irregularParticiples = setOf("born", "known", "written", "given", "made", "held", "built", "sung", "won", "shown", "drawn", "taken", "begun", "sold", "found", "led", "run", "set", "put")

// withAux puts a question's auxiliary back after its subject: "Malcolm
// Smith named MVP" + was -> "Malcolm Smith was named MVP"; "the creator of
// X born" + was -> "the creator of X was born"; "X located in" + are -> "X
// are located in". A do-auxiliary is dropped (the verb stays as the
// question has it); when neither a name nor a participle marks the
// subject's end, the auxiliary follows the whole.
func withAux(w []string, aux string) string {
	if englishDoAux[aux] {
		return strings.Join(w, " ")
	}
	lw := lowerWords(w)
	if endsInParticiple(lw) {
		p := len(w) - 1
		if englishPrepositions[lw[p]] {
			p--
		}
		return strings.Join(w[:p], " ") + " " + aux + " " + strings.Join(w[p:], " ")
	}
	if name, rest := oneName(w); len(name) > 0 && len(rest) > 0 && !capitalised(rest[0]) && lw[len(name)] != "and" {
		return strings.Join(name, " ") + " " + aux + " " + strings.Join(rest, " ")
	}
	return strings.Join(w, " ") + " " + aux
}

// superlative: "the largest mall in Texas", "the first to ...": the
// answer is its subject ("A is the largest mall in Texas").
func superlative(lw []string) bool {
	if len(lw) < 2 || lw[0] != "the" {
		return false
	}
	x := lw[1]
	return x == "most" || x == "first" || x == "last" || x == "only" || strings.HasSuffix(x, "est") && len(x) > 4
}

// endsInParticiple: "X born", "X located in".
func endsInParticiple(lw []string) bool {
	p := len(lw) - 1
	if p > 0 && englishPrepositions[lw[p]] {
		p--
	}
	return p > 0 && participle(lw[p])
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

// nounPhraseStart: a word that opens a noun phrase (a determiner, a name,
// a number), as opposed to a participle or adjective (started, older).
func nounPhraseStart(w string) bool {
	t := strings.Trim(w, ",\"'")
	if t == "" {
		return false
	}
	return englishDeterminers[strings.ToLower(t)] || capitalised(t) || unicode.IsDigit([]rune(t)[0])
}

// irregularPast are common irregular past tenses, for nounPhraseEnd.
var irregularPast = setOf("won", "wrote", "made", "began", "became", "held", "led", "ran", "took", "gave", "came", "went", "sang",
	"saw", "grew", "fought", "built", "bought", "sold", "lost", "left", "met", "paid", "told", "found", "drew", "flew", "rode", "spoke", "stood", "taught", "threw", "wore")

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

// withoutAlternatives is a question with the alternatives it offers
// removed: "Which magazine was started first, A or B?" -> "Which
// magazine was started first"; "Is A or B the largest hospital?" -> "Is
// the largest hospital". ok is false for a question without " or ".
func withoutAlternatives(w []string) ([]string, bool) {
	k := alternativeOr(w)
	if k < 0 {
		return nil, false
	}
	// The second alternative: a name, or the rest of the question.
	b := len(w)
	if name, rest := oneName(w[k+1:]); len(name) > 0 && len(rest) > 0 && !capitalised(rest[0]) {
		b = k + 1 + len(name)
		if len(rest) == 1 && strings.EqualFold(strings.Trim(rest[0], "?,"), strings.Trim(w[k-1], ",")) {
			b = len(w) // "the No Card or the Octopus card": the head both share
		}
	}
	// The first: back from "or" to a comma, or over a name; one set off
	// by commas with an apposition ("first, Hole, the rock band that
	// Ann Lee fronted, or The Wolfhounds") from the comma before it.
	s := k
	apposition := false
	if strings.HasSuffix(w[k-1], ",") {
		// The name opens after a comma and ends at one, before the
		// apposition that runs to the comma before "or".
		for j := k - 2; j > 1 && !apposition; j-- {
			if !strings.HasSuffix(w[j-1], ",") || !capitalised(strings.Trim(w[j], ",\"'")) {
				continue
			}
			for e := j; e < k-1 && capitalised(strings.Trim(w[e], ",\"'")); e++ {
				if strings.HasSuffix(w[e], ",") {
					s, apposition = j, true
					break
				}
			}
		}
	}
	for !apposition && s > 1 {
		x := strings.TrimRight(w[s-1], ",")
		if strings.HasSuffix(w[s-2], ",") {
			s--
			break
		}
		if strings.HasSuffix(w[s-2], ":") {
			s--
			break
		}
		if capitalised(x) || startsWithDigit(x) && capitalised(w[s-2]) || (nameParticles[x] || x == "and") && s-2 >= 0 && (capitalised(w[s-2]) || nameParticles[w[s-2]] || w[s-2] == "and") {
			s--
			continue
		}
		break
	}
	if s < k && s > 1 && englishDeterminers[strings.ToLower(w[s-1])] {
		s-- // "first the No Card or …": the article is the alternative's
	}
	if s == k {
		// "a democrat or a republican": the first is the word before.
		s = k - 1
		if s > 1 && englishDeterminers[strings.ToLower(w[s-1])] {
			s--
		}
	}
	if s < 1 {
		return nil, false
	}
	out := append(append([]string{}, w[:s]...), w[b:]...)
	out[s-1] = strings.TrimRight(out[s-1], ",:")
	return out, true
}

// whWords open a wh-question's interrogative.
var whWords = setOf("which", "what", "who", "whom", "whose", "where", "when", "how")

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

// endsWithAlternatives: the second alternative runs to the question's
// end ("... a democrat or a republican?").
func endsWithAlternatives(w []string) bool {
	k := alternativeOr(w)
	if k < 0 {
		return false
	}
	name, rest := oneName(w[k+1:])
	return len(name) == 0 || len(rest) == 0
}

func startsWithDigit(w string) bool {
	for _, r := range w {
		return unicode.IsDigit(r)
	}
	return false
}

// yesNoSentence: "Are Pam Veasey and Jon Jost both American?" + yes ->
// "Yes, Pam Veasey and Jon Jost are both American."; + no -> "No, Pam
// Veasey and Jon Jost are not both American."; "Did X direct Y?" -> "Yes,
// X did direct Y." The subject is the name the question opens with (after
// up to two lowercase words: "the documentaries", "musicians").
func yesNoSentence(w []string, yes bool) string {
	aux, body := strings.ToLower(w[0]), w[1:]
	word, not := "Yes,", ""
	if !yes {
		word, not = "No,", "not"
	}
	both := len(body) > 0 && strings.EqualFold(body[0], "both")
	if both {
		body = body[1:]
	}
	lead := 0
	for lead < len(body) && lead < 2 && !capitalised(body[lead]) {
		lead++
	}
	name, pred := nameRun(body[lead:])
	if len(name) == 0 || len(pred) == 0 {
		return sentence(word, not, strings.Join(w[1:], " "))
	}
	subj := strings.Join(append(append([]string{}, body[:lead]...), name...), " ")
	if len(pred) > 2 && strings.EqualFold(pred[0], "and") {
		// "the Harbour Band and the Quay Players": a second thing,
		// with its own article.
		lead2 := 1
		for lead2 < len(pred) && lead2 < 3 && !capitalised(pred[lead2]) {
			lead2++
		}
		if name2, rest := nameRun(pred[lead2:]); len(name2) > 0 && len(rest) > 0 {
			subj += " " + strings.Join(pred[:lead2], " ") + " " + strings.Join(name2, " ")
			pred = rest
		}
	}
	if len(pred) > 0 && strings.EqualFold(pred[0], "both") {
		both, pred = true, pred[1:]
	}
	b := ""
	if both {
		b = "both"
	}
	return sentence(word, subj, aux, not, b, strings.Join(pred, " "))
}

// replaceInterrogative puts the answer in place of the interrogative
// phrase inside a question ("... in what year" -> "... in 1932", "...
// how many weeks" -> "... nine weeks", "... named after who" -> "...
// named after Nixon"). what, which and how many are preferred to who and
// whom, which are as often relative pronouns ("a driver who retired in
// what year"); of several, the last is taken.
func replaceInterrogative(w, lw []string, a string) (string, bool) {
	at, who := -1, -1
	for i := 1; i < len(w); i++ {
		switch lw[i] {
		case "what", "which":
			at = i
		case "how":
			if i+1 < len(w) && (lw[i+1] == "many" || lw[i+1] == "much") {
				at = i
			}
		case "who", "whom":
			who = i
		}
	}
	if at < 0 {
		if who < 0 {
			return "", false
		}
		return sentence(strings.Join(w[:who], " "), a, strings.Join(w[who+1:], " ")), true
	}
	end := at + 1
	switch {
	case lw[at] == "how":
		end = at + 2
		if _, err := strconv.ParseFloat(strings.ReplaceAll(a, ",", ""), 64); err != nil && !isNumberWord(a) && end < len(w) {
			end++ // "how many songs" + "300 songs"
		}
	default:
		end = whPhraseEnd(w, lw, at)
	}
	if end > len(w) {
		end = len(w)
	}
	return sentence(strings.Join(w[:at], " "), a, strings.Join(w[end:], " ")), true
}

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

func isNumberWord(a string) bool {
	_, ok := numberWords[strings.ToLower(strings.TrimSpace(a))]
	return ok
}

// SetRow is one construction of a set measured by the offline
// calibration, with its target and whether the thresholds were chosen on
// it (tuned) or not (held out).
type SetRow struct {
	Construction Construction
	Tuned        bool
	Target       float64 // 0: reported without a target
	// Read: not tuned, but rules of the judge were written from its
	// failures, so it is no clean held-out figure (HaluEval declarative).
	Read bool
}

// OfflineSet is a dataset of the offline calibration and the
// constructions it is measured under. Required sets must be present under
// --datasets; the others are skipped, and said to be, when they are not.
type OfflineSet struct {
	Name     string
	Path     string // relative to the datasets directory
	Required bool
	Load     func(path string) ([]Pair, error)
	Rows     []SetRow
	// Previous is the set's pairwise accuracy in its tuned construction
	// before the constructions were measured (0: not measured then); no
	// change to the judge may bring it below.
	Previous float64
}

// OfflineSets are the datasets of the offline calibration. The thresholds
// are chosen on the tuned rows only; the held-out rows show what the judge
// does on phrasings and data it was not tuned on.
var OfflineSets = []OfflineSet{
	{Name: "halueval/qa_one-turn", Path: "halueval/qa_one-turn_data.jsonl", Required: true, Load: LoadHaluEval, Previous: 0.923,
		Rows: []SetRow{{Given, true, 0.93, false}, {Declarative, false, 0.93, true}, {Framed, false, 0.93, false}}},
	{Name: "wikieval_sample10", Path: "wikieval_sample10/WikiEval_samples_10.jsonl", Required: true, Load: LoadWikiEval, Previous: 1.0,
		Rows: []SetRow{{Given, true, 1.0, false}}},
	{Name: "wikieval_pairwise/ff", Path: "wikieval_pairwise/ff.csv", Load: LoadWikiEvalPairwise,
		Rows: []SetRow{{Given, false, 0.95, false}}},
	{Name: "rgb/zh_fact", Path: "rgb/zh_fact.jsonl", Required: true, Load: LoadRGBFact, Previous: 0.965,
		Rows: []SetRow{{Declarative, true, 0.95, false}, {Framed, false, 0.95, false}, {Bare, false, 0.95, false}}},
	{Name: "rgb/en_fact", Path: "rgb/en_fact.jsonl", Load: LoadRGBFact,
		Rows: []SetRow{{Declarative, true, 0.95, false}, {Framed, false, 0.95, false}, {Bare, false, 0.95, false}}},
}

// SampleSet is a dataset labelled per answer rather than per pair.
type SampleSet struct {
	Name string
	Path string
	Load func(path string) ([]LabelledAnswer, error)
}

// LabelledAnswer is one answer with a human faithfulness label.
type LabelledAnswer struct {
	Question string
	Contexts []string
	Answer   string
	Faithful bool
}

// OfflineSampleSets are measured at sample level, with no target: they
// show where a lexical judge is blind.
var OfflineSampleSets = []SampleSet{
	{Name: "faithbench", Path: "faithbench/FaithBench.csv", Load: LoadFaithBench},
}

// CalibrationRow is one row of the offline calibration table.
type CalibrationRow struct {
	Construction Construction
	Tuned, Read  bool
	PairResult
	Previous float64
}

// SampleResult is a judge's agreement with per-answer labels: balanced
// accuracy of its own verdict (faithful when every statement is
// supported) and ROC-AUC of its faithfulness score.
type SampleResult struct {
	Dataset                  string
	Answers, Faithful        int
	NoStatements             int
	BalancedAccuracy, ROCAUC float64
}

// OfflineReport is the whole offline calibration.
type OfflineReport struct {
	Rows    []CalibrationRow
	Samples []SampleResult
	Skipped []string // optional sets not found, with why
}

// Missed are the rows below their target or below the set's previous
// figure.
func (r OfflineReport) Missed() []CalibrationRow {
	var out []CalibrationRow
	for _, row := range r.Rows {
		if row.Target > 0 && !row.Passed() || row.Tuned && row.Previous > 0 && row.Accuracy < row.Previous-1e-9 {
			out = append(out, row)
		}
	}
	return out
}

// CalibrateOffline measures every offline set under every construction of
// its rows, and the sample-level sets, on the first limit pairs or answers
// of each (all: 0).
func CalibrateOffline(dir string, limit int) (OfflineReport, error) {
	var rep OfflineReport
	for _, set := range OfflineSets {
		path := filepath.Join(dir, set.Path)
		pairs, err := set.Load(path)
		if err != nil {
			if !set.Required && errors.Is(err, errNotFound) {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %s not found", set.Name, path))
				continue
			}
			return rep, err
		}
		if limit > 0 && limit < len(pairs) {
			pairs = pairs[:limit]
		}
		for _, row := range set.Rows {
			cs := make([]Pair, len(pairs))
			for i, p := range pairs {
				cs[i] = Construct(p, row.Construction)
			}
			r := PairwiseAccuracy(set.Name, cs)
			r.Target = row.Target
			cr := CalibrationRow{Construction: row.Construction, Tuned: row.Tuned, Read: row.Read, PairResult: r}
			if row.Tuned {
				cr.Previous = set.Previous
			}
			rep.Rows = append(rep.Rows, cr)
		}
	}
	for _, ss := range OfflineSampleSets {
		path := filepath.Join(dir, ss.Path)
		answers, err := ss.Load(path)
		if err != nil {
			if errors.Is(err, errNotFound) {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %s not found", ss.Name, path))
				continue
			}
			return rep, err
		}
		if limit > 0 && limit < len(answers) {
			answers = answers[:limit]
		}
		rep.Samples = append(rep.Samples, SampleAgreement(ss.Name, answers))
	}
	return rep, nil
}

// SampleAgreement scores each answer and compares the verdicts and scores
// with the labels. An answer without statements scores 0: the judge has
// no evidence that it is faithful.
func SampleAgreement(name string, answers []LabelledAnswer) SampleResult {
	r := SampleResult{Dataset: name, Answers: len(answers)}
	type scored struct {
		score float64
		pos   bool
	}
	all := make([]scored, len(answers))
	var tp, tn, pos, neg int
	for i, a := range answers {
		s, ok := Faithfulness(a.Question, a.Answer, a.Contexts)
		if !ok {
			r.NoStatements++
			s = 0
		}
		all[i] = scored{s, a.Faithful}
		verdict := ok && s >= 1-1e-9
		if a.Faithful {
			pos++
			if verdict {
				tp++
			}
		} else {
			neg++
			if !verdict {
				tn++
			}
		}
	}
	r.Faithful = pos
	if pos > 0 && neg > 0 {
		r.BalancedAccuracy = (float64(tp)/float64(pos) + float64(tn)/float64(neg)) / 2
		// ROC-AUC as the probability that a faithful answer outscores an
		// unfaithful one, ties half (Mann-Whitney), from the ranks.
		sort.Slice(all, func(i, j int) bool { return all[i].score < all[j].score })
		var rankSum float64
		for i := 0; i < len(all); {
			j := i
			for j < len(all) && all[j].score == all[i].score {
				j++
			}
			mid := float64(i+j+1) / 2 // 1-based mean rank of the tie group
			for k := i; k < j; k++ {
				if all[k].pos {
					rankSum += mid
				}
			}
			i = j
		}
		r.ROCAUC = (rankSum - float64(pos)*float64(pos+1)/2) / (float64(pos) * float64(neg))
	}
	return r
}

// WriteReport writes the offline calibration as the README's tables.
func WriteReport(w io.Writer, rep OfflineReport) error {
	var b strings.Builder
	b.WriteString("| judge | dataset | construction | role | pairs | accuracy | target | wins | ties | losses | no statements |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rep.Rows {
		role := "held out"
		switch {
		case r.Tuned:
			role = "tuned"
		case r.Read:
			role = "read" // rules written from its failures, thresholds not tuned on it
		}
		target := "-"
		if r.Target > 0 {
			mark := "ok"
			if !r.Passed() {
				mark = "MISSED"
			}
			target = fmt.Sprintf("%.2f (%s)", r.Target, mark)
		}
		if r.Previous > 0 && r.Accuracy < r.Previous-1e-9 {
			target += fmt.Sprintf(", below the previous %.3f", r.Previous)
		}
		fmt.Fprintf(&b, "| offline (lexical) | %s | %s | %s | %d | %.3f | %s | %d | %d | %d | %d |\n",
			r.Dataset, r.Construction, role, r.Pairs, r.Accuracy, target, r.Wins, r.Ties, r.Losses, r.Undefined)
	}
	if len(rep.Samples) > 0 {
		b.WriteString("\n| judge | dataset | answers | faithful (label) | no statements | balanced accuracy | ROC-AUC |\n")
		b.WriteString("|---|---|---:|---:|---:|---:|---:|\n")
		for _, s := range rep.Samples {
			fmt.Fprintf(&b, "| offline (lexical) | %s | %d | %d | %d | %.3f | %.3f |\n",
				s.Dataset, s.Answers, s.Faithful, s.NoStatements, s.BalancedAccuracy, s.ROCAUC)
		}
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(&b, "\nskipped: %s\n", s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// errNotFound marks a calibration file that is absent, as opposed to
// malformed: an optional set that is absent is skipped, a malformed one
// is an error.
var errNotFound = errors.New("not found")

func openData(path string) (*os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("calibration data: %w: %w (is --datasets pointing at the shared datasets directory?)", errNotFound, err)
	}
	if err != nil {
		return nil, fmt.Errorf("calibration data: %w", err)
	}
	return f, nil
}

func readCSV(path string) ([]map[string]string, error) {
	f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no header", path)
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			if i < len(r) {
				m[h] = r[i]
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// LoadWikiEvalPairwise reads the 50 WikiEval faithfulness pairs of ff.csv
// (rows i and i+50 are one question's two answers, in no fixed order).
// Its label column is only the slot, so the grounded answer is recovered
// from ar.csv beside it: the answer-relevance file pairs each question's
// grounded answer with a poor one, so of the two ff answers the grounded
// one is the one ar.csv also has. The match is by word overlap, since a
// few answers differ in whitespace or a character; a pair where neither
// answer matches clearly is left out.
func LoadWikiEvalPairwise(path string) ([]Pair, error) {
	ff, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	arPath := filepath.Join(filepath.Dir(path), "ar.csv")
	ar, err := readCSV(arPath)
	if err != nil {
		return nil, err
	}
	if len(ff)%2 != 0 {
		return nil, fmt.Errorf("%s: %d rows, want two per question", path, len(ff))
	}
	grounded := map[string][]string{}
	for _, r := range ar {
		q := strings.TrimSpace(r["question"])
		grounded[q] = append(grounded[q], r["answer"])
	}
	half := len(ff) / 2
	var out []Pair
	for i := 0; i < half; i++ {
		a, b := ff[i], ff[i+half]
		q := strings.TrimSpace(a["question"])
		if q != strings.TrimSpace(b["question"]) {
			return nil, fmt.Errorf("%s: rows %d and %d are not the same question", path, i+2, i+half+2)
		}
		sa, sb := bestDice(a["answer"], grounded[q]), bestDice(b["answer"], grounded[q])
		ctx := strings.ReplaceAll(a["context"], `\n`, "\n")
		p := Pair{Question: q, Contexts: []string{ctx}}
		switch {
		case sa >= 0.95 && sa-sb >= 0.05:
			p.Faithful, p.Unfaith = a["answer"], b["answer"]
		case sb >= 0.95 && sb-sa >= 0.05:
			p.Faithful, p.Unfaith = b["answer"], a["answer"]
		default:
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// bestDice is the highest Dice coefficient of s's word multiset with any
// of the candidates'.
func bestDice(s string, cands []string) float64 {
	best := 0.0
	ws := wordCounts(s)
	for _, c := range cands {
		wc := wordCounts(c)
		shared, n := 0, 0
		for w, k := range ws {
			shared += min(k, wc[w])
			n += k
		}
		for _, k := range wc {
			n += k
		}
		if n > 0 {
			best = math.Max(best, 2*float64(shared)/float64(n))
		}
	}
	return best
}

func wordCounts(s string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.Fields(strings.ReplaceAll(s, `\n`, " ")) {
		m[strings.ToLower(w)]++
	}
	return m
}

// LoadFaithBench reads FaithBench's summaries against their sources. An
// answer is faithful when its worst annotation is Consistent or Benign
// (FaithBench's own binary reading); Questionable and Unwanted are not.
func LoadFaithBench(path string) ([]LabelledAnswer, error) {
	rows, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	var out []LabelledAnswer
	for i, r := range rows {
		label := strings.TrimSpace(r["worst-label"])
		var faithful bool
		switch label {
		case "Consistent", "Benign":
			faithful = true
		case "Questionable", "Unwanted":
		default:
			return nil, fmt.Errorf("%s:%d: worst-label %q is none of Consistent, Benign, Questionable, Unwanted", path, i+2, label)
		}
		out = append(out, LabelledAnswer{Contexts: []string{r["source"]}, Answer: r["summary"], Faithful: faithful})
	}
	return out, nil
}
