package offline

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Thresholds of the support test, chosen with `ragscope calibrate` on the
// three public datasets (HaluEval qa, WikiEval sample, RGB zh_fact). A grid
// of SupportThreshold 0.4-0.8 by QuestionEchoWeight 0-1 was measured; these
// values pass all three targets with the widest margins (HaluEval 0.923,
// WikiEval 10/10, RGB 0.965). At 0.72 WikiEval drops to 9.5/10, at 0.62
// HaluEval falls to 0.918; a weight of 0 drops HaluEval to 0.887, and 0.3 or
// more costs RGB 3-8 points (its swapped answer is one word in a sentence
// that otherwise repeats the question). Those figures predate the answer
// constructions and the question rules (premise.go, yesno.go); the
// README's calibration section has the current table.
const (
	// SupportThreshold is the least (weighted) share of a statement's
	// content one context sentence must contain for the statement to be
	// supported: about two thirds.
	SupportThreshold = 0.67
	// QuestionEchoWeight is the weight of statement content that is also in
	// the question. Repeating the question proves nothing; what decides
	// faithfulness is the content the answer adds.
	QuestionEchoWeight = 0.1
	// AlignMinOverlap is the least number of shared features for a clause of
	// the statement and a clause of the context to be about the same thing,
	// which the negation detector requires before comparing their polarity.
	AlignMinOverlap = 2
	// PremiseWindow is how many sentences before and after the matching
	// one, in its chunk, may hold a name a restating statement takes from
	// the question (see missingName and inWindow). 1 and 3 give the same
	// calibration figures but HaluEval declarative's (0.713, 0.715 with
	// bridged support, bridge.go; 0.615, 0.617 before it).
	PremiseWindow = 2
)

// Detector names, as they appear at the end of a reason.
const (
	DetectorNegation = "negation conflict"
	DetectorNumber   = "number conflict"
	DetectorName     = "unsupported name"
	// DetectorValue: the context gives the thing another value of a keyed
	// attribute (family Fabaceae for "Indigofera belongs to the family
	// Cupressaceae"), see valueConflict.
	DetectorValue = "value conflict"
	// DetectorRole: the context binds the statement's name to another
	// verb and the statement's verb to someone else ("directed by A and
	// written by B" against "directed by B"), see roleConflict.
	DetectorRole = "role conflict"
)

// Evidence is the outcome of the support test of one statement.
type Evidence struct {
	Verdict  int     // 1 supported, 0 not
	Coverage float64 // share of the statement's (weighted) content found in Quote's sentence
	Quote    string  // the best-matching context sentence, or the negated clause for a negation conflict
	// From is the index, among the sentences tested, of the one Quote comes
	// from; -1 when there is no quote.
	From     int
	Detector string // "" or one of the Detector constants
	Reason   string
}

// Support tests a statement against the contexts: it is supported when at
// least SupportThreshold of its content is found in one context sentence and
// neither the negation nor the number detector fires. The question, when
// given, discounts the content the statement merely repeats from it.
func Support(statement, question string, contexts []string) Evidence {
	sents := spansOf(contexts)
	var q *span
	if question != "" {
		q = analyze(question)
	}
	return support(analyze(statement), q, sents)
}

// spansOf are the analysed sentences of contexts, in order.
func spansOf(contexts []string) []*span {
	var sents []*span
	for _, c := range contexts {
		sents = append(sents, contextSpans(c)...)
	}
	return sents
}

// contextSpans splits a context into sentences and analyses each; the
// records of a structured context follow, each tested as one more
// sentence (see recordSpans). They come after the sentences so that, at
// equal coverage, the single field is the one quoted.
func contextSpans(text string) []*span {
	ss := sentencesOf(text)
	out := make([]*span, 0, len(ss))
	for i, s := range ss {
		sp := analyzeText(s) // its prev and next are set below
		if i > 0 {
			sp.prev, out[i-1].next = out[i-1], sp
		}
		out = append(out, sp)
	}
	for _, sp := range out {
		setReferent(sp)
		setCountries(sp)
	}
	setPlaces(out)
	return append(out, recordSpans(text)...)
}

