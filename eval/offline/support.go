package offline

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/phrase"
	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/internal/memo"
)

// Thresholds of the support test, chosen with `ragscope calibrate` on its
// tuned rows only.
const (
	// SupportThreshold is the least weighted share of a statement's content
	// one context sentence must contain for the statement to be supported.
	SupportThreshold = 0.67
	// QuestionEchoWeight is the weight of statement content that is also in
	// the question: repeating the question proves nothing.
	QuestionEchoWeight = 0.1
	// AlignMinOverlap is the least number of shared features for two
	// clauses to be about the same thing, before the negation detector
	// compares their polarity.
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
	From     int     // index of Quote's sentence among those tested; -1 when none
	Also     int     // index of a second sentence that supports it with From's; -1 when none
	Detector string  // "" or one of the Detector constants
	Reason   string
}

// contextSpans splits a context into analysed sentences, followed by the
// records, cells and fields of a structured context: after them, so that at
// equal coverage the single sentence is the one quoted.
func contextSpans(text string) []*span {
	ss, afterSemicolon := plaintext.Sentences(text)
	out := make([]*span, 0, len(ss))
	whole := &wholeNameIndex{}
	for i, s := range ss {
		sp := analyzeContext(s) // its prev and next are set below
		sp.whole = whole
		if i > 0 {
			sp.prev, out[i-1].next = out[i-1], sp
		}
		setReferent(sp) // from the sentences before it
		// A pronoun after a semicolon stands for what the piece before is about.
		if sp.refFeats == nil && afterSemicolon[i] && phrase.HasPronoun(sp.text) {
			sp.refFeats = sp.prev.feats
		}
		out = append(out, sp)
	}
	whole.sents = out
	out = append(out, recordSpans(text)...)
	out = append(out, fieldSpans(text)...)
	prose := len(out) == len(ss) // no records, cells or fields
	id := chunkIDs.Add(1)
	for _, sp := range out {
		sp.chunk, sp.prose = id, prose
	}
	markItems(ss, afterSemicolon, out)
	return out
}

// wholeNameIndex holds, by the feature of its last word, each name of two
// or more words the sentences of a chunk write: built on first use, and
// shared by the chunk's sentences.
type wholeNameIndex struct {
	once  sync.Once
	sents []*span
	runs  map[string][]string
}

// maxWholeNames bounds the names of one head a chunk's index holds.
const maxWholeNames = 4

func (x *wholeNameIndex) build() {
	x.runs = map[string][]string{}
	for _, sp := range x.sents {
		for _, r := range phrase.NameRuns(sp.text) {
			w := strings.Fields(r)
			h := capitalFeat(w[len(w)-1])
			if len(w) < 2 || h == "" || len(x.runs[h]) >= maxWholeNames || slices.Contains(x.runs[h], r) {
				continue
			}
			x.runs[h] = append(x.runs[h], r)
		}
	}
}

// wholeRuns are the names of its chunk's index whose last word has the
// feature head, the index built on first use; none for a sentence of no
// chunk's prose.
func (sp *span) wholeRuns(head string) []string {
	if sp.whole == nil {
		return nil
	}
	sp.whole.once.Do(sp.whole.build)
	return sp.whole.runs[head]
}

// RecallThreshold is the coverage above which a statement of the reference
// is attributed to the context (context recall) when nothing contradicts it:
// a reference is written apart from the chunks, in its own words, where an
// answer is drawn from them, and a reference the judge cannot find word
// for word is no evidence that retrieval failed. Chosen on the diagnosis
// of the enterprise sets, with their contexts right and with another
// pair's contexts (docs/offline-judge.md).
const RecallThreshold = 0.5

// attribution is support at the reference's bar: a statement that fails
// only on coverage, which is above RecallThreshold in a sentence that has
// its names, two of its own words and none replaced, is attributed.
func attribution(st, q *span, sents []*span) Evidence {
	ev := support(st, q, sents)
	if ev.Verdict == 1 || ev.Detector != "" || ev.From < 0 || ev.Coverage >= SupportThreshold {
		return ev
	}
	if ev.Coverage <= RecallThreshold {
		if pev, ok := pairAttribution(st, q, sents); ok {
			return pev
		}
		return ev
	}
	// Two own words: "Probation can be extended once" is not "probation is six months".
	if _, missing := missingName(st, q, sents[ev.From]); missing || ownWordsFound(st, q, sents[ev.From]) < 2 {
		return ev
	}
	ev.Verdict = 1
	ev.Reason = fmt.Sprintf("context says %q (coverage %.2f: a reference statement is attributed above %.2f)", clip(ev.Quote), ev.Coverage, RecallThreshold)
	return ev
}

// foundOwnWords is how many of its own words the sentence that covers a
// reference statement best must have for it to be found in part.
const foundOwnWords = 3

// foundNumbersCoverage is the least coverage of a reference statement
// found in part by its numbers.
const foundNumbersCoverage = 0.3

// The least share of a reference statement's words the contexts together
// hold, and the least coverage of it by one sentence, for it to be found
// in part across the chunks.
const (
	foundAnywhereShare    = 0.6
	foundAnywhereCoverage = 0.2
)

// foundInPart: a reference statement not attributed is found in part (the
// three ways of the package doc's Metrics) when the contexts speak of it in
// other words, spread over chunks the judge does not link, or the judge
// misreads whose number is whose, which it cannot tell from a fact
// retrieval missed (eval.Classification).
func foundInPart(st, q *span, ev Evidence, sents []*span) bool {
	if ev.Verdict == 1 || ev.From < 0 {
		return false
	}
	if ev.Detector == "" && ev.Coverage >= RecallThreshold && ownWordsFound(st, q, sents[ev.From]) >= foundOwnWords {
		return true
	}
	if ev.Coverage >= foundAnywhereCoverage && givenShare(st, sents) >= foundAnywhereShare &&
		!slices.ContainsFunc(st.quants, func(sq quantity) bool { return !givenAnywhere(sents, sq) && (q == nil || !hasQuantity(q, sq)) }) {
		return true
	}
	return len(st.quants) >= 2 && ev.Coverage >= foundNumbersCoverage &&
		!slices.ContainsFunc(st.quants, func(sq quantity) bool { return !amount(sq) || !givenAnywhere(sents, sq) })
}

// ownWordsFound counts the statement's content words and numbers, neither
// the question's nor common words, that one of the sentences has.
func ownWordsFound(st, q *span, sents ...*span) int {
	n := 0
	for f := range st.feats {
		if !st.common[f] && (q == nil || !q.feats[f]) && givenFeat(sents, f) {
			n++
		}
	}
	return n
}

// support tests one statement against the sentences, and when it fails,
// its conjuncts (coordinated).
func support(st, q *span, sents []*span) Evidence {
	ev := supportOne(st, q, sents)
	if ev.Verdict == 0 {
		if cev, ok := coordinated(st, q, sents); ok && cev.Verdict == 1 && !off("coordinated") {
			return cev
		}
		if nev, ok := nested(st, q, sents); ok && !off("nested") {
			return nev
		}
	}
	return ev
}

