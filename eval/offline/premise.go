package offline

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// The question's part in a statement. RAGAS's statement step reads the
// answer with the question in hand; so does the support test, in three
// ways:
//
//   - content the statement repeats from the question is weighted
//     QuestionEchoWeight (an echo proves nothing), except comparisons
//     (comparativeFeats), which are the claim even when the question
//     asks them;
//   - a statement that restates a wh-question around its answer takes the
//     question's names as given (restates, missingName);
//   - a yes or a no is the question's proposition affirmed or denied
//     (yesno.go).

// RestateShare is the least share of the question's content a statement
// must repeat to be a restatement of it ("Who is the CEO of Facebook in
// 2021?" -> "The CEO of Facebook in 2021 is Mark Zuckerberg."). Measured
// with `ragscope calibrate`: 0.5-0.8 give RGB 0.970-0.975 (zh) and 0.950
// (en); below 0.7 HaluEval's given answers lose pairs (0.928 at 0.5) to
// hallucinated answers that repeat part of the question around a wrong
// name, and 0.8 costs its declarative construction a little (0.614).
const RestateShare = 0.7

// restates reports whether the statement restates the question around an
// answer of its own, for a question that presupposes its content (see
// presupposes).
func restates(st, q *span) bool {
	if q == nil {
		return false
	}
	qf := factsOf(q)
	if !qf.presupposes {
		return false
	}
	asked := qf.asked
	n, in := 0, 0
	for f := range q.feats {
		if asked[f] && !st.feats[f] {
			continue
		}
		n++
		if st.feats[f] {
			in++
		}
	}
	return n > 0 && float64(in) >= RestateShare*float64(n)
}

// questionFacts are what the support test asks of a question for every
// statement and sentence it tests: worked out once per question text.
type questionFacts struct {
	presupposes, alternatives bool
	asked                     map[string]bool // interrogativeFeats
	stems                     []string        // stems of its text, for namedAsWritten
	// compares: the question has a comparison word (mayCompare); cands
	// are the two things it offers (candidates); comparison is its own
	// comparison word, which a bare answer claims (comparisonWord).
	compares   bool
	cands      questionCandidates
	comparison questionComparison
	same       sameFacts // a "same nationality" question (sameQuestion)
	// premises are its sentences that are no questions (questionPremise).
	premises []questionSentence
	// alts are its two predicate alternatives, for chosen.
	alts questionAlternatives
}

type questionAlternatives struct {
	one, other map[string]bool
	ok         bool
}

type questionCandidates struct {
	x, y entity
	echo string
	ok   bool
}

type questionComparison struct {
	word  string
	cmp   comparative
	units map[string]bool
	ok    bool
}

// factsOf is q's questionFacts, worked out once per question text; the
// facts are shared and never modified.
func factsOf(q *span) *questionFacts {
	return questions.get(q.text, func(text string) *questionFacts {
		f := &questionFacts{presupposes: presupposes(text), asked: interrogativeFeats(text),
			alternatives: !q.hasHan && offersAlternatives(text), stems: stems(text), compares: mayCompare(q)}
		if text != "" && !q.hasHan {
			c := &f.cands
			c.x, c.y, c.echo, c.ok = candidates(text)
		}
		c := &f.comparison
		c.word, c.cmp, c.units, _, c.ok = comparisonWord(lexemes(text))
		f.same = sameFactsOf(text)
		f.premises = premisesOf(text)
		a := &f.alts
		a.one, a.other, a.ok = predicateAlternatives(text)
		return f
	})
}

var questions = newMemo[*questionFacts](analysisCacheSize)