// neighbourhood is a sentence with its neighbours in the same chunk, where
// a name the sentence refers to by a pronoun is usually spelled out.
func neighbourhood(sp *span) []*span {
	out := []*span{sp}
	if sp.prev != nil {
		out = append(out, sp.prev)
	}
	if sp.next != nil {
		out = append(out, sp.next)
	}
	return out
}

func support(st, q *span, sents []*span) Evidence {
	if len(sents) == 0 {
		return Evidence{From: -1, Reason: "no retrieved context to check the statement against"}
	}
	// A comparison is checked on the values the context gives its two
	// things (compare.go); one that cannot be is tested as any statement.
	if ev, ok := comparisonEvidence(st, q, sents); ok {
		return ev
	}
	if ev, ok := valueConflict(st, sents); ok {
		return ev
	}
	useUnis := st.hasHan && countPrefix(st.feats, "h:") < 2
	best, bestCov := -1, -1.0
	for i, cs := range sents {
		if cov := coverage(st, q, cs, useUnis); cov > bestCov {
			best, bestCov = i, cov
		}
	}
	if bestCov < 0 {
		return Evidence{From: -1, Reason: "the statement has no content words to check"}
	}
	ev := Evidence{Coverage: bestCov, Quote: sents[best].text, From: best}
	// The best-matching sentence is checked for the opposite polarity. When
	// it does not cover the statement, any other sentence may hold the
	// refutation (the taxpayer answer shares only the subject with 保持不变);
	// when it does and agrees, a sentence that overlaps less (about another
	// subject) does not overrule it.
	negSt := withoutPremiseNegations(st, q)
	if quote, detail, ok := negationConflict(negSt, sents[best]); ok {
		return negationEvidence(ev, quote, detail, best)
	}
	if bestCov < SupportThreshold {
		for i, cs := range sents {
			if i == best {
				continue
			}
			if quote, detail, ok := negationConflict(negSt, cs); ok {
				return negationEvidence(ev, quote, detail, i)
			}
		}
	}
	if detail, ok := numberConflict(st, q, sents[best], sents, bestCov >= SupportThreshold); ok {
		ev.Detector = DetectorNumber
		ev.Reason = fmt.Sprintf("context says %q (coverage %.2f); %s (%s)", clip(ev.Quote), ev.Coverage, detail, DetectorNumber)
		return ev
	}
	if bestCov >= SupportThreshold {
		if detail, ok := roleConflict(st, sents[best]); ok {
			ev.Detector = DetectorRole
			ev.Reason = fmt.Sprintf("context says %q (coverage %.2f); %s (%s)", clip(ev.Quote), ev.Coverage, detail, DetectorRole)
			return ev
		}
		if !saysSomething(st, q, sents[best]) {
			// "R Adams Cowley was also an astronaut." against "R Adams
			// Cowley (1917 – 1991) was an American surgeon": the names
			// are there, what the statement says of them is not.
			ev.Reason = fmt.Sprintf("context %q names what the statement names but says none of what it claims of it (coverage %.2f)", clip(ev.Quote), ev.Coverage)
			return ev
		}
		if n, ok := missingName(st, q, sents[best], sents); ok {
			// A restatement of a multi-hop question names what the
			// question names, which is in the other hop's sentence.
			if bev, ok := bridged(st, q, sents); ok {
				return bev
			}
			if rev, ok := residualSupport(st, q, sents); ok {
				return rev
			}
			ev.Detector = DetectorName
			ev.Reason = fmt.Sprintf("context says %q (coverage %.2f); statement names %q, which the matching context does not mention (%s)", clip(ev.Quote), ev.Coverage, n, DetectorName)
			return ev
		}
		if n, ok := namedAsWritten(st.text, withReferent(sents[best]), q); !ok {
			if rev, ok := residualSupport(st, q, sents); ok {
				return rev
			}
			ev.Detector = DetectorName
			ev.Reason = fmt.Sprintf("context says %q (coverage %.2f); statement names %q, which the matching context does not write as one name (%s)", clip(ev.Quote), ev.Coverage, n, DetectorName)
			return ev
		}
		ev.Verdict = 1
		ev.Reason = fmt.Sprintf("context says %q (coverage %.2f)", clip(ev.Quote), ev.Coverage)
		return ev
	}
	if bev, ok := bridged(st, q, sents); ok {
		return bev
	}
	if rev, ok := residualSupport(st, q, sents); ok {
		return rev
	}
	ev.Reason = fmt.Sprintf("best match %q covers %.2f of the statement's content (needs %.2f)", clip(ev.Quote), ev.Coverage, SupportThreshold)
	return ev
}

