package offline

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/eval/offline/words"
	"github.com/ragscope/ragscope/internal/memo"
)

// Thresholds of the support test, chosen with `ragscope calibrate` on its
// tuned rows only (docs/offline-judge.md).
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
)

// Detector names, as they appear at the end of a reason.
const (
	DetectorNegation = "negation conflict"
	DetectorNumber   = "number conflict"
	DetectorName     = "unsupported name"
)

// Evidence is the outcome of the support test of one statement.
type Evidence struct {
	Verdict  int     // 1 supported, 0 not
	Coverage float64 // share of the statement's (weighted) content found in Quote's sentence
	Quote    string  // the best-matching context sentence, or the negated clause for a negation conflict
	// From is the index, among the sentences tested, of the one Quote comes
	// from; -1 when there is no quote.
	From int
	// Also is the index of a second sentence that supports the statement
	// together with From's (each gives one of its facts); -1 when none.
	Also     int
	Detector string // "" or one of the Detector constants
	Reason   string
}

// contextSpans splits a context into sentences and analyses each; the
// records of a structured context follow, each tested as one more
// sentence (see recordSpans). They come after the sentences so that, at
// equal coverage, the single field is the one quoted.
func contextSpans(text string) []*span {
	ss, afterSemicolon := sentencePieces(text)
	out := make([]*span, 0, len(ss))
	for i, s := range ss {
		sp := analyzeContext(s) // its prev and next are set below
		if i > 0 {
			sp.prev, out[i-1].next = out[i-1], sp
		}
		out = append(out, sp)
	}
	for i, sp := range out {
		setReferent(sp)
		// "The gym is open to staff only; contractors may not use it":
		// the pronoun after a semicolon stands for what the piece before
		// it is about.
		if sp.refFeats == nil && afterSemicolon[i] && hasPronoun(sp.text) {
			sp.refFeats = sp.prev.feats
		}
	}
	out = append(out, recordSpans(text)...)
	out = append(out, fieldSpans(text)...)
	id := chunkIDs.Add(1)
	for _, sp := range out {
		sp.chunk = id
	}
	return out
}

// support is the support test of one statement against the sentences
// (supportOne), and, when it fails, of its conjuncts (coordinated).
func support(st, q *span, sents []*span) Evidence {
	ev := supportOne(st, q, sents)
	if ev.Verdict == 0 {
		if cev, ok := coordinated(st, q, sents); ok {
			return cev
		}
	}
	return ev
}