// interrogativeFeats are the features of a question's interrogative
// phrase: "which shared genre", "what type of vegetation", "which former
// member". The answer takes its place ("Superheaven and Oceansize are
// bands of rock."), so a restatement need not repeat it.
func interrogativeFeats(question string) map[string]bool {
	w := strings.Fields(question)
	lw := make([]string, len(w))
	for i, x := range w {
		lw[i] = strings.ToLower(strings.Trim(x, ",.?!\"'"))
	}
	for i, x := range lw {
		if x != "what" && x != "which" && x != "whose" {
			continue
		}
		end := whPhraseEnd(w, lw, i)
		if i == 0 {
			// "Which close friend of A, B and C did X attempt to
			// rescue?", "Which tennis player from the Quay club was
			// born in Kent?": the answer stands for the whole noun
			// phrase before the auxiliary.
			if e := nounPhraseEnd(w, lw, 1); e < len(w) && englishAux[lw[e]] {
				end = max(end, e)
			}
		}
		return analyze(strings.Join(w[i+1:end], " ")).feats
	}
	return nil
}

// presupposes reports whether a question takes its content as given: a
// wh-question ("Who won the 2010 World Cup?" presupposes that someone
// won it). A yes/no question asks its content, and an alternative
// question ("X or Y?") offers its names as candidates, not as facts: an
// answer that repeats one of them claims it.
func presupposes(question string) bool {
	q := strings.ToLower(strings.TrimSpace(stripControls(question)))
	if q == "" {
		return false
	}
	if containsHan(q) {
		return !strings.Contains(q, "还是") && !strings.Contains(q, "是否") && !strings.Contains(q, "是不是") &&
			!strings.HasSuffix(strings.TrimRight(q, "？?。 "), "吗")
	}
	w := strings.Fields(q)
	if englishQuestionAux[strings.Trim(w[0], ",")] {
		// "Was the president who appointed X a democrat or a
		// republican?" takes the president as given and asks which of
		// two things he was; a yes/no question, or one that offers
		// names, presupposes nothing.
		_, _, ok := predicateAlternatives(stripControls(question))
		return ok
	}
	return !offersAlternatives(stripControls(question))
}

// offersAlternatives reports whether an English question offers its names
// as candidates to choose from: "X or Y?", "Between X and Y, which one
// is in Tennessee?", "Which of the following ...". A candidate is not a
// premise: the answer that names it claims it.
func offersAlternatives(question string) bool {
	w := strings.Fields(strings.TrimRight(strings.TrimSpace(question), "?"))
	if alternativeOr(w) >= 0 {
		return true
	}
	for i, x := range w {
		if !strings.EqualFold(x, "which") || i+1 >= len(w) {
			continue
		}
		if strings.EqualFold(strings.Trim(w[i+1], ",?"), "one") {
			return true
		}
		// "Which of the following …: X or Y?" offers the names it lists;
		// "which of his movies" asks for one the question does not name.
		if strings.EqualFold(w[i+1], "of") && i+2 < len(w) {
			next := strings.ToLower(strings.Trim(w[i+2], ",:?"))
			if listedOf[next] || next == "the" && i+3 < len(w) && listedOfThe[strings.ToLower(strings.Trim(w[i+3], ",:?"))] {
				return true
			}
		}
	}
	return false
}

// listedOf are the words after "which of" that point at candidates the
// question lists: "which of the following", "which of these two".
var (
	listedOf    = setOf("these", "those", "them", "both")
	listedOfThe = setOf("following", "two", "three", "four", "above")
)

// comparativeFeats are the features of comparisons (born first, closer,
// has more species, younger). Repeated from the question they are still
// the claim: "Who was born first, X or Y?" asks for the comparison, and
// "Y was born first" asserts it, which only a sentence that says so
// about Y supports. They are never discounted as an echo.
var comparativeFeats = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"first", "last", "earlier", "earliest", "later", "latest", "older", "oldest", "younger", "youngest",
		"more", "most", "fewer", "fewest", "less", "least", "larger", "largest", "bigger", "biggest", "smaller", "smallest",
		"longer", "longest", "shorter", "shortest", "taller", "tallest", "closer", "closest", "farther", "further",
		"higher", "highest", "lower", "lowest", "before", "sooner"} {
		if !englishStop[w] {
			m["w:"+stem(w)] = true
		}
	}
	return m
}()