// withoutPremiseNegations is the statement without the negations it
// copies from the question it restates: "… one of few places in Europe
// where the beetle cannot be found, … described by Panzer" takes the
// "cannot" as the question's premise, which a context that says where
// the beetle can be found does not make the answer's claim. As many of a
// marker are left out as the question has, the first ones: a "not" of
// the answer's own, after the question's, is still checked. The span is
// a copy when the question has a negation; analysed spans are shared.
func withoutPremiseNegations(st, q *span) *span {
	// English only: a Chinese restatement's 不 and 没有 are too often
	// the answer's own (RGB zh_fact declarative fell 0.970 -> 0.960).
	if q == nil || st.hasHan || !restates(st, q) {
		return st
	}
	premise := map[string]int{}
	for _, c := range q.clauses {
		for _, n := range c.negs {
			premise[n.marker]++
		}
	}
	if len(premise) == 0 {
		return st
	}
	cp := *st
	cp.clauses = make([]clause, len(st.clauses))
	for i, c := range st.clauses {
		var kept []negation
		for _, n := range c.negs {
			if premise[n.marker] > 0 {
				premise[n.marker]--
				continue
			}
			kept = append(kept, n)
		}
		c.negs = kept
		cp.clauses[i] = c
	}
	return &cp
}

// capitalStems are the features of a statement's names and the stems of
// its capitalised words, worked out once per statement text
// (saysSomething runs for every sentence that covers it); shared and
// never modified.
var capitalStems = newMemo[map[string]bool](analysisCacheSize)

// saysSomething reports whether the sentence has any of what the
// statement says besides its names and the question's words: a word or a
// number that is not a name's. A statement with nothing else says it.
func saysSomething(st, q, cs *span) bool {
	isName := capitalStems.get(st.text, func(text string) map[string]bool {
		m := map[string]bool{}
		for _, n := range st.names { // st is text's analysis: the same names
			m[n.feat] = true
		}
		for _, w := range strings.Fields(text) {
			// An initial ("R Adams Cowley") and a text's first word
			// are no names to analyze; capitalised, they are a
			// name's here.
			if t := trimWord(w); t != "" && capitalised(t) {
				m["w:"+stem(strings.ToLower(t))] = true
			}
		}
		return m
	})
	any := false
	for f := range st.feats {
		if isName[f] || q != nil && (q.feats[f] || q.unis[f]) || strings.HasPrefix(f, "h:") {
			continue
		}
		any = true
		if cs.feats[f] || cs.refFeats[f] || st.residue && cs.countryFeats[f] {
			return true
		}
	}
	return !any
}

func negationEvidence(ev Evidence, quote, detail string, from int) Evidence {
	ev.Verdict, ev.Detector, ev.Quote, ev.From = 0, DetectorNegation, quote, from
	ev.Reason = fmt.Sprintf("context says %q (coverage %.2f); %s (%s)", clip(quote), ev.Coverage, detail, DetectorNegation)
	return ev
}

// inWindow reports whether a sentence that continues cs's subject has the
// feature: up to PremiseWindow sentences before or after it in its chunk,
// each opening with a pronoun that refers back ("It first aired in
// September 2006" continues "House of Anubis is a series..."). A sentence
// that opens on a subject of its own (the next paragraph of a chunk that
// joins two) does not continue it.
func inWindow(cs *span, f string) bool {
	for p, k := cs, 0; k < PremiseWindow && p.pronoun && p.prev != nil; k++ {
		p = p.prev
		if p.feats[f] || p.unis[f] {
			return true
		}
	}
	for n, k := cs, 0; k < PremiseWindow && n.next != nil && n.next.pronoun; k++ {
		n = n.next
		if n.feats[f] || n.unis[f] {
			return true
		}
	}
	return false
}

