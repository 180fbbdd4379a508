package calibrate

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

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

// interrogatives are replaced by the answer to turn a question into a
// statement, longest first (什么时候 before 什么).
var interrogatives = []string{"哪一年", "哪年", "什么时候", "是多少", "有多少", "多少", "是哪个", "是哪里", "在哪里", "在哪", "是什么", "是谁", "哪个", "哪里", "什么", "谁", "哪", "几"}

// StateAnswer turns a Chinese question and an answer into a declarative
// sentence: 澳大利亚的首都在哪 + 堪培拉 -> 澳大利亚的首都在堪培拉. A question
// without an interrogative word becomes "<question>是<answer>".
func StateAnswer(query, answer string) string {
	q := strings.TrimRight(strings.TrimSpace(query), "？?。 ")
	for _, w := range interrogatives {
		if i := strings.Index(q, w); i >= 0 {
			repl := answer
			switch w {
			case "是多少", "是哪个", "是哪里", "是什么", "是谁":
				repl = "是" + answer
			case "有多少":
				repl = "有" + answer
			case "在哪里", "在哪":
				repl = "在" + answer
			case "什么时候":
				repl = "于" + answer
			case "哪一年", "哪年":
				repl = strings.TrimSuffix(answer, "年") + "年"
			}
			return q[:i] + repl + q[i+len(w):] + "。"
		}
	}
	return q + "是" + answer + "。"
}