// residual is what a statement that restates the question adds to it: its
// words, in order, less those the question has ("The director of the 2003
// film ... is Todd Phillips." -> "Todd Phillips"). RAGAS's statement step
// would break such a sentence into the question's premise and the claim
// "Todd Phillips is the director"; the claim is the residual, which the
// support test then checks as it checks a short answer to the question.
// Empty when the statement is not a restatement or adds no content.
func residual(st, q *span) string {
	if st.residue || st.hasHan || !restates(st, q) {
		return ""
	}
	words := strings.Fields(st.text)
	keep := make([]bool, len(words))
	content := false
	wordFeatures := make([]map[string]bool, len(words))
	for i, w := range words {
		wordFeatures[i] = analyzeText(w).feats // one word: not worth a place in the cache
		for k := range wordFeatures[i] {
			if !q.feats[k] && !q.unis[k] {
				keep[i], content = true, true
				break
			}
		}
	}
	if !content {
		// Every word is the question's: the answer may be one it names
		// elsewhere (repeated), or one of two things it asks between.
		content = repeated(words, wordFeatures, q, keep) || chosen(words, wordFeatures, q, keep)
	}
	// A name is kept whole: "National Football League" stays so, though
	// the question says football.
	for i := 0; i < len(words); {
		j := i
		for j < len(words) && (capitalised(trimWord(words[j])) || j > i && nameParticles[words[j]] && j+1 < len(words) && capitalised(trimWord(words[j+1]))) {
			j++
			if endsInPunct(words[j-1]) {
				break // "Institute (PSI), Dennis Howard Marks" is two names
			}
		}
		if j-i >= 2 {
			any := false
			for k := i; k < j; k++ {
				any = any || keep[k]
			}
			for k := i; k < j && any; k++ {
				keep[k] = true
			}
		}
		if j == i {
			j++
		}
		i = j
	}
	var kept []string
	for i, w := range words {
		if keep[i] {
			kept = append(kept, w)
		}
	}
	if !content || len(kept) == len(words) {
		return ""
	}
	return strings.TrimRight(strings.Join(kept, " "), ".,;:!? ")
}

// repeated marks in keep the statement's words that it says more often
// than the question does, the later ones, and reports whether there is
// one: the answer the question names elsewhere ("… in New South Wales,
// Australia, … active in all of Australia."), where a name the statement
// merely moves ("Max Volmer won the Nobel Prize in 1943." for "Who won a
// Nobel Prize in 1943 and is associated with Max Volmer?") adds nothing.
func repeated(words []string, feats []map[string]bool, q *span, keep []bool) bool {
	// Only a statement made of the question's words gets here: the
	// question's words are not counted for every question.
	inQuestion := map[string]int{}
	for _, w := range strings.Fields(q.text) {
		if k := featureKey(analyzeText(w).feats); k != "" {
			inQuestion[k]++
		}
	}
	seen := map[string]int{}
	any := false
	for i := range words {
		k := featureKey(feats[i])
		if k == "" {
			continue
		}
		if seen[k]++; seen[k] > inQuestion[k] {
			keep[i], any = true, true
		}
	}
	return any
}

// featureKey is a word's features as one string: two words with the same
// features are the same word to repeated.
func featureKey(f map[string]bool) string {
	return strings.Join(slices.Sorted(maps.Keys(f)), " ")
}

// chosen marks in keep the words of the one alternative of a question
// like "Was X a democrat or a republican?" that the statement names ("X
// was Democrat."), and reports whether there is one; a statement that
// names both, or neither, chooses nothing.
func chosen(words []string, feats []map[string]bool, q *span, keep []bool) bool {
	alts := factsOf(q).alts
	if !alts.ok {
		return false
	}
	one, other := alts.one, alts.other
	has := func(alt map[string]bool) (at []int) {
		for i := range words {
			for f := range feats[i] {
				if alt[f] {
					at = append(at, i)
					break
				}
			}
		}
		return at
	}
	a, b := has(one), has(other)
	if len(a) > 0 == (len(b) > 0) {
		return false
	}
	for _, i := range append(a, b...) {
		keep[i] = true
	}
	return true
}