// coverage is the weighted share of the statement's features found in the
// context sentence, or -1 when the statement has none.
func coverage(st, q, cs *span, useUnis bool) float64 {
	// Integer counts, weighted once at the end: summing float weights in map
	// order rounds differently from run to run, and a coverage on a rounding
	// edge (0.375) would then print 0.37 or 0.38 for the same input.
	var plain, echo, plainFound, echoFound int
	count := func(feats, ctx map[string]bool) {
		for f := range feats {
			isEcho := q != nil && (q.feats[f] || q.unis[f]) && !comparativeFeats[f]
			if isEcho {
				echo++
			} else {
				plain++
			}
			// A comparison the statement makes is found where the
			// context makes it, not in a name that has the word.
			// A short answer's country is given by a demonym ("Australia"
			// by "an Australian businessman"); a sentence's is not ("born in
			// the United States" by "an American musician").
			if (ctx[f] || cs.refFeats[f] || st.residue && cs.countryFeats[f]) && !(st.comps[f] && !cs.comps[f]) {
				if isEcho {
					echoFound++
				} else {
					plainFound++
				}
			}
		}
	}
	if useUnis {
		// Short Chinese statements have too few bigrams for a stable share;
		// their characters decide, with numbers and words alongside. A
		// character of one of the statement's words counts only where the
		// context has the word: 英国 is not in 英格兰的国家 although both
		// characters are.
		count(st.unis, contiguousUnis(st, cs))
		count(withoutPrefix(st.feats, "h:"), cs.feats)
	} else {
		count(st.feats, cs.feats)
	}
	total := float64(plain) + QuestionEchoWeight*float64(echo)
	if total == 0 {
		return -1
	}
	return (float64(plainFound) + QuestionEchoWeight*float64(echoFound)) / total
}

// contiguousUnis are the context's unigrams that count for the statement:
// those the statement does not use in a bigram, and those of its bigrams
// the context has too. The context's own map is returned when no bigram
// of the statement is missing from it, the common case, without a copy.
func contiguousUnis(st, cs *span) map[string]bool {
	var missing []string
	for f := range st.feats {
		if strings.HasPrefix(f, "h:") && !cs.feats[f] {
			missing = append(missing, f[2:])
		}
	}
	if len(missing) == 0 {
		return cs.unis
	}
	inFound := map[string]bool{}
	inMissing := map[string]bool{}
	for f := range st.feats {
		if !strings.HasPrefix(f, "h:") {
			continue
		}
		for _, r := range f[2:] {
			if cs.feats[f] {
				inFound["u:"+string(r)] = true
			} else {
				inMissing["u:"+string(r)] = true
			}
		}
	}
	out := make(map[string]bool, len(st.unis))
	for u := range st.unis {
		if cs.unis[u] && (inFound[u] || !inMissing[u]) {
			out[u] = true
		}
	}
	return out
}

func countPrefix(m map[string]bool, p string) int {
	n := 0
	for f := range m {
		if strings.HasPrefix(f, p) {
			n++
		}
	}
	return n
}

func withoutPrefix(m map[string]bool, p string) map[string]bool {
	out := make(map[string]bool, len(m))
	for f := range m {
		if !strings.HasPrefix(f, p) {
			out[f] = true
		}
	}
	return out
}