// nested: a statement whose subject carries a claim of its own ("A, who
// took over the works in 1899, studied at B"; plaintext.Unnest) is
// supported when both claims are, each by its own sentence; it stays one
// statement, so a supported aside does not dilute a wrong claim.
func nested(st, q *span, sents []*span) (Evidence, bool) {
	if st.hasHan || st.residue {
		return Evidence{}, false
	}
	parts := plaintext.Unnest(st.text)
	if len(parts) != 2 {
		return Evidence{}, false
	}
	var evs [2]Evidence
	for k, p := range parts {
		if evs[k] = supportOne(analyze(p), q, sents); evs[k].Verdict != 1 {
			return Evidence{}, false
		}
	}
	ev := evs[1]
	ev.Also = evs[0].From
	ev.Coverage = min(evs[0].Coverage, evs[1].Coverage)
	ev.Reason = fmt.Sprintf("says two things: %q: %s; %q: %s", clip(parts[0]), evs[0].Reason, clip(parts[1]), evs[1].Reason)
	return ev, true
}

// fewBigrams: a short Chinese text, too few bigrams to decide; its
// characters count in coverage (useUnis).
func fewBigrams(sp *span) bool {
	if !sp.hasHan {
		return false
	}
	n := 0
	for f := range sp.feats {
		if strings.HasPrefix(f, "h:") {
			n++
		}
	}
	return n < 2
}

func supportOne(st, q *span, sents []*span) Evidence {
	if len(sents) == 0 {
		return Evidence{From: -1, Also: -1, Reason: "no retrieved context to check the statement against"}
	}
	useUnis := fewBigrams(st)
	best, bestCov := -1, -1.0
	covs := make([]float64, len(sents))
	qc := anchored(st, q)
	derived := derivedFeats(st, q, sents)
	for i, cs := range sents {
		if covs[i] = coverageWith(st, qc, cs, useUnis, derived); covs[i] > bestCov {
			best, bestCov = i, covs[i]
		}
	}
	if bestCov < 0 {
		return Evidence{From: -1, Also: -1, Reason: "the statement has no content words to check"}
	}
	ev := Evidence{Coverage: bestCov, Quote: sents[best].text, From: best, Also: -1}
	enough := bestCov >= SupportThreshold || bestCov >= AnchoredThreshold && valuesIn(st, q, sents[best])
	if cev, ok := comparisonVerdict(st, q, sents, useUnis); ok && !off("comparison") {
		return cev
	}
	if cev, ok := sameVerdict(st, sents); ok && !off("same") {
		return cev
	}
	// Any sentence may refute a statement the best one does not cover; one
	// that covers it and agrees is not overruled by a lesser match.
	if quote, detail, ok := negationConflict(st, sents[best]); ok {
		ev.Quote = quote
		return ev.conflict(DetectorNegation, detail)
	}
	if fev, ok := fieldVerdict(st, q, sents, useUnis); ok {
		return fev
	}
	if rev, ok := rowsSupport(st, q, sents, useUnis); ok {
		return rev
	}
	if lev, ok := listVerdict(st, q, sents); ok && !off("lists") {
		return lev
	}
	if !enough {
		for i, cs := range sents {
			if quote, detail, ok := negationConflict(st, cs); ok && i != best {
				ev.Quote, ev.From = quote, i
				return ev.conflict(DetectorNegation, detail)
			}
		}
	}
	if detail, ok := numberConflict(st, q, sents[best], sents, covs, enough); ok {
		if pev, ok := pairSupport(st, q, sents, covs, useUnis, derived); ok {
			return pev
		}
		return ev.conflict(DetectorNumber, detail)
	}
	if enough {
		if detail, ok := boundConflict(st, q, sents[best], sents, covs); ok && !off("bounds") {
			return ev.conflict(DetectorNumber, detail)
		}
		if detail, ok := conditionConflict(st, q, sents[best]); ok && !off("bounds") {
			return ev.conflict(DetectorNumber, detail)
		}
		if rev, ok := otherRowsValue(st, sents); ok && !off("other-rows") {
			return rev
		}
		if detail, ok := roleConflict(st, q, sents[best]); ok && !off("roles") {
			return ev.conflict(DetectorName, detail+": the statement gives the part to the wrong party")
		}
		if detail, ok := conjunctConflict(st, q, sents[best]); ok && !off("roles") {
			return ev.conflict(DetectorName, detail)
		}
		if detail, ok := clauseConflict(st, q, sents[best]); ok && !off("roles") {
			return ev.conflict(DetectorName, detail)
		}
		if detail, ok := hanAnswerConflict(st, q, sents[best], sents); ok && !off("han-roles") {
			return ev.conflict(DetectorName, detail)
		}
		if detail, ok := hanPartySwap(st, q, sents[best], sents); ok && !off("han-roles") {
			return ev.conflict(DetectorName, detail)
		}
		if detail, ok := shareConflict(st, sents[best]); ok && !off("shares") {
			return ev.conflict(DetectorNumber, detail+": the statement gives the quantity to the wrong party")
		}
		if n, ok := bareName(st, q); ok && !ofItsKind(n, q, sents[best]) && !off("bare-name") {
			return ev.conflict(DetectorName, fmt.Sprintf("context names %s as the kind of thing the question asks for, not %q", strings.Join(phrase.TypedNames(sents[best].text, factsOf(q).kind), ", "), n))
		}
		if !saysSomething(st, q, sents[best], derived) {
			ev.Reason = fmt.Sprintf("context %q names what the statement names but says none of what it claims of it (coverage %.2f)", clip(ev.Quote), ev.Coverage)
			return ev
		}
		detail := ""
		if n, ok := missingName(st, q, sents[best]); ok {
			detail = fmt.Sprintf("statement names %q, which the matching context does not mention", n)
		} else if n, ok := namedAsWritten(st.text, withReferent(sents[best]), q, append(wholeNames(sents[best]), byDemonym(st.text, sents[best])...)...); !ok {
			detail = fmt.Sprintf("statement names %q, which the matching context does not write as one name", n)
		}
		if detail != "" {
			if rev, ok := residualSupport(st, q, sents); ok && !off("restatement") {
				return rev
			}
			if bev, ok := bridged(st, q, sents, best, useUnis, derived); ok && !off("bridged") {
				return bev
			}
			return ev.conflict(DetectorName, detail)
		}
		if detail, ok := otherTopic(st, sents, best); ok && !off("other-rows") {
			return ev.conflict(DetectorName, detail)
		}
		ev.Verdict = 1
		ev.Reason = fmt.Sprintf("context says %q (coverage %.2f)%s%s", clip(ev.Quote), ev.Coverage, sums(st, q, sents), conversions(st, sents[best]))
		if bestCov < SupportThreshold {
			ev.Reason += fmt.Sprintf("; under %.2f, but it gives the statement's numbers and names, and lacks only the answer's own words%s", SupportThreshold, led(": ", missingWords(st, qc, sents[best])))
		}
		return ev
	}
	if rev, ok := residualSupport(st, q, sents); ok && !off("restatement") {
		return rev
	}
	if pev, ok := pairSupport(st, q, sents, covs, useUnis, derived); ok {
		return pev
	}
	if tev, ok := tiedConflict(st, sents); ok && !off("same") {
		return tev
	}
	if rev, ok := otherRowsValue(st, sents); ok && !off("other-rows") {
		return rev
	}
	ev.Reason = fmt.Sprintf("best match %q covers %.2f of the statement's content (needs %.2f)%s", clip(ev.Quote), ev.Coverage, SupportThreshold, led("; not in it: ", missingWords(st, qc, sents[best])))
	return ev
}