// predicateAlternatives are the features of the two alternatives of a
// question whose second alternative runs to its end and is no name ("…
// a democrat or a republican?"); ok is false for any other question.
func predicateAlternatives(question string) (one, other map[string]bool, ok bool) {
	w := strings.Fields(strings.TrimRight(strings.TrimSpace(question), "?"))
	k := alternativeOr(w)
	if k < 1 || k+1 >= len(w) {
		return nil, nil, false
	}
	if name, _ := oneName(w[k+1:]); len(name) > 0 {
		return nil, nil, false
	}
	one = analyzeText(w[k-1]).feats
	other = analyzeText(strings.Join(w[k+1:], " ")).feats
	if len(one) == 0 || len(other) == 0 {
		return nil, nil, false
	}
	return one, other, true
}

func trimWord(w string) string {
	return strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// nameRuns are a text's names of two or more capitalised words
// ("Lullwater Estate", "Band of Brothers"), each as written; a particle
// between capitalised words (of, for, de, van) belongs to the name, and a
// capitalised article or pronoun opening a sentence does not.
func nameRuns(text string) []string {
	var out []string
	var run []string
	caps := 0
	flush := func() {
		for len(run) > 0 && !capitalised(run[len(run)-1]) {
			run = run[:len(run)-1]
		}
		// "the Harbour Band American rock bands": the demonym opens
		// what is said of the name (as nameRun has it).
		if len(run) > 1 && demonym(run[len(run)-1]) {
			run, caps = run[:len(run)-1], caps-1
		}
		if caps >= 2 {
			out = append(out, strings.Join(run, " "))
		}
		run, caps = nil, 0
	}
	for _, w := range strings.Fields(stripFrame(stripMarkup(text))) {
		t := trimWord(w)
		switch {
		case t != "" && capitalised(t) && !(len(run) == 0 && englishStop[strings.ToLower(t)]):
			run = append(run, t)
			caps++
		case len(run) > 0 && nameParticles[t]:
			run = append(run, t)
		default:
			flush()
		}
		if t != w && strings.ContainsAny(w[len(w)-1:], ",;:.!?()\"") {
			flush()
		}
	}
	flush()
	return out
}

// stems is a text's words, lowered and stemmed, in order.
func stems(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' }) {
		if w = strings.Trim(w, "'"); w != "" {
			out = append(out, stem(w))
		}
	}
	return out
}

// namedAsWritten reports whether each name of two or more words in the
// text is written, its words in order and together, in the sentence, and
// returns the first that is not: a name is one thing, and its words from
// two names ("Rainbow Estate" from "Rainbow Terrace, now known as
// Lullwater Estate"; "Stilted Hectors" from "Hector on Stilts") make a
// hallucinated one. The question's names are premises (missingName),
// except the candidates of a question that offers alternatives.
func namedAsWritten(text, sentence string, q *span) (string, bool) {
	runs := nameRuns(text)
	if len(runs) == 0 {
		return "", true
	}
	seq := stems(sentence)
	var qseq []string
	if q != nil && !factsOf(q).alternatives {
		qseq = factsOf(q).stems
	}
	for _, r := range runs {
		rs := stems(r)
		if !containsSeq(seq, rs) && !containsSeq(qseq, rs) {
			return r, false
		}
	}
	return "", true
}