// negationConflict compares the polarity of aligned clauses: a clause of the
// context that negates something the statement's clause affirms, on content
// the two share (or the reverse), is a conflict.
func negationConflict(st, cs *span) (quote, detail string, ok bool) {
	for _, cc := range cs.clauses {
		if len(cc.negs) == 0 {
			continue
		}
		sc := bestAligned(cc, st.clauses)
		if sc == nil || len(sc.negs) > 0 {
			continue
		}
		for _, n := range cc.negs {
			if scopeHit(n, sc) {
				return cc.text, contextNegatesDetail(n, sc), true
			}
		}
	}
	for _, sc := range st.clauses {
		if len(sc.negs) == 0 {
			continue
		}
		cc := bestAligned(sc, cs.clauses)
		if cc == nil || len(cc.negs) > 0 {
			continue
		}
		for _, n := range sc.negs {
			if scopeHit(n, cc) {
				return cc.text, fmt.Sprintf("statement negates it with %q", n.marker), true
			}
		}
	}
	return "", "", false
}

func contextNegatesDetail(n negation, sc *clause) string {
	if n.marker == "不变" {
		for _, w := range changeWords {
			if strings.Contains(sc.text, w) {
				return "statement says it changes"
			}
		}
	}
	return fmt.Sprintf("statement drops the negation %q", n.marker)
}

// bestAligned returns the clause of others that shares most content with c,
// or nil when none shares at least AlignMinOverlap features.
func bestAligned(c clause, others []clause) *clause {
	var best *clause
	bestN := 0
	for i := range others {
		n := overlap(c.feats, others[i].feats)
		if n > bestN {
			best, bestN = &others[i], n
		}
	}
	if bestN < AlignMinOverlap {
		return nil
	}
	return best
}

func overlap(a, b map[string]bool) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	n := 0
	for f := range a {
		if b[f] {
			n++
		}
	}
	return n
}

func scopeHit(n negation, c *clause) bool {
	for _, f := range n.scope {
		if c.feats[f] || c.unis[f] {
			return true
		}
	}
	return false
}

// numberConflict reports a quantity of the statement that the best-matching
// sentence gives differently (same unit, other value). When covered is true
// (the statement is otherwise supported) a quantity that no context sentence
// gives at all is a conflict too; for a statement that is unsupported anyway,
// low coverage is the better reason.
//
// A quantity the question states is a premise, not a claim: it is exempt.
func numberConflict(st, question, best *span, all []*span, covered bool) (string, bool) {
	for _, q := range st.quants {
		if hasQuantity(best, q) || question != nil && hasQuantity(question, q) {
			continue
		}
		if q.unit != "" {
			for _, c := range best.quants {
				if c.unit == q.unit {
					if c.key != "" {
						return fmt.Sprintf("statement says %s where the context's field %q gives %s", q.text, c.key, c.text), true
					}
					return fmt.Sprintf("statement says %s where the context gives %s", q.text, c.text), true
				}
			}
		}
		if !covered {
			continue
		}
		elsewhere := false
		for _, cs := range all {
			if hasQuantity(cs, q) {
				elsewhere = true
				break
			}
		}
		if !elsewhere {
			return fmt.Sprintf("statement says %s, which the context does not give", q.text), true
		}
	}
	return "", false
}

// hasQuantity reports whether the span gives q: the same value with the same
// unit, or the same value where one side has no unit or the span has no
// quantity of q's unit to contradict it (30 days vs 30 calendar days).
func hasQuantity(sp *span, q quantity) bool {
	sameValue, unitSeen := false, false
	for _, c := range sp.quants {
		if c.value == q.value && (c.unit == q.unit || c.unit == "" || q.unit == "") {
			return true
		}
		if c.value == q.value {
			sameValue = true
		}
		if c.unit == q.unit {
			unitSeen = true
		}
	}
	return sameValue && !unitSeen
}