// bareName is what a statement adds to its question when that is names
// only ("Walmart", "The answer is Walmart."): its capitalised words the
// question does not have; ok is false when it adds a word of another kind.
func bareName(st, q *span) (string, bool) {
	if q == nil || st.hasHan || factsOf(q).kind == nil {
		return "", false
	}
	isName := capitals(st)
	for f := range st.feats {
		if !isName[f] && !q.feats[f] && !st.common[f] {
			return "", false
		}
	}
	var words []string
	for _, w := range strings.Fields(st.text) {
		if f := capitalFeat(w); f != "" && !q.feats[f] && !englishStop[strings.ToLower(phrase.TrimWord(w))] {
			words = append(words, phrase.TrimWord(w))
		}
	}
	return strings.Join(words, " "), len(words) > 0
}

// capitalStems memoises, per statement text, the features of its names and
// capitalised words: saysSomething runs for every sentence that covers it.
var capitalStems = memo.New[map[string]bool](analysisCacheSize)

// saysSomething reports whether the sentence has a word or number of the
// statement besides its names and the question's words ("R Adams Cowley was
// an astronaut" against "R Adams Cowley was a surgeon" has none); a number
// the answer's arithmetic makes (derived) is one it has.
func saysSomething(st, q, cs *span, derived map[string]bool) bool {
	isName := capitals(st)
	any := false
	for f := range st.feats {
		if isName[f] || st.common[f] || q != nil && (q.feats[f] || q.unis[f]) || strings.HasPrefix(f, "h:") {
			continue
		}
		any = true
		if cs.feats[f] || cs.refFeats[f] || derived[f] {
			return true
		}
	}
	return !any || len(convertedFeats(st, cs)) > 0
}

// capitals are the features of the statement's names and capitalised
// words, initials and its first word included.
func capitals(st *span) map[string]bool {
	return capitalStems.Get(st.text, func(text string) map[string]bool {
		m := map[string]bool{}
		for _, n := range st.names { // st is text's analysis: the same names
			m[n.feat] = true
		}
		for _, w := range strings.Fields(text) {
			if f := capitalFeat(w); f != "" {
				m[f] = true
			}
		}
		return m
	})
}

// conflict is ev refuted by the detector, for what detail says.
func (ev Evidence) conflict(detector, detail string) Evidence {
	ev.Verdict, ev.Detector = 0, detector
	ev.Reason = fmt.Sprintf("context says %q (coverage %.2f); %s (%s)", clip(ev.Quote), ev.Coverage, detail, detector)
	return ev
}

// coverage is the weighted share of the statement's features found in the
// context sentence, or -1 when the statement has none.
func coverage(st, q, cs *span, useUnis bool) float64 {
	return coverageWith(st, q, cs, useUnis, nil)
}

// derivedFeats are the number features of the statement's quantities that
// no sentence gives but the answer's arithmetic on given ones makes
// (answerArithmetic: a total, a difference, a rate times its counts): found
// in any sentence, as the arithmetic is the reason's. A date moved by a
// span is not: the span may be another's (a discount's 30 days against a
// due date's 45). Nil when none.
func derivedFeats(st, q *span, sents []*span) map[string]bool {
	var m map[string]bool
	for _, x := range st.quants {
		if x.date || givenAnywhere(sents, x) {
			continue
		}
		if _, ok := answerArithmetic(st, q, x, sents); ok {
			put(&m, "n:"+x.value)
			if w, ok := norm.NumberNames[x.value]; ok {
				put(&m, "w:"+w)
			}
			for f := range analyze(x.text).feats { // its unit's word: "600 dollars" of $50
				put(&m, f)
			}
		}
	}
	return m
}

// coverageWith is coverage with the features of derived found too, in a
// sentence that gives the rest of the statement's quantities.
func coverageWith(st, q, cs *span, useUnis bool, derived map[string]bool) float64 {
	// Integer counts, weighted once at the end: float sums in map order
	// round differently from run to run.
	var n, found [2]int // of plain features, and of the question's echoes
	var sm phrase.Seams
	if st.hasHan {
		sm.St, sm.Cs = st.feats, cs.feats
	}
	converted := convertedFeats(st, cs)
	// The statement's arithmetic is this sentence's when it or the question
	// gives every quantity of the statement but the derived ones (two
	// chunks' terms are pairSupport's).
	if len(derived) > 0 && slices.ContainsFunc(st.quants, func(x quantity) bool {
		return !derived["n:"+x.value] && !hasQuantity(cs, x) && (q == nil || !hasQuantity(q, x))
	}) {
		derived = nil
	}
	count := func(feats, ctx map[string]bool) {
		for f := range feats {
			if useUnis && strings.HasPrefix(f, "h:") {
				continue // the characters decide (below)
			}
			has := ctx[f] || cs.refFeats[f] || cs.skips[f] || sm.Found(f) || converted[f] || derived[f]
			k := 0
			if q != nil && (q.feats[f] || q.unis[f]) {
				k = 1
			} else if st.common[f] && !has {
				continue // counts only where the sentence has it
			}
			n[k]++
			if has {
				found[k]++
			}
		}
	}
	if useUnis {
		// Short Chinese statements have too few bigrams: their characters
		// decide, each only where the context has its word (英国 is not in
		// 英格兰的国家).
		count(st.unis, contiguousUnis(st, cs))
	}
	count(st.feats, cs.feats)
	total := float64(n[0]) + QuestionEchoWeight*float64(n[1])
	if total == 0 {
		return -1
	}
	return (float64(found[0]) + QuestionEchoWeight*float64(found[1])) / total
}