func supportOne(st, q *span, sents []*span) Evidence {
	if len(sents) == 0 {
		return Evidence{From: -1, Also: -1, Reason: "no retrieved context to check the statement against"}
	}
	useUnis := st.hasHan && countPrefix(st.feats, "h:") < 2
	best, bestCov := -1, -1.0
	covs := make([]float64, len(sents))
	for i, cs := range sents {
		cov := coverage(st, q, cs, useUnis)
		covs[i] = cov
		if cov > bestCov {
			best, bestCov = i, cov
		}
	}
	if bestCov < 0 {
		return Evidence{From: -1, Also: -1, Reason: "the statement has no content words to check"}
	}
	ev := Evidence{Coverage: bestCov, Quote: sents[best].text, From: best, Also: -1}
	// The best-matching sentence is checked for the opposite polarity. When
	// it does not cover the statement, any other sentence may hold the
	// refutation (the taxpayer answer shares only the subject with 保持不变);
	// when it does and agrees, a sentence that overlaps less (about another
	// subject) does not overrule it.
	if quote, detail, ok := negationConflict(st, sents[best]); ok {
		return negationEvidence(ev, quote, detail, best)
	}
	if fev, ok := fieldVerdict(st, q, sents, useUnis); ok {
		return fev
	}
	if bestCov < SupportThreshold {
		for i, cs := range sents {
			if i == best {
				continue
			}
			if quote, detail, ok := negationConflict(st, cs); ok {
				return negationEvidence(ev, quote, detail, i)
			}
		}
	}
	if detail, ok := numberConflict(st, q, sents[best], sents, covs, bestCov >= SupportThreshold); ok {
		if pev, ok := pairSupport(st, q, sents, covs, useUnis); ok {
			return pev
		}
		ev.Detector = DetectorNumber
		ev.Reason = fmt.Sprintf("context says %q (coverage %.2f); %s (%s)", clip(ev.Quote), ev.Coverage, detail, DetectorNumber)
		return ev
	}
	if bestCov >= SupportThreshold {
		if !saysSomething(st, q, sents[best]) {
			// "R Adams Cowley was also an astronaut." against "R Adams
			// Cowley (1917 – 1991) was an American surgeon": the names
			// are there, what the statement says of them is not.
			ev.Reason = fmt.Sprintf("context %q names what the statement names but says none of what it claims of it (coverage %.2f)", clip(ev.Quote), ev.Coverage)
			return ev
		}
		if w, ok := replacedWord(st, q, sents[best]); ok {
			ev.Detector = DetectorName
			ev.Reason = fmt.Sprintf("context says %q (coverage %.2f); statement says %q, which the matching context does not have (%s)", clip(ev.Quote), ev.Coverage, w, DetectorName)
			return ev
		}
		if n, ok := missingName(st, q, sents[best]); ok {
			// A statement that restates the question names what the
			// question names: what it adds may be supported elsewhere.
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
		ev.Reason = fmt.Sprintf("context says %q (coverage %.2f)%s", clip(ev.Quote), ev.Coverage, sums(st, sents))
		return ev
	}
	if rev, ok := residualSupport(st, q, sents); ok {
		return rev
	}
	if pev, ok := pairSupport(st, q, sents, covs, useUnis); ok {
		return pev
	}
	ev.Reason = fmt.Sprintf("best match %q covers %.2f of the statement's content (needs %.2f)%s", clip(ev.Quote), ev.Coverage, SupportThreshold, missingWords(st, q, sents[best]))
	return ev
}

// capitalStems are the features of a statement's names and the stems of
// its capitalised words, worked out once per statement text
// (saysSomething runs for every sentence that covers it); shared and
// never modified.
var capitalStems = memo.New[map[string]bool](analysisCacheSize)

// saysSomething reports whether the sentence has any of what the
// statement says besides its names and the question's words: a word or a
// number that is not a name's. A statement with nothing else says it.
func saysSomething(st, q, cs *span) bool {
	isName := capitalStems.Get(st.text, func(text string) map[string]bool {
		m := map[string]bool{}
		for _, n := range st.names { // st is text's analysis: the same names
			m[n.feat] = true
		}
		for _, w := range strings.Fields(text) {
			// An initial ("R Adams Cowley") and a text's first word
			// are no names to analyze; capitalised, they are a
			// name's here.
			if t := trimWord(w); t != "" && capitalised(t) {
				m["w:"+norm.Stem(strings.ToLower(t))] = true
			}
		}
		return m
	})
	any := false
	for f := range st.feats {
		if isName[f] || st.common[f] || q != nil && (q.feats[f] || q.unis[f]) || strings.HasPrefix(f, "h:") {
			continue
		}
		any = true
		if cs.feats[f] || cs.refFeats[f] {
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

// coverage is the weighted share of the statement's features found in the
// context sentence, or -1 when the statement has none.
func coverage(st, q, cs *span, useUnis bool) float64 {
	// Integer counts, weighted once at the end: summing float weights in map
	// order rounds differently from run to run, and a coverage on a rounding
	// edge (0.375) would then print 0.37 or 0.38 for the same input.
	var plain, echo, plainFound, echoFound int
	count := func(feats, ctx map[string]bool) {
		for f := range feats {
			found := ctx[f] || cs.refFeats[f] || cs.skips[f]
			switch {
			case q != nil && (q.feats[f] || q.unis[f]):
				echo++
				if found {
					echoFound++
				}
			case st.common[f] && !found:
				// A frame's word, or a given name, counts only where
				// the sentence has it.
			default:
				plain++
				if found {
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

// replacedWord: two or more Han characters of the statement in a row
// that neither the sentence nor the question has, between characters
// the sentence has (总监 of 经总监签字 against 经主管签字); a function word
// (需要 for 应) is no content replaced.
func replacedWord(st, q, cs *span) (string, bool) {
	has := func(r rune) bool {
		u := "u:" + string(r)
		return cs.unis[u] || cs.refFeats[u] || q != nil && q.unis[u]
	}
	for _, c := range st.clauses { // numerals normalised
		var run []rune
		seen := false
		for _, r := range c.text + "。" {
			switch {
			case !isHan(r) || chineseParticles[r]:
				run, seen = nil, false
			case has(r):
				if seen && len(run) >= 2 && !chineseStopBigrams[string(run)] {
					return string(run), true
				}
				run, seen = nil, true
			default:
				run = append(run, r)
			}
		}
	}
	return "", false
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
	out := maps.Clone(m)
	maps.DeleteFunc(out, func(f string, _ bool) bool { return strings.HasPrefix(f, p) })
	return out
}

// negationConflict compares the polarity of aligned clauses: a clause of the
// context that negates something the statement's clause affirms, on content
// the two share (or the reverse), is a conflict.
func negationConflict(st, cs *span) (quote, detail string, ok bool) {
	if cc, sc, n, ok := negatedOnlyIn(cs.clauses, st.clauses); ok {
		return cc.text, contextNegatesDetail(n, sc), true
	}
	if _, cc, n, ok := negatedOnlyIn(st.clauses, cs.clauses); ok {
		return cc.text, fmt.Sprintf("statement negates it with %q", n.marker), true
	}
	return "", "", false
}

// negatedOnlyIn finds a clause of negated with a negation whose scope is
// in the best aligned clause of others, which has none.
func negatedOnlyIn(negated, others []clause) (neg, aligned *clause, n negation, ok bool) {
	for i := range negated {
		if len(negated[i].negs) == 0 {
			continue
		}
		oc := bestAligned(negated[i], others)
		if oc == nil || len(oc.negs) > 0 {
			continue
		}
		for _, n := range negated[i].negs {
			if scopeHit(n, oc) {
				return &negated[i], oc, n, true
			}
		}
	}
	return nil, nil, negation{}, false
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
	return slices.ContainsFunc(n.scope, func(f string) bool { return c.feats[f] || c.unis[f] })
}

// numberConflict reports a quantity of the statement that the best-matching
// sentence gives differently (same unit, other value) and no sentence of
// any chunk gives as the statement does: a number is checked against every
// chunk, not only the best one. When covered is true (the statement is
// otherwise supported) a quantity that no context sentence gives at all is
// a conflict too; for a statement that is unsupported anyway, low coverage
// is the better reason. A quantity that is the sum of others the statement
// states and the context gives ("98天 ... 60天, 合计158天") is given: sums
// returns the arithmetic for the reason.
//
// A quantity the question states is a premise, not a claim: it is exempt.
func numberConflict(st, question, best *span, all []*span, covs []float64, covered bool) (string, bool) {
	// A quantity no sentence gives at all is named before one that some
	// sentence gives in another role: it is the likelier mistake.
	quants := slices.Clone(st.quants)
	sort.SliceStable(quants, func(a, b int) bool { return !givenAnywhere(all, quants[a]) && givenAnywhere(all, quants[b]) })
	for _, q := range quants {
		if hasQuantity(best, q) || question != nil && hasQuantity(question, q) || givenInRole(all, covs, q) {
			continue
		}
		if _, ok := sumOf(st, q, all); ok {
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
		// A count of one is no claim of its own where no sentence gives
		// it: "one" is as often an article ("one day") as a count.
		if covered && !givenAnywhere(all, q) && q.value != "1" {
			return fmt.Sprintf("statement says %s, which the context does not give", q.text), true
		}
	}
	return "", false
}

// givenInRole: a sentence that covers the statement gives q (the number
// in the role the statement gives it); covs are the sentences' coverages.
func givenInRole(all []*span, covs []float64, q quantity) bool {
	for i, cs := range all {
		if i < len(covs) && covs[i] >= SupportThreshold && hasQuantity(cs, q) {
			return true
		}
	}
	return false
}

func givenAnywhere(all []*span, q quantity) bool {
	return slices.ContainsFunc(all, func(cs *span) bool { return hasQuantity(cs, q) })
}

// sumOf: q is the total of two or more other quantities of the statement
// with its unit, each of which the context gives; the arithmetic is
// returned ("98天 + 60天 = 158天").
func sumOf(st *span, q quantity, all []*span) (string, bool) {
	want, err := strconv.ParseFloat(q.value, 64)
	if err != nil || q.unit == "" {
		return "", false
	}
	var terms []string
	sum := 0.0
	for _, o := range st.quants {
		if o.unit != q.unit || o.value == q.value {
			continue
		}
		v, err := strconv.ParseFloat(o.value, 64)
		if err != nil || !givenAnywhere(all, o) {
			continue
		}
		sum += v
		terms = append(terms, o.text)
	}
	if len(terms) < 2 || math.Abs(sum-want) > 1e-9*math.Max(1, want) {
		return "", false
	}
	return strings.Join(terms, " + ") + " = " + q.text, true
}

// sums is the arithmetic of the statement's totals, for a reason ("" when
// it states none).
func sums(st *span, all []*span) string {
	var out []string
	for _, q := range st.quants {
		if givenAnywhere(all, q) {
			continue
		}
		if a, ok := sumOf(st, q, all); ok {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; " + strings.Join(out, ", ")
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

// missingName returns the first name of the statement that the
// best-matching sentence does not mention. A swapped name (Michigan for
// Minnesota, NBC for Fox) is the commonest hallucination that still shares
// most words with the context, and a relation between two names is only
// backed by a sentence that names both. A name the question gives is a
// premise of the statement: it may be left out of the sentence when it is
// not the head of its name ("J. Robert" of "J. Robert Oppenheimer"), or
// when the sentence refers to it by a pronoun and a neighbour spells it
// out.
//
// A question's name that the statement makes its subject (it opens on
// it, the question does not: "Stanford University is located in X" for
// "Which university is located in X, Boston College or Stanford
// University?") is what the statement speaks of, not a premise: it is
// mentioned whole, unless the sentence writes its head as a name
// ("Lee" for Ann Lee), and reached through no bridge.
func missingName(st, question, best *span) (string, bool) {
	for i, n := range st.names {
		if best.feats[n.feat] || best.refFeats[n.feat] {
			continue
		}
		if question != nil && question.feats[n.feat] {
			subject := opensOn(st, n.feat) && !opensOn(question, n.feat)
			if !n.head && (!subject || headWritten(st.names[i:], best)) || best.pronoun && nearby(best, n.feat) {
				continue
			}
		}
		return n.text, true
	}
	return "", false
}

// headWritten reports whether the sentence writes the head of the name
// that opens names (the first name word with head set) capitalised, as a
// name.
func headWritten(names []name, cs *span) bool {
	for _, n := range names {
		if !n.head {
			continue
		}
		for _, w := range strings.Fields(cs.text) {
			if t := trimWord(w); t != "" && capitalised(t) && "w:"+norm.Stem(strings.ToLower(t)) == n.feat {
				return true
			}
		}
		return false
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
	case noun != "" && !p.feats["w:"+norm.Stem(noun)]:
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
	sp.ref, sp.refFeats = name, wordFeats(name)
}

func hasPronoun(text string) bool {
	ws := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) })
	return slices.ContainsFunc(ws, func(w string) bool { return pronouns[w] })
}

// wordFeats are the "w:" features of the words of a name as written
// (a referent, a country), stop words left out.
func wordFeats(name string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(name) {
		if lw := strings.ToLower(w); !englishStop[lw] {
			if f := norm.Stem(lw); f != "" {
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
	w := strings.Fields(plaintext.StripMarkup(text))
	for i := 1; i < len(w) && i <= 5; i++ {
		if strings.HasSuffix(w[i], ",") {
			return i+1 < len(w) && subjectPronouns[strings.ToLower(w[i+1])]
		}
	}
	return false
}

var (
	subjectPronouns     = words.Set("subject_pronouns")
	openingPrepositions = words.Set("opening_prepositions")
)

// openingName is the name a sentence opens on, its words as written
// ("The Saimaa Gesture", "David Lee Roth", "Collins"), or "" when it opens
// on anything else.
func openingName(text string) string {
	w := strings.Fields(plaintext.StripMarkup(text))
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

// withReferent is a context sentence with the name its pronoun stands
// for, for the test that a name is written as one.
func withReferent(sp *span) string {
	if sp.ref == "" {
		return sp.text
	}
	return sp.ref + " " + sp.text
}

// participle: a word that reads as a past participle (born, located,
// founded, written).
func participle(w string) bool {
	return strings.HasSuffix(w, "ed") && len(w) > 4 || irregularParticiples[w]
}

var irregularParticiples = words.Set("irregular_participles")

// englishDeterminers open a noun phrase.
var englishDeterminers = words.Set("english_determiners")

// chunkIDs number the analysed chunks, so that a pair of sentences is
// known to come from two chunks.
var chunkIDs atomic.Uint64

// pairCandidates bounds the sentences tried in pairs: the best few by
// coverage.
const pairCandidates = 4

// pairSupport: a statement that joins facts of two sentences ("婚假3天，
// 加上晚婚奖励假7天") is supported by the two together when their union
// covers it, each adds content the other lacks, and no detector fires on
// the union. The reason names both; the judge adds their chunks.
func pairSupport(st, q *span, sents []*span, covs []float64, useUnis bool) (Evidence, bool) {
	var top []int
	for i := range sents {
		if covs[i] <= 0 {
			continue
		}
		top = append(top, i)
	}
	sort.SliceStable(top, func(a, b int) bool { return covs[top[a]] > covs[top[b]] })
	if len(top) > pairCandidates {
		top = top[:pairCandidates]
	}
	for a := 0; a < len(top); a++ {
		for b := a + 1; b < len(top); b++ {
			x, y := sents[top[a]], sents[top[b]]
			if x.chunk == y.chunk || !givesOwn(st, x, y) || !givesOwn(st, y, x) {
				continue // one chunk's sentences are read one by one
			}
			u := unionSpan(x, y)
			cov := coverage(st, q, u, useUnis)
			if cov < SupportThreshold || cov <= covs[top[a]] || cov <= covs[top[b]] {
				continue
			}
			if _, _, neg := negationConflict(st, x); neg {
				return Evidence{}, false
			}
			if _, _, neg := negationConflict(st, y); neg {
				return Evidence{}, false
			}
			if _, bad := numberConflict(st, q, u, sents, nil, true); bad {
				continue
			}
			if _, missing := missingName(st, q, u); missing {
				continue
			}
			return Evidence{Verdict: 1, Coverage: cov, Quote: x.text, From: top[a], Also: top[b],
				Reason: fmt.Sprintf("context says %q and %q (coverage %.2f together)%s", clip(x.text), clip(y.text), cov, sums(st, sents))}, true
		}
	}
	return Evidence{}, false
}

// givesOwn: x gives a quantity of the statement that y does not: each of
// a pair gives one of the statement's facts.
func givesOwn(st, x, y *span) bool {
	return slices.ContainsFunc(st.quants, func(q quantity) bool { return hasQuantity(x, q) && !hasQuantity(y, q) })
}

// unionSpan is two sentences read as one, for pairSupport.
func unionSpan(x, y *span) *span {
	u := &span{text: x.text + " " + y.text, feats: map[string]bool{}, unis: map[string]bool{}, refFeats: map[string]bool{}, skips: map[string]bool{}}
	for _, s := range []*span{x, y} {
		maps.Copy(u.feats, s.feats)
		maps.Copy(u.unis, s.unis)
		maps.Copy(u.refFeats, s.refFeats)
		maps.Copy(u.skips, s.skips)
		u.quants = append(u.quants, s.quants...)
	}
	return u
}

// missingWords names the words that decided a low coverage: the
// statement's content the sentence lacks, neither the question's nor
// common discourse words (at most five, sorted).
func missingWords(st, q, cs *span) string {
	miss := func(f string) bool {
		return st.feats[f] && !cs.feats[f] && !cs.refFeats[f] && !cs.skips[f] && !st.common[f] && (q == nil || !q.feats[f])
	}
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if w != "" && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for f := range st.feats {
		if strings.HasPrefix(f, "w:") && miss(f) {
			add(f[2:])
		}
	}
	sort.Strings(out)
	// Chinese: the stretches of the statement its missing bigrams cover,
	// in order ("财务总监和首席执行官").
	rs := []rune(st.text)
	var run []rune
	for i := 0; i < len(rs); i++ {
		inMissing := i+1 < len(rs) && miss("h:"+string(rs[i:i+2])) || i > 0 && miss("h:"+string(rs[i-1:i+1]))
		if inMissing {
			run = append(run, rs[i])
			continue
		}
		add(string(run))
		run = nil
	}
	add(string(run))
	if len(out) == 0 {
		return ""
	}
	if len(out) > 5 {
		out = append(out[:5], "...")
	}
	return "; not in it: " + strings.Join(out, ", ")
}