// containsSeq reports whether seq has the words of sub in order, each
// within NameGap words of the one before: "President Obama" is written in
// "President Barack Obama", "Rainbow Estate" is not in "Rainbow Terrace,
// now known as Lullwater Estate", nor "Stilted Hectors" in "Hector on
// Stilts".
func containsSeq(seq, sub []string) bool {
	if len(sub) == 0 {
		return true
	}
	for i := range seq {
		if seq[i] != sub[0] {
			continue
		}
		at, j := i, 1
		for ; j < len(sub); j++ {
			next := -1
			for k := at + 1; k < len(seq) && k <= at+1+NameGap; k++ {
				if seq[k] == sub[j] {
					next = k
					break
				}
			}
			if next < 0 {
				break
			}
			at = next
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// NameGap is how many words may come between two words of a name as the
// context writes it: a middle name, an initial, a title's article.
const NameGap = 2

// residualSupport tests what a restating statement adds to the question
// (residual) as a short answer to it, in a sentence linked to the
// question's premise. The question's names are premises, given once the
// answer's sentence is tied to them: it names them (or continues a
// sentence that does, inWindow), or it shares a name with a sentence
// that names them, or continues it with a pronoun (the two hops of
// HaluEval's knowledge, as bridged ties them). When the answer's
// sentence names one of the question's things and another thing's
// sentence is the link, that sentence must give the answer too: "X and
// Y are based in Canada" needs Canada for both.
func residualSupport(st, q *span, sents []*span) (Evidence, bool) {
	r := residual(st, q)
	if r == "" {
		return Evidence{}, false
	}
	// The residual's first word is a name when it is capitalised
	// ("Slipknot official theme"): it did not open the statement, and
	// analyze does not take a sentence's first word for a name. A stop
	// word before it keeps it from being first.
	rsp := analyzeText("and " + r) // a span of its own: residue is set on it
	rsp.residue = true
	// The premise is the question's names the statement repeats
	// (questionNames: a question's first word may be one, "Jinchang and
	// Liling, are located in which country?"); a demonym (American) says
	// what a thing is, and names none.
	var premise []string
	for f := range questionNames(q) {
		if st.feats[f] && !demonymFeat(f) {
			premise = append(premise, f)
		}
	}
	sort.Strings(premise) // the first link found must not depend on map order
	tried := 0
	for i, a := range sents {
		ev := support(rsp, q, sents[i:i+1])
		if ev.Verdict != 1 {
			continue
		}
		if _, ok := namedAsWritten(r, a.text, q); !ok {
			continue
		}
		// Each candidate's link is looked for across the contexts: a
		// context that gives the answer in thousands of sentences, none
		// tied, would cost their square. The first few decide.
		if tried++; tried > maxResidualCandidates {
			break
		}
		link, ok := premiseLink(a, rsp, q, premise, sents)
		if !ok {
			continue
		}
		ev.From = i
		if link != nil {
			ev.Reason = fmt.Sprintf("restates the question around %q: context says %q (coverage %.2f), tied to the question by %q", clip(r), clip(a.text), ev.Coverage, clip(link.text))
		} else {
			ev.Reason = fmt.Sprintf("restates the question around %q: context says %q (coverage %.2f)", clip(r), clip(a.text), ev.Coverage)
		}
		return ev, true
	}
	return Evidence{}, false
}

// maxResidualCandidates bounds the sentences giving a restatement's answer
// that residualSupport tries to tie to the question.
const maxResidualCandidates = 16

// demonymFeat reports whether a word feature is a demonym's.
func demonymFeat(f string) bool {
	return strings.HasPrefix(f, "w:") && demonym(f[2:]) || demonymStems[f]
}

// demonymStems are the demonyms stem does not leave whole (American ->
// american is whole; Chinese -> chines).
var demonymStems = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"american", "british", "english", "chinese", "japanese", "french", "german", "canadian", "australian", "indian", "italian", "spanish", "russian", "korean", "mexican", "irish", "scottish", "welsh", "dutch", "swedish", "cuban"} {
		m["w:"+stem(w)] = true
	}
	return m
}()

// premiseLink reports whether the sentence a, which gives the residual
// r, is tied to the question's names in the statement (premise), and the
// sentence that ties it when a does not name them all itself.
func premiseLink(a, r *span, q *span, premise []string, sents []*span) (*span, bool) {
	var missing, present []string
	for _, f := range premise {
		if !anyHas(sents, f) {
			// No context speaks of it: nothing ties the answer to it,
			// and nothing says otherwise (missingName).
			continue
		}
		if a.feats[f] || inWindow(a, f) || subjectHas(a, f) {
			present = append(present, f)
			continue
		}
		missing = append(missing, f)
	}
	if len(missing) == 0 {
		return nil, true
	}
	if len(present) > 0 {
		// The sentence is about one of the question's things. "Are X
		// and Y based in Canada?" asks the same of two: the other's
		// sentence must say it too. A name of another hop (the single
		// of "the single by which member of the Eagles") is a premise.
		if !conjoined(q.text, present, missing) {
			return nil, true
		}
		for _, b := range sents {
			if b == a || !mentionsAny(b, missing) {
				continue
			}
			// The other's own sentence says it, or continues the
			// answer's sentence about the same thing ("The character is
			// also voiced by Tom Kenny.").
			if coverage(r, nil, b, false) >= SupportThreshold || b.prev == a && !opensOnName(b.text) {
				return b, true
			}
		}
		return nil, false
	}
	// A sentence that names none of them is tied to one that does by a
	// name both mention, a pronoun that continues it, or, when it names
	// nothing at all ("The population was 2,523 at the 2010 census."),
	// by following it in its chunk.
	siblingsOnly := func(b *span) bool { return onlySiblings(a, b, strings.TrimPrefix(r.text, "and ")) }
	describes := len(a.names) == 0 || !opensOnName(a.text) || opensOnAcronym(a, sents)
	for _, b := range sents {
		if b == a || !mentionsAny(b, missing) {
			continue
		}
		if sharesName(a, b) && !siblingsOnly(b) || continues(a, b) || describes && (precedes(b, a) || a.next == b) ||
			continuedBy(a, b) {
			return b, true
		}
	}
	// Through one sentence between: "Stricken is a song by Harbour." |
	// "Stricken was the theme of the Quay Revolution." | "The Quay
	// Revolution … took place at the Pepsi Arena." The sentences that
	// mention the premise are indexed by their words and names, so that
	// each sentence between is looked up, not compared with all of them:
	// a context of thousands of sentences stays linear.
	var ends []*span
	at := map[*span]int{}
	byWord, byName := map[string][]int{}, map[string][]int{}
	index := func(m map[string][]int, f string, i int) {
		if len(m[f]) < 2 { // the first two: one of them may be the sentence between itself
			m[f] = append(m[f], i)
		}
	}
	for _, b := range sents {
		if b == a || !mentionsAny(b, missing) {
			continue
		}
		i := len(ends)
		ends, at[b] = append(ends, b), i
		for f := range b.feats {
			index(byWord, f, i)
		}
		for _, n := range b.names {
			index(byName, n.feat, i)
		}
	}
	if len(ends) == 0 {
		return nil, false
	}
	for _, m := range sents {
		if m == a || !(sharesName(a, m) && !siblingsOnly(m) || continues(a, m)) {
			continue
		}
		// The first sentence, in context order, that m shares a name
		// with or continues.
		first := len(ends)
		take := func(is []int) {
			for _, i := range is {
				if ends[i] != m && i < first {
					first = i
				}
			}
		}
		for _, n := range m.names {
			take(byWord[n.feat])
		}
		for f := range m.feats {
			take(byName[f])
		}
		for _, nb := range []*span{m.prev, m.next} {
			if i, ok := at[nb]; ok && nb != nil && continues(m, nb) {
				take([]int{i})
			}
		}
		if first < len(ends) {
			return ends[first], true
		}
	}
	return nil, false
}

// continuedBy reports whether the sentence after a, whose pronoun stands
// for what a opens on, shares a name with b: "Fingerlings 2 is the second
// album by Andrew Bird. Self-released in 2004, it features My Morning
// Jacket…" ties Andrew Bird's album to My Morning Jacket's sentence; or
// whether b goes on so about a sentence that shares a name with a.
func continuedBy(a, b *span) bool {
	if n := a.next; n != nil && n != b && goesOn(n) && sharesName(n, b) {
		return true
	}
	// The other way round: b goes on about a sentence that shares a name
	// with a ("The album was released March 19, 2012" after "Port of
	// Morrow is an album by The Shins", for "The Shins are from…").
	return b.prev != nil && b.prev != a && goesOn(b) && sharesName(b.prev, a)
}

// goesOn reports whether the sentence's pronoun or description stands for
// the name the sentence before it opens on, as setReferent found it.
func goesOn(sp *span) bool { return sp.refOfPrev }

// opensOnAcronym reports whether a sentence opens on an acronym no other
// sentence spells or mentions ("The CDP's population was 743 at the 2010
// census." after a sentence about Orient, Long Island): the abbreviation
// of a description, which goes on about the chunk's subject as "The
// hamlet's population…" would, not a name of its own.
func opensOnAcronym(a *span, sents []*span) bool {
	w := strings.Fields(stripMarkup(a.text))
	if len(w) < 2 || !englishDeterminers[strings.ToLower(w[0])] {
		return false
	}
	t := strings.TrimSuffix(strings.TrimSuffix(trimWord(w[1]), "'s"), "’s")
	if len(t) < 2 || len(t) > 5 || strings.ToUpper(t) != t || strings.ToLower(t) == t {
		return false
	}
	f := "w:" + stem(strings.ToLower(t))
	for _, b := range sents {
		if b != a && b.feats[f] {
			return false
		}
	}
	return true
}

// opensOnName reports whether a sentence opens on a subject of its own:
// a name ("Rafael Nadal was...", "The Shins are..."), not a description
// that refers back ("The film was directed by...", "Founded in 1928, it
// plays...") or the rest of a sentence cut at a parenthesis ("born 20
// November 1963) is an American actress.").
func opensOnName(text string) bool {
	w := strings.Fields(stripMarkup(text))
	if len(w) == 0 {
		return false
	}
	first := strings.Trim(w[0], "\"'(")
	if englishDeterminers[strings.ToLower(first)] {
		return len(w) > 1 && capitalised(strings.Trim(w[1], "\"'("))
	}
	lf := strings.ToLower(first)
	return capitalised(first) && !englishStop[lf] && !participle(lf) && !pronouns[lf]
}

// onlySiblings reports whether every name a and b share is listed with
// the residual in a, an item beside it ("such as Mumford & Sons, Twenty
// One Pilots"): the shared name is then another candidate, and what b
// says of it is not said of the residual. A shared word of the residual
// itself is a link: b names the answer too ("played by actor Ann Lee"
// for the residual "Ann Marie Lee").
func onlySiblings(a, b *span, residual string) bool {
	words := strings.Fields(a.text)
	st := make([]string, len(words))
	for i, w := range words {
		st[i] = stem(strings.ToLower(trimWord(w)))
	}
	// The residual's words, among a's words that have a stem ("&" has
	// none).
	rs := stems(residual)
	var idx []int
	var fs []string
	for i, x := range st {
		if x != "" {
			idx, fs = append(idx, i), append(fs, x)
		}
	}
	start, end := -1, -1
	for k := 0; k+len(rs) <= len(fs) && len(rs) > 0; k++ {
		if slices.Equal(fs[k:k+len(rs)], rs) {
			start, end = idx[k], idx[k+len(rs)-1]
			break
		}
	}
	if start < 0 {
		return false
	}
	// The name each word belongs to: a run of capitalised words, cut
	// after a word that ends in punctuation.
	runStart := func(i int) int {
		for i > 0 && capitalised(trimWord(words[i-1])) && !endsInPunct(words[i-1]) {
			i--
		}
		return i
	}
	runEnd := func(i int) int {
		for i+1 < len(words) && capitalised(trimWord(words[i+1])) && !endsInPunct(words[i]) {
			i++
		}
		return i
	}
	listGap := func(i, j int) bool { // words strictly between i and j
		n := 0
		for k := i + 1; k < j; k++ {
			if st[k] != "and" && st[k] != "or" && st[k] != "" {
				return false
			}
			n++
		}
		return n <= 1
	}
	shared := false
	for _, n := range a.names {
		if !b.feats[n.feat] {
			continue
		}
		shared = true
		at := -1
		for i := range st {
			if "w:"+st[i] == n.feat && (i < start || i > end) {
				at = i
				break
			}
		}
		if at < 0 {
			return false // the shared word is the residual's own
		}
		if at > end && !listGap(end, runStart(at)) || at < start && !listGap(runEnd(at), start) {
			return false
		}
	}
	return shared
}

func endsInPunct(w string) bool {
	return strings.ContainsAny(w[len(w)-1:], ",;:.!?)")
}

// precedes reports whether b comes up to PremiseWindow sentences before a
// in its chunk.
func precedes(b, a *span) bool {
	for p, k := a.prev, 0; p != nil && k < PremiseWindow; p, k = p.prev, k+1 {
		if p == b {
			return true
		}
	}
	return false
}

// conjoined reports whether the question joins a name of one set to a
// name of the other with "and" ("Harbour Airport and Quay Air"): the
// words between them are capitalised words of the two names and the
// "and".
func conjoined(question string, one, other []string) bool {
	if len(one) == 0 {
		return false
	}
	in := func(set []string, w string) bool { return slices.Contains(set, "w:"+stem(strings.ToLower(w))) }
	w := strings.Fields(question)
	for i, x := range w {
		if !strings.EqualFold(strings.Trim(x, ","), "and") {
			continue
		}
		var l1, l2, r1, r2 bool
		for j := i - 1; j >= 0 && capitalised(strings.Trim(w[j], ",\"'")); j-- {
			t := strings.Trim(w[j], ",\"'")
			l1, l2 = l1 || in(one, t), l2 || in(other, t)
		}
		// The word before the names, over the particles inside them
		// ("Prince William, Duke of Gloucester and …").
		j := i - 1
		for j >= 0 && (capitalised(strings.Trim(w[j], ",\"'")) || j > 0 && nameParticles[w[j]] && capitalised(w[j-1])) {
			j--
		}
		if j >= 0 && listIntroducers[strings.ToLower(strings.Trim(w[j], ",\"'"))] {
			// "the band consisting of A, B and C": the names are what
			// the question says of its subject, not things it asks
			// the same of.
			continue
		}
		r := i + 1
		if r+1 < len(w) && englishDeterminers[strings.ToLower(w[r])] {
			r++ // "X and the Quay Players"
		}
		for j := r; j < len(w) && capitalised(strings.Trim(w[j], ",\"'?")); j++ {
			t := strings.Trim(w[j], ",\"'?")
			r1, r2 = r1 || in(one, t), r2 || in(other, t)
		}
		if l1 && r2 || l2 && r1 {
			return true
		}
	}
	return false
}

// listIntroducers put a list of names after them as an object: "a band
// consisting of …", "a film starring …".
var listIntroducers = setOf("of", "by", "with", "starring", "featuring", "including", "consisting")

// mentionsAny reports whether the sentence, or a sentence it continues
// with a pronoun (inWindow), has one of the features.
func mentionsAny(b *span, feats []string) bool {
	for _, f := range feats {
		if b.feats[f] || inWindow(b, f) || subjectHas(b, f) {
			return true
		}
	}
	return false
}

// subjectHas reports whether a sentence that goes on about its chunk's
// subject ("The restaurant has appeared in films such as Old School.",
// after "The Quality Cafe is a diner in Los Angeles.") has the feature in
// the sentences it goes on from, up to PremiseWindow back.
func subjectHas(sp *span, f string) bool {
	for p, k := sp, 0; k < PremiseWindow && p.prev != nil && (p.pronoun || !opensOnName(p.text)); k++ {
		p = p.prev
		if p.feats[f] || p.unis[f] {
			return true
		}
	}
	return false
}