// convertedFeats are the features of the statement's quantities that the
// sentence gives in another unit of their kind (norm.SameAmount: "2 years"
// for "24 months"), the number, its word, and its unit's word or Chinese
// characters; or in the same unit written otherwise ("20 kilograms" for "20
// kg", 2000块 for 2,000元), the unit's word or characters. Nil when none.
func convertedFeats(st, cs *span) map[string]bool {
	var m map[string]bool
	for _, q := range st.quants {
		unitWord := "w:" + norm.Stem(strings.ToLower(lastWord(q.text)))
		unitRune, _ := utf8.DecodeRuneInString(strings.TrimLeft(q.text, "0123456789.,"))
		hanUnit := isHan(unitRune)
		if k := slices.IndexFunc(cs.quants, func(c quantity) bool { return c.unit == q.unit && c.value == q.value }); q.unit != "" && k >= 0 {
			// Not a date's part: 2025年4月10日 against 2025-04-10 leaves the
			// characters around 年, 月 and 日 to the statement's own words.
			c := cs.quants[k]
			hanUnit = hanUnit && !strings.ContainsRune(c.text, unitRune) && norm.DateParts(c.text) == nil
		} else if inOtherUnit(cs, q) >= 0 {
			put(&m, "n:"+q.value)
			if w, ok := norm.NumberNames[q.value]; ok {
				put(&m, "w:"+w) // 3 is "three" too (analyze)
			}
		} else {
			continue
		}
		if st.feats[unitWord] && !cs.feats[unitWord] {
			put(&m, unitWord)
		}
		if hanUnit { // a Chinese unit read by its first character (小 of 小时): it alone, and the pairs it opens
			r := string(unitRune)
			if st.unis["u:"+r] {
				put(&m, "u:"+r)
			}
			for f := range st.feats {
				if strings.HasPrefix(f, "h:"+r) {
					put(&m, f)
				}
			}
		}
	}
	return m
}

// inOtherUnit is the index of the sentence's quantity that gives q's
// amount in another unit of its kind (norm.SameAmount), or -1.
func inOtherUnit(cs *span, q quantity) int {
	return slices.IndexFunc(cs.quants, func(c quantity) bool { return norm.SameAmount(c.value, c.unit, q.value, q.unit) })
}

// conversions names, for a reason, the statement's quantities the sentence
// gives in another unit ("; 3 weeks is 21 days"); "" when none.
func conversions(st, cs *span) string {
	var b strings.Builder
	for _, q := range st.quants {
		if k := inOtherUnit(cs, q); k >= 0 {
			fmt.Fprintf(&b, "; %s is %s", q.text, cs.quants[k].text)
		}
	}
	return b.String()
}

// lastWord is the last space-separated word of s.
func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// contiguousUnis are the context's unigrams that count for the statement:
// those of no bigram of it, and those of its bigrams the context has
// (cs.unis itself when it has them all).
func contiguousUnis(st, cs *span) map[string]bool {
	inFound := map[string]bool{} // a bigram's characters: whether the context has one of their bigrams
	missing := false
	for f := range st.feats {
		if !strings.HasPrefix(f, "h:") {
			continue
		}
		missing = missing || !cs.feats[f]
		for _, r := range f[2:] {
			inFound["u:"+string(r)] = inFound["u:"+string(r)] || cs.feats[f]
		}
	}
	if !missing {
		return cs.unis
	}
	out := make(map[string]bool, len(st.unis))
	for u := range st.unis {
		if found, inBigram := inFound[u]; cs.unis[u] && (found || !inBigram) {
			out[u] = true
		}
	}
	return out
}

// negationConflict: a clause of the context that negates what an aligned
// clause of the statement affirms, or the reverse, is a conflict.
func negationConflict(st, cs *span) (quote, detail string, ok bool) {
	if cc, sc, n, ok := negatedOnlyIn(cs.clauses, st.clauses); ok {
		if n.marker == "不变" && containsAnyOf(sc.text, changeWords...) {
			return cc.text, "statement says it changes", true
		}
		return cc.text, fmt.Sprintf("statement drops the negation %q", n.marker), true
	}
	if _, cc, n, ok := negatedOnlyIn(st.clauses, cs.clauses); ok {
		return cc.text, fmt.Sprintf("statement negates it with %q", n.marker), true
	}
	return "", "", false
}

// negatedOnlyIn finds a negation of a clause of negated whose scope is in
// its best aligned clause of others, which has none.
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
			if slices.ContainsFunc(n.scope, func(f string) bool { return oc.feats[f] || oc.unis[f] }) {
				return &negated[i], oc, n, true
			}
		}
	}
	return nil, nil, negation{}, false
}