// missingName returns the first name of the statement that the best-matching
// sentence does not mention. A swapped name (Michigan for Minnesota, NBC for
// Fox) is the commonest hallucination that still shares most words with the
// context, and a relation between two names is only backed by a sentence
// that names both. A name the question gives may also be in a neighbouring
// sentence, where a pronoun of the best one is usually spelled out.
//
// A statement that restates a wh-question around its answer ("The CEO of
// Facebook in 2021 is Mark Zuckerberg", see restates) takes the
// question's names as given: what it adds is the answer. Such a name may
// then be in a sentence that continues the matching one (inWindow), or
// nowhere in the contexts at all (Q2 of "Tesla's revenue in Q2 2020"
// against a report dated July 2020): a context that never mentions a
// premise does not contradict it. A name the contexts give elsewhere,
// about something else, is still missing.
func missingName(st, question, best *span, all []*span) (string, bool) {
	restating := restates(st, question)
	candidates := question != nil && factsOf(question).alternatives
	for _, n := range st.names {
		if best.feats[n.feat] || implies(best, n.feat) {
			continue
		}
		if question != nil && question.feats[n.feat] && !candidates {
			// When the matching sentence refers to someone by a
			// pronoun ("He is the lead singer..."), the name is
			// spelled out in the sentence before or after it.
			if !n.head || best.pronoun && nearby(best, n.feat) {
				continue
			}
			if restating && (inWindow(best, n.feat) || !anyHas(all, n.feat)) {
				continue
			}
		}
		return n.text, true
	}
	return "", false
}

func anyHas(sents []*span, f string) bool {
	for _, cs := range sents {
		if cs.feats[f] {
			return true
		}
	}
	return false
}

// clip shortens a quote for a reason line; the full sentence is in the
// sample's contexts.
func clip(s string) string {
	const max = 120
	rs := []rune(s)
	if len(rs) <= max {
		return s
	}
	return string(rs[:max]) + "..."
}

// nearby reports whether the sentence before or after sp has the feature.
func nearby(sp *span, feat string) bool {
	return sp.prev != nil && sp.prev.feats[feat] || sp.next != nil && sp.next.feats[feat]
}

// setReferent finds the name a context sentence's subject pronoun stands
// for: the name the sentence before it opens on, or, when that one too
// goes on with a pronoun, the name that one stands for. "In 2007, he was inducted into the Rock and
// Roll Hall of Fame." after "David Lee Roth (born October 10, 1954) is an
// American rock vocalist…" says it of David Lee Roth; a sentence that
// names someone else first, or opens on a common noun, leaves the pronoun
// unresolved, and the sentence is read as it is written.
func setReferent(sp *span) {
	noun := ""
	if !subjectPronoun(sp.text) {
		if noun = subjectNoun(sp.text); noun == "" {
			return
		}
	}
	p := sp.prev
	// The sentence before may be the end of a parenthesis the splitter cut
	// at a semicolon ("Jacob Kevorkian (" | "May 26, 1928 – June 3, 2011)
	// was an American pathologist."): the name is where it opened.
	for k := 0; p != nil && p.prev != nil && k < 3 && strings.Count(p.text, ")") > strings.Count(p.text, "("); k++ {
		p = p.prev
	}
	switch {
	case p == nil:
		return
	case noun != "" && !p.feats["w:"+stem(noun)]:
		return // "The mall" after a sentence that is not about a mall
	case p.ref != "":
		sp.ref, sp.refFeats = p.ref, p.refFeats
		return
	case subjectPronoun(p.text):
		return
	}
	name := openingName(p.text)
	if name == "" {
		return
	}
	sp.ref, sp.refFeats, sp.refOfPrev = name, wordFeats(name), p == sp.prev
}

// wordFeats are the "w:" features of the words of a name as written
// (a referent, a country), stop words left out.
func wordFeats(name string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(name) {
		if lw := strings.ToLower(w); !englishStop[lw] {
			if f := stem(lw); f != "" {
				m["w:"+f] = true
			}
		}
	}
	return m
}

// subjectNoun is the noun of a sentence that opens on a description
// ("The mall is one of the highest-grossing…", "The band consisted of…"),
// which stands for the name the sentence before it opens on when that
// sentence has the noun ("La Plaza Mall is a regional shopping mall").
func subjectNoun(text string) string {
	text = strings.TrimLeft(text, " \t*#>_\"'(")
	if !strings.HasPrefix(text, "The ") && !strings.HasPrefix(text, "This ") {
		// After an opening phrase: "Set in Chicago, the series is filmed…".
		first := text
		if i := strings.IndexAny(text, " \t,"); i >= 0 {
			first = text[:i]
		}
		if len(first) > 20 || !openingPrepositions[strings.ToLower(first)] && !participle(strings.ToLower(first)) {
			return ""
		}
		c := strings.Index(text, ", ")
		if c < 0 || strings.Count(text[:c], " ") > 5 {
			return ""
		}
		text = text[c+2:]
		if !strings.HasPrefix(text, "the ") && !strings.HasPrefix(text, "this ") {
			return ""
		}
	}
	rest := text[strings.IndexByte(text, ' ')+1:]
	end := strings.IndexAny(rest, " ,;:.")
	if end < 0 {
		end = len(rest)
	}
	w := strings.TrimSuffix(rest[:end], "'s")
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return ""
		}
	}
	if len(w) < 3 || englishStop[w] {
		return ""
	}
	return w
}