// bestAligned is the clause of others that shares most (at least
// AlignMinOverlap) features with c, or nil.
func bestAligned(c clause, others []clause) *clause {
	var best *clause
	bestN := AlignMinOverlap - 1
	for i := range others {
		if n := overlap(c.feats, others[i].feats); n > bestN {
			best, bestN = &others[i], n
		}
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

// numberConflict reports a quantity of the statement that the best sentence
// gives with another value (same unit) and no sentence gives as the
// statement does; when covered, one no sentence gives at all too (else low
// coverage is the better reason). A sum of given quantities is given, and
// one the question states is a premise, exempt.
func numberConflict(st, question, best *span, all []*span, covs []float64, covered bool) (string, bool) {
	// A quantity given nowhere is the likelier mistake: named first.
	quants := slices.Clone(st.quants)
	sort.SliceStable(quants, func(a, b int) bool { return !givenAnywhere(all, quants[a]) && givenAnywhere(all, quants[b]) })
	for _, q := range quants {
		if detail, ok := listConflict(st, q, best); covered && ok {
			return detail, true
		}
		if hasQuantity(best, q) || question != nil && hasQuantity(question, q) || covering(all, covs, func(cs *span) bool { return hasQuantity(cs, q) }) || rowCell(st, nil, q, all) >= 0 || otherNationGiven(st, q, best) {
			continue
		}
		if _, ok := sumOf(st, question, q, all); ok {
			continue
		}
		if k := slices.IndexFunc(best.quants, func(c quantity) bool {
			// Another currency is another amount (€60, not $60).
			return c.unit == q.unit || !c.date && !q.date && norm.Convertible(c.unit, q.unit) || currencyUnit(c.unit) && currencyUnit(q.unit)
		}); q.unit != "" && k >= 0 {
			if c := best.quants[k]; c.key != "" {
				return fmt.Sprintf("statement says %s where the context's field %q gives %s", q.text, c.key, c.text), true
			}
			return fmt.Sprintf("statement says %s where the context gives %s", q.text, best.quants[k].text), true
		}
		// "one" is as often an article ("one day") as a count; a demonym
		// no context writes as one is left to the coverage of its word.
		if covered && !givenAnywhere(all, q) && q.value != "1" && q.unit != nationUnit && !glossOfGiven(st, q, all) {
			return fmt.Sprintf("statement says %s, which the context does not give", q.text), true
		}
	}
	return "", false
}

// glossOfGiven: q and a given quantity of its kind write one amount twice,
// the second in brackets after the first ("a three-month (90-day)
// supply"): the writer's gloss of the given one, not a number of its own.
func glossOfGiven(st *span, q quantity, all []*span) bool {
	return slices.ContainsFunc(st.quants, func(x quantity) bool {
		return norm.SameKind(x.unit, q.unit) && givenAnywhere(all, x) &&
			(strings.Contains(st.text, q.text+" ("+x.text) || strings.Contains(st.text, x.text+" ("+q.text))
	})
}

// covering: says holds of a sentence that covers the statement (covs).
func covering(all []*span, covs []float64, says func(cs *span) bool) bool {
	for i, cs := range all {
		if i < len(covs) && covs[i] >= SupportThreshold && says(cs) {
			return true
		}
	}
	return false
}

func givenAnywhere(all []*span, q quantity) bool {
	return slices.ContainsFunc(all, func(cs *span) bool { return hasQuantity(cs, q) })
}

// sumOf: q is the total of two or more, or the difference of two, of the
// quantities of its unit that the answer writes (this statement or
// another: st.answer) and the contexts or the question give ("98天 + 60天 =
// 158天", "118元 − 68元 = 50元"), or the day or year of a date of the
// statement that a date the question or a sentence writes, moved by a span
// one gives, makes (norm.Computed). The terms are the answer's own, so a
// figure the answer does not show how it reached stays unsupported.
func sumOf(st, question *span, q quantity, all []*span) (string, bool) {
	if q.unit == norm.Unit("日") || q.unit == norm.Unit("月") || q.unit == "年" {
		given := make([]string, 1, len(all)+1)
		if question != nil {
			given[0] = question.text
		}
		for _, cs := range all {
			given = append(given, cs.text)
		}
		if a := norm.DatePart(st.text, given, q.value, q.unit); a != "" {
			return a, true
		}
	}
	return answerArithmetic(st, question, q, all)
}

// answerArithmetic is sumOf's total or difference of the answer's
// quantities.
func answerArithmetic(st, question *span, q quantity, all []*span) (string, bool) {
	want, err := strconv.ParseFloat(q.value, 64)
	if err != nil || q.unit == "" {
		return "", false
	}
	if answer := cmp.Or(st.answer, st.text); !q.date && ownCount(answer, q) {
		return q.text + " counts the items listed", true
	}
	// The answer holds the statement's own quantities too, once.
	sp := st
	if st.answer != "" {
		sp = analyze(st.answer)
	}
	var terms, counts []quantity
	var vals, countVals []float64
	for _, o := range sp.quants {
		v, err := strconv.ParseFloat(o.value, 64)
		if err != nil || o.value == q.value {
			continue
		}
		if o.unit != q.unit {
			if len(counts) < maxTerms && !o.date && !q.date {
				counts, countVals = append(counts, o), append(countVals, v)
			}
			continue
		}
		if len(terms) == maxTerms || !givenAnywhere(all, o) && (question == nil || !hasQuantity(question, o)) {
			continue
		}
		terms, vals = append(terms, o), append(vals, v)
	}
	idx, op := norm.Arithmetic(want, vals)
	var texts []string
	for _, i := range idx {
		texts = append(texts, terms[i].text)
	}
	if idx == nil {
		// A rate the contexts give times the answer's own counts ("5张、
		// 每张60元共300元").
		r, f, ok := norm.Product(want, vals, countVals)
		if !ok || terms[r].date {
			return "", false
		}
		texts, op = []string{terms[r].text}, "×"
		for _, k := range f {
			texts = append(texts, counts[k].text)
		}
	}
	return strings.Join(texts, " "+op+" ") + " = " + q.text, true
}

// computed: q is the answer's arithmetic on quantities it writes; one a
// sentence gives in another role, only as a total or difference ("3年，比2年
// 多出一年" beside 1年 elsewhere), not as a moved date (a term's start year).
func computed(st, question *span, q quantity, all []*span) bool {
	if givenAnywhere(all, q) {
		_, ok := answerArithmetic(st, question, q, all)
		return ok
	}
	_, ok := sumOf(st, question, q, all)
	return ok
}

// maxTerms bounds the quantities tried as terms of a total: their subsets
// are enumerated.
const maxTerms = 8

// sums is the arithmetic of the statement's totals, for a reason.
func sums(st, question *span, all []*span) string {
	var out []string
	for _, q := range st.quants {
		if givenAnywhere(all, q) {
			continue
		}
		if a, ok := sumOf(st, question, q, all); ok && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return led("; ", strings.Join(out, ", "))
}

// hasQuantity reports whether the span gives q's value with its unit, with
// no unit on one side, or with no quantity of q's unit to contradict it
// (30 days vs 30 calendar days).
func hasQuantity(sp *span, q quantity) bool {
	sameValue, unitSeen := false, false
	for _, c := range sp.quants {
		if c.value == q.value && (c.unit == q.unit || c.unit == "" || q.unit == "") || norm.SameAmount(c.value, c.unit, q.value, q.unit) {
			return true
		}
		sameValue = sameValue || c.value == q.value && !norm.SameKind(c.unit, q.unit) && !norm.OtherKind(c.unit, q.unit)
		unitSeen = unitSeen || c.unit == q.unit
	}
	return sameValue && !unitSeen
}

// missingName returns the first name of the statement that the best
// sentence does not mention: a swapped name (Michigan for Minnesota) is the
// commonest hallucination that still shares most words. A name the question
// gives is a premise, which the sentence may leave out when it is not the
// name's head ("J. Robert" of "J. Robert Oppenheimer") or a neighbour spells
// out its pronoun; unless the statement makes it its subject (opensOn),
// when the sentence must write it whole or its head as a name.
func missingName(st, question, best *span) (string, bool) {
	for i, n := range st.names {
		if namesName(st, i, best) {
			continue
		}
		if question != nil && question.feats[n.feat] {
			subject := opensOn(st, n.feat) && !opensOn(question, n.feat)
			if !n.head && (!subject || capitalIn(best, firstHead(st.names[i:]))) || best.pronoun && nearby(best, n.feat) || dangling(best) && opensOn(question, n.feat) {
				continue
			}
		}
		return n.text, true
	}
	return "", false
}

// namesName: the sentence names the statement's i-th name word: writes it
// (or its pronoun stands for it), names the person by the head of a whole
// name its chunk writes (writtenWholeNearby), or gives the country the
// word is of by its demonym (byDemonym).
func namesName(st *span, i int, cs *span) bool {
	n := st.names[i]
	return cs.feats[n.feat] || cs.refFeats[n.feat] || !n.head && writtenWholeNearby(st.names[i:], n, cs) ||
		slices.ContainsFunc(byDemonym(st.text, cs), func(c string) bool { return slices.Contains(strings.Fields(c), strings.ToLower(n.text)) })
}

// writtenWholeNearby: the sentence writes the head of the name that word n
// opens ("Venn had studied …" of "Arthur Venn") capitalised, and its chunk
// writes the name whole ("… his nephew, Arthur Venn, …"): the sentence
// names that person by the head alone.
func writtenWholeNearby(names []name, n name, cs *span) bool {
	head := firstHead(names)
	// The sentence's name of that head is a part of the whole name: "Walter
	// Coy" of "Walter Darwin Coy", not "Kelso Regional Airport" of "Denton
	// Municipal Airport".
	for _, whole := range cs.wholeRuns(head) {
		if wf := wordFeats(whole); wf[n.feat] && headOf(cs, head, wf, false) {
			return true
		}
	}
	return false
}

// headOf: the sentence writes the head capitalised after capitalised words
// of the whole name only (wf, its words' features; nil for a name of one
// word), and, when alone, before no capitalised word: a name of its own,
// not a word of a longer one ("Day" of "Anzac Day").
func headOf(cs *span, head string, wf map[string]bool, alone bool) bool {
	ws := strings.Fields(cs.text)
	for k, w := range ws {
		if capitalFeat(w) != head {
			continue
		}
		j := k - 1
		for j >= 0 && wf[capitalFeat(ws[j])] && !strings.ContainsAny(ws[j], ",;:.") { // wf has no ""
			j--
		}
		after := alone && k+1 < len(ws) && capitalFeat(ws[k+1]) != "" && !strings.ContainsAny(w, ",;:.")
		if (j < 0 || capitalFeat(ws[j]) == "" || strings.ContainsAny(ws[j], ",;:.")) && !after {
			return true
		}
	}
	return false
}

// capitalIn: the sentence writes a capitalised word of the feature (a
// name's head: "Venn", not the "university" of "a research university").
func capitalIn(cs *span, feat string) bool {
	return feat != "" && slices.ContainsFunc(strings.Fields(cs.text), func(w string) bool { return capitalFeat(w) == feat })
}

// firstHead is the feature of the head of the first name of names, or "".
func firstHead(names []name) string {
	if i := slices.IndexFunc(names, func(n name) bool { return n.head }); i >= 0 {
		return names[i].feat
	}
	return ""
}

// capitalFeat is the feature of a capitalised word, or "".
func capitalFeat(w string) string {
	if t := phrase.TrimWord(w); phrase.Capitalised(t) {
		return "w:" + norm.Stem(strings.ToLower(t))
	}
	return ""
}

// clip shortens a quote for a reason line.
func clip(s string) string {
	const max = 120
	rs := []rune(s)
	if len(rs) <= max {
		return s
	}
	return string(rs[:max]) + "..."
}

// dangling: the sentence opens on a bare description ("The game was
// released ...") of what no sentence before it in its chunk names, so of
// what the question names: the chunk was cut from its name. A Chinese chunk
// cut so opens on a demonstrative (该门诊, 此项目, 这家公司).
func dangling(sp *span) bool {
	if sp.hasHan {
		return sp.prev == nil && prefixIn(strings.TrimSpace(sp.text), []string{"该", "此", "本", "这"}) != ""
	}
	for ; sp != nil; sp = sp.prev {
		w := strings.Fields(sp.text)
		if sp.ref != "" || len(w) < 3 || phrase.SubjectNoun(sp.text) != w[1] || !norm.EnglishQuestionAux[w[2]] {
			return false
		}
	}
	return true
}

// nearby reports whether the sentence before or after sp has the feature.
func nearby(sp *span, feat string) bool {
	return sp.prev != nil && sp.prev.feats[feat] || sp.next != nil && sp.next.feats[feat]
}

// setReferent finds the name a context sentence's subject pronoun or
// description stands for: the name the sentence before opens on, or the
// one that sentence's pronoun stands for ("In 2007, he was inducted..."
// after "David Lee Roth (born 1954) is..."). Otherwise it stays unresolved.
func setReferent(sp *span) {
	noun := ""
	if !phrase.SubjectPronoun(sp.text) {
		if noun = phrase.SubjectNoun(sp.text); noun == "" {
			return
		}
	}
	p := sp.prev
	// The sentence before may end a parenthesis cut at a semicolon
	// ("Jacob Kevorkian (" | "May 26, 1928 – 2011) was..."): go to its start.
	for k := 0; p != nil && p.prev != nil && k < 3 && strings.Count(p.text, ")") > strings.Count(p.text, "("); k++ {
		p = p.prev
	}
	switch {
	case p == nil || noun != "" && !p.feats["w:"+norm.Stem(noun)]:
		// none, or "The mall" after a sentence that is not about a mall
	case p.ref != "":
		sp.ref, sp.refFeats = p.ref, p.refFeats
	case !phrase.SubjectPronoun(p.text):
		if name := phrase.OpeningName(p.text); name != "" {
			sp.ref, sp.refFeats = name, wordFeats(name)
		}
	}
}

var nameSplitter = strings.NewReplacer(".", " ", "-", " ") // as the analysis reads "F.C.": f, c
// wordFeats are the "w:" features of a name's words, stop words left out.
func wordFeats(name string) map[string]bool {
	m := map[string]bool{}
	for _, lw := range strings.Fields(nameSplitter.Replace(strings.ToLower(name))) {
		if f := norm.Stem(lw); !englishStop[lw] && f != "" {
			m["w:"+f] = true
		}
	}
	return m
}

// withReferent is a context sentence led by the name its pronoun stands for.
func withReferent(sp *span) string {
	if sp.ref == "" {
		return sp.text
	}
	return sp.ref + " " + sp.text
}

// wholeNames are the names of two or more words its chunk writes whose last
// word the sentence writes capitalised ("Arthur Venn" for "Venn had studied
// …"): the names it uses by their head.
func wholeNames(cs *span) []string {
	var out []string
	for _, w := range strings.Fields(cs.text) {
		out = append(out, cs.wholeRuns(capitalFeat(w))...)
	}
	return out
}

// chunkIDs number the analysed chunks, for pairSupport.
var chunkIDs atomic.Uint64

// pairCandidates bounds the sentences tried in pairs, best coverage first.
const pairCandidates = 4

// topCovered are the indices of the pairCandidates sentences of positive
// coverage (covs), best first.
func topCovered(covs []float64) []int {
	var top []int
	for i, c := range covs {
		if c > 0 {
			top = append(top, i)
		}
	}
	sort.SliceStable(top, func(a, b int) bool { return covs[top[a]] > covs[top[b]] })
	return top[:min(len(top), pairCandidates)]
}

// pairSupport: a statement that joins facts of sentences of two chunks
// ("婚假3天，加上晚婚奖励假7天") is supported by their union when it covers
// it, each gives a quantity the other lacks and no detector fires; of one
// chunk, only the terms of a total or difference the statement computes
// ("64课时，比初级会计实务的48课时多16课时"), each written among words of
// its own sentence's (swapped).
func pairSupport(st, q *span, sents []*span, covs []float64, useUnis bool, derived map[string]bool) (Evidence, bool) {
	top := topCovered(covs)
	for a := 0; a < len(top); a++ {
		for b := a + 1; b < len(top); b++ {
			x, y := sents[top[a]], sents[top[b]]
			// One chunk's sentences are read one by one, but for the terms of
			// the statement's arithmetic, each in its own place.
			if x.chunk == y.chunk && (len(derived) == 0 || swapped(st, x, y) || swapped(st, y, x)) || !givesOwn(st, x, y) || !givesOwn(st, y, x) || boundElsewhere(st, x, y) {
				continue
			}
			u := unionSpan(x, y)
			cov := coverageWith(st, q, u, useUnis, derived)
			if cov < SupportThreshold || cov <= covs[top[a]] || cov <= covs[top[b]] {
				continue
			}
			_, _, negX := negationConflict(st, x)
			if _, _, negY := negationConflict(st, y); negX || negY {
				return Evidence{}, false
			}
			if _, bad := numberConflict(st, q, u, sents, nil, true); bad {
				continue
			}
			if _, missing := missingName(st, q, u); missing {
				continue
			}
			// Each sentence's shares stay its parties' ("online for EUR 40 or
			// at the airport for EUR 60"): a swap is the pair's conflict.
			for k, z := range [2]*span{x, y} {
				if detail, swap := shareConflict(st, z); swap && !off("shares") {
					return Evidence{Quote: z.text, From: top[[2]int{a, b}[k]], Also: -1, Coverage: cov}.conflict(DetectorNumber, detail+": the statement gives the quantity to the wrong party"), true
				}
			}
			return Evidence{Verdict: 1, Coverage: cov, Quote: x.text, From: top[a], Also: top[b],
				Reason: fmt.Sprintf("context says %q and %q (coverage %.2f together)%s", clip(x.text), clip(y.text), cov, sums(st, q, sents))}, true
		}
	}
	return Evidence{}, false
}

// boundElsewhere reports whether a quantity of the statement that one of
// the two sentences gives, and the other gives another value of its unit
// for, belongs in the statement to a name only the other has (owner): the
// statement gives one thing's value to another ("Frankfurt ... its PUE was
// 1.21, compared with 1.32 at Dublin" against Frankfurt's 1.32 and
// Dublin's 1.21).
func boundElsewhere(st, x, y *span) bool {
	return slices.ContainsFunc(st.quants, func(q quantity) bool {
		// b gives a value of its kind: another thing to give it to.
		held := func(a, b *span) bool {
			return hasQuantity(a, q) && !hasQuantity(b, q) && b.units[q.unit] && owner(st, q, a, b)
		}
		return held(x, y) || held(y, x)
	})
}

// owner reports whether the name a quantity of the statement belongs to
// (boundElsewhere) is one only b has, of the names only one of a and b
// has: the one a preposition after it names ("63 ms in Lisbon", "£2,500
// for the Access Bursary"), else the last one before it ("Riverside
// closes on 21 March — a week before Maple Street"); false when there is
// none.
func owner(st *span, q quantity, a, b *span) (inB bool) {
	at := strings.Index(st.text, q.text)
	if at < 0 {
		return false
	}
	rest := strings.TrimLeft(st.text[at+len(q.text):], " ")
	prep, tail, _ := strings.Cut(rest, " ")
	named := ownerPrepositions[strings.ToLower(prep)]
	if d, after, ok := strings.Cut(tail, " "); ok && (d == "the" || d == "a" || d == "an") {
		tail = after
	}
	last := -1
	for _, n := range st.names {
		inA, nb := a.feats[n.feat] || a.refFeats[n.feat], b.feats[n.feat] || b.refFeats[n.feat]
		if inA == nb {
			continue
		}
		if named && strings.HasPrefix(tail, n.text) {
			return nb
		}
		if i := strings.LastIndex(st.text[:at], n.text); i > last {
			last, inB = i, nb
		}
	}
	return inB
}

// ownerPrepositions tie a quantity to the name after them.
var ownerPrepositions = map[string]bool{"in": true, "at": true, "for": true, "of": true}

// swapped: a quantity of the statement that x gives and y does not is
// written among words of y's own and none of x's (roleFeats): "乙…45天"
// where x is 甲's sentence of 45天 and y 乙's of 60天.
func swapped(st, x, y *span) bool {
	return slices.ContainsFunc(st.quants, func(q quantity) bool {
		if !hasQuantity(x, q) || hasQuantity(y, q) {
			return false
		}
		r := roleFeats(st, q)
		mine := func(a, b *span) bool {
			for f := range r {
				if a.feats[f] && !b.feats[f] {
					return true
				}
			}
			return false
		}
		return mine(y, x) && !mine(x, y)
	})
}

// roleFeats are the content features of the words a quantity of the
// statement is said with: those of its clause between the quantities
// before and after it, common words aside.
func roleFeats(st *span, q quantity) map[string]bool {
	text := normalised(st.text)
	at := strings.Index(text, q.text)
	if at < 0 {
		return nil
	}
	end := at + len(q.text)
	lo, hi := 0, len(text)
	for _, o := range st.quants {
		i := strings.Index(text, o.text)
		if i < 0 || i == at {
			continue
		}
		if j := i + len(o.text); j <= at && j > lo {
			lo = j
		}
		if i >= end && i < hi {
			hi = i
		}
	}
	if i := strings.LastIndexAny(text[lo:at], ",;:，；：。!?"); i >= 0 {
		lo += i + 1
	}
	if i := strings.IndexAny(text[end:hi], ",;:，；：。!?"); i >= 0 {
		hi = end + i
	}
	out := map[string]bool{}
	for f := range analyze(text[lo:at] + " " + text[end:hi]).feats {
		if !strings.HasPrefix(f, "n:") && !st.common[f] {
			out[f] = true
		}
	}
	return out
}

// givesOwn: x gives a quantity of the statement that y does not.
func givesOwn(st, x, y *span) bool {
	return slices.ContainsFunc(st.quants, func(q quantity) bool { return hasQuantity(x, q) && !hasQuantity(y, q) })
}

// unionSpan is two sentences read as one, for pairSupport.
func unionSpan(x, y *span) *span {
	u := &span{text: x.text + " " + y.text, feats: map[string]bool{}, unis: map[string]bool{}, refFeats: map[string]bool{}, skips: map[string]bool{}, units: map[string]bool{}}
	for _, s := range []*span{x, y} {
		maps.Copy(u.units, s.units)
		maps.Copy(u.feats, s.feats)
		maps.Copy(u.unis, s.unis)
		maps.Copy(u.refFeats, s.refFeats)
		maps.Copy(u.skips, s.skips)
		u.quants = append(u.quants, s.quants...)
	}
	return u
}

// missingWords names at most five words of the statement the sentence
// lacks, neither the question's nor common words: why coverage is low.
func missingWords(st, q, cs *span) string {
	converted := convertedFeats(st, cs)
	miss := func(f string) bool {
		return st.feats[f] && !cs.feats[f] && !cs.refFeats[f] && !cs.skips[f] && !st.common[f] && (q == nil || !q.feats[f]) && !converted[f]
	}
	var out []string
	add := func(w string) {
		if w != "" && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	for f := range st.feats {
		if strings.HasPrefix(f, "w:") && miss(f) {
			add(f[2:])
		}
	}
	sort.Strings(out)
	// Chinese: the stretches its missing bigrams cover, in order.
	rs := []rune(st.text)
	var run []rune
	for i := 0; i < len(rs); i++ {
		if i+1 < len(rs) && miss("h:"+string(rs[i:i+2])) || i > 0 && miss("h:"+string(rs[i-1:i+1])) {
			run = append(run, rs[i])
			continue
		}
		add(string(run))
		run = nil
	}
	add(string(run))
	if len(out) > 5 {
		out = append(out[:5], "...")
	}
	return strings.Join(out, ", ")
}

// led is text after lead, for a reason's clause; "" when text is.
func led(lead, text string) string {
	if text == "" {
		return ""
	}
	return lead + text
}

// anchored is the question less its words that tie the statement's own
// content to it: a question word right before or after a word of the
// statement's own ("chaired" of "The ceremony was chaired by François
// Cluzet." for "Who chaired the ceremony at which ...?"). Such a word is
// part of the claim, so it weighs in full and the sentence that supports
// the statement must have it; a name of the question stays an echo.
func anchored(st, q *span) *span {
	if q == nil || len(st.order) == 0 {
		return q
	}
	// order holds "w:" and "n:" features only, never a Han unigram.
	own := func(j int) bool {
		return j >= 0 && j < len(st.order) && !q.feats[st.order[j]] && !st.common[st.order[j]]
	}
	c := q                    // copied on the first word to drop: most statements have none
	var names map[string]bool // made on the first candidate, for a statement of ever so many names
	for i, f := range st.order {
		if !q.feats[f] || !own(i-1) && !own(i+1) {
			continue
		}
		if names == nil {
			names = make(map[string]bool, len(st.names))
			for _, n := range st.names {
				names[n.feat] = true
			}
		}
		if names[f] {
			continue
		}
		if c == q {
			cp := *q
			cp.feats = maps.Clone(q.feats)
			c = &cp
		}
		delete(c.feats, f)
	}
	return c
}

// pairAttribution: a reference statement that joins what two sentences
// say, each giving words of its own that the other does not, is attributed
// when their union covers it above RecallThreshold, with its names and
// numbers as the union gives them; of the four sentences that cover it
// best, the first such pair.
func pairAttribution(st, q *span, sents []*span) (Evidence, bool) {
	qc := anchored(st, q)
	useUnis := fewBigrams(st)
	covs := make([]float64, len(sents))
	for i, cs := range sents {
		covs[i] = coverage(st, qc, cs, useUnis)
	}
	top := topCovered(covs)
	for a := 0; a < len(top); a++ {
		for b := a + 1; b < len(top); b++ {
			x, y := sents[top[a]], sents[top[b]]
			// Each gives words of the statement the other does not.
			both := ownWordsFound(st, q, x, y)
			if both < 3 || both <= ownWordsFound(st, q, x) || both <= ownWordsFound(st, q, y) {
				continue
			}
			u := unionSpan(x, y)
			cov := coverage(st, qc, u, useUnis)
			if cov <= RecallThreshold {
				continue
			}
			if _, bad := numberConflict(st, q, u, sents, nil, false); bad {
				continue
			}
			if _, missing := missingName(st, q, u); missing {
				continue
			}
			return Evidence{Verdict: 1, Coverage: cov, Quote: x.text, From: top[a], Also: top[b],
				Reason: fmt.Sprintf("context says %q and %q (coverage %.2f together: a reference statement is attributed above %.2f)", clip(x.text), clip(y.text), cov, RecallThreshold)}, true
		}
	}
	return Evidence{}, false
}

// givenShare is the share of the statement's content features, common
// words aside, that some sentence has; 0 when one of its names is in none.
func givenShare(st *span, sents []*span) float64 {
	if slices.ContainsFunc(st.names, func(n name) bool { return !givenFeat(sents, n.feat) }) {
		return 0
	}
	n := 0
	for f := range st.feats {
		if !st.common[f] {
			n++
		}
	}
	return float64(ownWordsFound(st, nil, sents...)) / float64(max(n, 1))
}

// givenFeat reports whether some sentence has the feature.
func givenFeat(sents []*span, f string) bool {
	return slices.ContainsFunc(sents, func(cs *span) bool { return cs.feats[f] || cs.refFeats[f] || cs.skips[f] })
}

// AnchoredThreshold is the coverage that does for a statement whose own
// values (its numbers and names the question lacks) the sentence gives
// all, with every word it repeats from the question: the rest of its
// words are the answer's own phrasing of them ("permits up to 25 users at
// the same time" against "allows up to 25 concurrent users").
const AnchoredThreshold = 0.5

// anchoredFeats is the least content a statement needs for it: of fewer
// words, half is one or two.
const anchoredFeats = 4

// anchoredMissing is how many English words of its own a statement may
// phrase otherwise: a verb and its object ("came into force" for "took
// effect"). Chinese phrasings are bigrams, whose count says little.
const anchoredMissing = 2

// valuesIn reports whether the statement has numbers or names of its own,
// apart from the question's, and the sentence gives them all (a Chinese
// number with its measure word: 2套 is not 2号), with every word the
// statement repeats from the question but the question's names, and lacks
// at most anchoredMissing English words of its own.
func valuesIn(st, q *span, cs *span) bool {
	if st.residue || len(st.feats) < anchoredFeats {
		return false
	}
	has := func(f string) bool { return cs.feats[f] || cs.refFeats[f] }
	own := 0
	for f := range st.feats {
		switch {
		case has(f) || cs.skips[f] || st.common[f]:
		case q != nil && q.feats[f]:
			if !slices.ContainsFunc(q.names, func(nm name) bool { return nm.feat == f }) {
				return false
			}
		case strings.HasPrefix(f, "w:"):
			if own++; own > anchoredMissing {
				return false
			}
		}
	}
	n := 0
	for _, x := range st.quants {
		if q != nil && q.feats["n:"+x.value] {
			continue
		}
		// An English unit is the word after the number, phrased freely (25
		// users, 25 concurrent); a Chinese one is a measure word.
		if !slices.ContainsFunc(cs.quants, func(c quantity) bool {
			cu, xu := norm.Unit(c.unit), norm.Unit(x.unit)
			return c.value == x.value && (cu == xu || x.unit == "" || !containsHan(x.unit+c.unit) && !norm.SameKind(cu, xu))
		}) {
			return false
		}
		n++
	}
	for f := range capitals(st) { // its first word too, which counts for no value
		if st.feats[f] && (q == nil || !q.feats[f]) && !has(f) {
			return false
		}
	}
	return n > 0 || slices.ContainsFunc(st.names, func(nm name) bool { return q == nil || !q.feats[nm.feat] })
}