// subjectPronoun reports whether the sentence's subject is a personal
// pronoun: it opens with one, or with a short phrase of time or place, or
// a participle's, and then one ("In 2007, he was…", "After the war,
// she…", "Self-released in 2004, it features…"). It runs on every
// context sentence, so the common case (neither) reads one word; an
// opening "A"/"An" ("A Democrat from Texas, he …") reads the sentence's
// first few.
func subjectPronoun(text string) bool {
	text = strings.TrimLeft(text, " \t*#>_-\"'(")
	first := text
	if i := strings.IndexAny(text, " \t,"); i >= 0 {
		first = text[:i]
	}
	if len(first) > 20 {
		return false
	}
	first = strings.ToLower(first)
	if subjectPronouns[first] {
		return true
	}
	// An opening description: "A Democrat from Texas, he also served…".
	if !openingPrepositions[first] && !participle(first) && first != "a" && first != "an" {
		return false
	}
	w := strings.Fields(stripMarkup(text))
	for i := 1; i < len(w) && i <= 5; i++ {
		if strings.HasSuffix(w[i], ",") {
			return i+1 < len(w) && subjectPronouns[strings.ToLower(w[i+1])]
		}
	}
	return false
}

var (
	subjectPronouns     = setOf("he", "she", "it", "they")
	openingPrepositions = setOf("in", "on", "at", "after", "before", "during", "since", "by", "from", "until", "later", "then", "today", "now", "currently")
)

// openingName is the name a sentence opens on, its words as written
// ("The Saimaa Gesture", "David Lee Roth", "Collins"), or "" when it opens
// on anything else.
func openingName(text string) string {
	w := strings.Fields(stripMarkup(text))
	i := 0
	if len(w) > 1 && englishDeterminers[strings.ToLower(w[0])] && capitalised(strings.Trim(w[1], "\"'(")) {
		i = 1
	}
	var out []string
	for ; i < len(w); i++ {
		if len(out) > 0 && strings.HasPrefix(w[i], "(") {
			break // "The Saimaa Gesture (Finnish: …)"
		}
		t := strings.Trim(w[i], "\"'(),;:.")
		lt := strings.ToLower(t)
		switch {
		case t != "" && capitalised(t) && (len(out) > 0 || !englishStop[lt] && !participle(lt) && !pronouns[lt]):
			out = append(out, t)
		case len(out) > 0 && nameParticles[lt] && i+1 < len(w) && capitalised(strings.Trim(w[i+1], "\"'(")):
			out = append(out, t)
		default:
			return strings.Join(out, " ")
		}
		if strings.ContainsAny(w[i][len(w[i])-1:], ",;:.)") {
			break // punctuation after the word ends the name
		}
	}
	return strings.Join(out, " ")
}

// withReferent is a context sentence with the name its pronoun stands for
// and the countries of its demonyms, for the test that a name is written
// as one.
func withReferent(sp *span) string {
	if sp.ref == "" && sp.countries == "" {
		return sp.text
	}
	return sp.ref + " " + sp.countries + " " + sp.text
}

// implies reports whether a context sentence names what it does not
// write: the name its pronoun stands for, or a country its demonyms name
// (the name detector's test; coverage counts only the referent).
func implies(cs *span, f string) bool {
	return cs.refFeats[f] || cs.countryFeats[f]
}

// setCountries sets the countries a context sentence's demonyms name
// (American, Scottish-Australian): a lexical judge should not call "from
// Australia" unsupported against "an Australian businessman".
func setCountries(sp *span) {
	if sp.hasHan {
		return
	}
	var names []string
	for _, w := range strings.Fields(sp.text) {
		t := strings.Trim(w, ",.;:()\"'")
		if !capitalised(t) || languageLabel(w) {
			continue // "(Italian: Onorata Società)" names a language
		}
		for _, part := range strings.Split(t, "-") {
			for _, n := range demonymCountryNames[strings.ToLower(part)] {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return
	}
	sp.countries = strings.Join(names, " ")
	sp.countryFeats = wordFeats(sp.countries)
}

// setPlaces adds to a sentence's countries the region its chunk places a
// place it names in: after "… is an urban park in the Eminönü district
// of Istanbul, Turkey", "one of the open Greek schools in Istanbul"
// names Turkey too, for a short answer's coverage and the name detector
// (as a demonym names its country). What the chunk writes is the only
// source: "in Place, Region", Place and Region capitalised, the Region
// ending at a punctuation mark or a lowercase word.
func setPlaces(sents []*span) {
	var in map[string]string // a place's last word feature -> its region as written
	for _, sp := range sents {
		if len(in) >= maxPlaces {
			break
		}
		if sp.hasHan || !commaBeforeCapital(sp.text) {
			continue // the common case, read without lexing the sentence again
		}
		lx := lexemes(stripMarkup(sp.text))
		for k := 0; k+3 < len(lx); k++ {
			if lx[k].kind != 'w' || !placePrepositions[lx[k].text] || !lx[k+1].capital {
				continue
			}
			p := k + 1
			for p+1 < len(lx) && lx[p+1].capital && p-k < 3 {
				p++
			}
			if p+2 >= len(lx) || lx[p+1].text != "," || !lx[p+2].capital {
				continue
			}
			r := p + 2
			for r+1 < len(lx) && lx[r+1].capital && r-p < 4 {
				r++
			}
			// The region ends the phrase: at a mark or the text's end.
			// "In Paris, Ann Lee founded a bakery" puts no Paris in Ann
			// Lee, and "in Leeds, Hull and York" is a list of places.
			if r+1 < len(lx) && lx[r+1].kind != 'p' {
				continue
			}
			var region []string
			for _, l := range lx[p+2 : r+1] {
				region = append(region, l.orig)
			}
			if in == nil {
				in = map[string]string{}
			}
			in["w:"+stem(lx[p].text)] = strings.Join(region, " ")
			k = r
		}
	}
	if len(in) == 0 {
		return
	}
	// Each sentence once, its places looked up: a chunk of thousands of
	// sentences and places stays linear. A place counts where it is a
	// name ("Reading"), not a word ("reading").
	for _, sp := range sents {
		var added []string
		for _, n := range sp.names {
			region, ok := in[n.feat]
			if !ok || slices.Contains(added, region) || strings.Contains(sp.countries, region) || hasAll(sp.feats, wordFeats(region)) {
				continue
			}
			added = append(added, region)
		}
		if len(added) == 0 {
			continue
		}
		sort.Strings(added) // one order, whatever the names' order
		sp.countries = strings.TrimSpace(sp.countries + " " + strings.Join(added, " "))
		sp.countryFeats = wordFeats(sp.countries)
	}
}

// maxPlaces bounds the places one chunk may teach setPlaces.
const maxPlaces = 256

// commaBeforeCapital reports whether the text has ", " followed by an
// uppercase letter: setPlaces's "in Place, Region" needs one.
func commaBeforeCapital(text string) bool {
	for i := 0; ; {
		k := strings.Index(text[i:], ", ")
		if k < 0 {
			return false
		}
		i += k + 2
		if r, _ := utf8.DecodeRuneInString(text[i:]); unicode.IsUpper(r) {
			return true
		}
	}
}

var placePrepositions = setOf("in", "of", "from", "near", "at")

func hasAll(m, sub map[string]bool) bool {
	for f := range sub {
		if !m[f] {
			return false
		}
	}
	return true
}
