package offline

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/phrase"
	"github.com/ragscope/ragscope/internal/memo"
)

// Roles (the package doc's step 5): a sentence giving parties a part each
// has every word of a statement that swaps two; coverage alone would pass it.

// roleConflict: the statement (read with its question when it only names
// its answer) says the verb of one binding of the sentence and a party of
// another, and neither the first binding's parties nor the other's verb;
// or gives that verb to another name the sentence writes (OtherAgent).
func roleConflict(st, q, cs *span) (string, bool) {
	// Parts are given by "by" or 由, 归, 经: most sentences have none.
	if st.hasHan != cs.hasHan || !strings.Contains(cs.text, " by ") && !strings.ContainsAny(cs.text, "由归经") {
		return "", false
	}
	roles := phrase.Roles(withReferent(cs))
	gap := ""
	if q != nil && answerOnly(st) {
		gap = phrase.GapPart(q.text)
	}
	says := func(verb string) bool {
		if containsHan(verb) {
			return strings.Contains(st.text, verb) || strings.Contains(gap, verb)
		}
		return phrase.SaysVerb(st.text, verb) || phrase.SaysVerb(gap, verb)
	}
	for _, a := range roles {
		if !says(a.Verb) || partyNamed(st, a) {
			continue
		}
		if k := slices.IndexFunc(roles, func(b phrase.Role) bool { return b.Verb != a.Verb && !says(b.Verb) && partyNamed(st, b) }); k >= 0 {
			return fmt.Sprintf("the context gives %q and %q", a.Text, roles[k].Text), true
		}
		if n := phrase.OtherAgent(st.text, a.Verb, roles, cs.text); n != "" {
			return fmt.Sprintf("the context gives %q, not to %s", a.Text, n), true
		}
	}
	return "", false
}

// partyNamed: the statement names one of the binding's parties whole (by
// its name's words: "the contractor Bo Chen" by Bo Chen).
func partyNamed(st *span, r phrase.Role) bool {
	for _, p := range r.Parties {
		if containsHan(p) {
			if strings.Contains(st.text, p) || len([]rune(p)) > 4 && strings.Contains(st.text, string([]rune(p)[:3])) {
				return true
			}
			continue
		}
		all, words, named := true, 0, strings.ContainsFunc(p, unicode.IsUpper) // a party of no words ("by 5%") names no one
		for _, w := range strings.Fields(p) {
			lw := strings.ToLower(w)
			if englishStop[lw] || !unicode.IsLetter([]rune(lw)[0]) || named && !phrase.Capitalised(w) {
				continue
			}
			words++
			if !st.feats["w:"+norm.Stem(lw)] {
				all = false
			}
		}
		if all && words > 0 {
			return true
		}
	}
	return false
}

// answerOnly: a statement short enough to be an answer that names only
// what fills the question's gap ("Neil Gaiman"): the question gives its verb.
func answerOnly(st *span) bool {
	if st.hasHan {
		return len([]rune(norm.StripFrame(st.text))) <= 8 // 答案是X。 is X
	}
	n := 0 // "The answer is X." is X: stop words do not count
	for _, w := range strings.Fields(strings.ToLower(st.text)) {
		if t := phrase.TrimWord(w); t != "" && !englishStop[t] {
			n++
		}
	}
	return n <= 4
}

// Shares are roles of quantities ("30 days for staff and 60 days for
// managers"). A piece's party is its words no other piece has, on the side
// of its quantity where the later pieces write theirs.

// shareConflict reports a quantity of the statement that the sentence
// gives to another party than the one the statement names.
func shareConflict(st, cs *span) (string, bool) {
	// A sentence of shares gives a few; one of ever so many numbers (a
	// table flattened into a line) is read by its cells, not cut here.
	if len(cs.quants) > maxShares || len(cs.text) > maxShareText || !sharedUnit(cs) {
		return "", false
	}
	pieces := sharesOf.Get(cs.text, readShares) // none when it has fewer than two
	named := func(i int) bool {
		return slices.ContainsFunc(pieces[i].party, func(f string) bool { return st.feats[f] })
	}
	for _, sq := range st.quants {
		a := slices.IndexFunc(pieces, func(p piece) bool { return givesExactly(p.sp, sq) })
		if !amount(sq) || a < 0 || named(a) {
			continue
		}
		for b, p := range pieces {
			if b == a || p.q.unit != sq.unit || p.q.value == sq.value || hasQuantity(st, p.q) || !named(b) {
				continue
			}
			return fmt.Sprintf("the context gives %s in %q and %s in %q", sq.text, strings.TrimSpace(pieces[a].sp.text), p.q.text, strings.TrimSpace(p.sp.text)), true
		}
	}
	return "", false
}

// sharesOf are a sentence's pieces with a quantity each and their parties,
// read once per sentence however many statements it is tested against.
var sharesOf = memo.New[[]piece](analysisCacheSize)

func readShares(text string) []piece {
	p := quantityPieces(text)
	if len(p) < 2 {
		return nil
	}
	setParties(p)
	return p
}

// maxShares and maxShareText bound the sentences read for shares, whose
// cutting and reading is quadratic in their quantities and length.
const (
	maxShares    = 12
	maxShareText = 2000
)

// sharedUnit: the span gives two amounts of one unit.
func sharedUnit(sp *span) bool {
	for i, a := range sp.quants {
		for _, b := range sp.quants[i+1:] {
			if a.unit != "" && a.unit == b.unit && a.value != b.value && amount(a) && amount(b) {
				return true
			}
		}
	}
	return false
}

// amount: a quantity that can be a party's share; a year ("2015赛季",
// "in 2019") is a time, and a date a point in it; a sum of money ("2,000
// yuan") is no year.
func amount(q quantity) bool {
	if v, err := strconv.Atoi(q.value); err == nil && len(q.value) == 4 && v >= 1800 && v < 2200 && !currencyUnit(q.unit) {
		return false
	}
	return strings.Count(q.text, "-")+strings.Count(q.text, "/") < 2
}

// givesExactly: the span gives q's value with q's unit, or q has none.
func givesExactly(sp *span, q quantity) bool {
	return slices.ContainsFunc(sp.quants, func(c quantity) bool { return c.value == q.value && (c.unit == q.unit || q.unit == "") })
}

// piece is a part of a sentence with its quantity, the features before
// and after the quantity, and its party's (setParties).
type piece struct {
	sp            *span
	q             quantity
	before, after map[string]bool
	party         []string
}

// pieceJoins cut a sentence into the pieces that give a quantity each.
var pieceJoins = []string{"，", "；", "、", ",", ";", " and ", " or ", " while ", " whereas ", " but ", "而"}

// quantityPieces are the pieces of a sentence cut at its joins that give
// a quantity; a piece without one joins the piece before.
func quantityPieces(text string) []piece {
	var out []piece
	acc := ""
	for rest := text; rest != ""; {
		cut, n := len(rest), 0
		for _, j := range pieceJoins {
			if k := phrase.JoinAt(rest, j); k >= 0 && k < cut {
				cut, n = k, len(j)
			}
		}
		acc += " " + rest[:cut]
		rest = rest[cut+n:]
		sp := analyze(acc)
		// An aside in brackets gives no share ("a bag (up to 23 kg) can be
		// added online for EUR 40").
		k := slices.IndexFunc(sp.quants, func(q quantity) bool { return amount(q) && !inBrackets(acc, q.text) })
		if k < 0 {
			continue
		}
		p := piece{sp: sp, q: sp.quants[k], before: sp.feats, after: sp.feats}
		if k := strings.Index(acc, p.q.text); k >= 0 {
			from := 0
			if len(out) == 0 {
				// A lead-in before a colon is said of every piece ("Member
				// costs per GP visit: Silver providers $15 copay, Gold …").
				from = strings.LastIndexAny(acc[:k], ":：") + 1
			}
			p.before, p.after = analyze(acc[from:k]).feats, analyze(acc[k+len(p.q.text):]).feats
		}
		out = append(out, p)
		acc = ""
	}
	return out
}

// numberNameFeats are the features of number words, which an amount adds
// beside its number ("sixty" of EUR 60): no party's words.
var numberNameFeats = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range norm.NumberNames {
		m["w:"+w] = true
	}
	return m
}()

// inBrackets: the text writes s first after a round bracket it has not
// closed. A piece cut at a comma may hold a bracket that closes in the next
// ("(up to 23 kg, per bag)"), which plaintext's reading of closed pairs
// would not mark.
func inBrackets(text, s string) bool {
	i := strings.Index(strings.ToLower(text), strings.ToLower(s))
	if i < 0 {
		return false
	}
	open := strings.LastIndexAny(text[:i], "(（")
	return open >= 0 && !strings.ContainsAny(text[open:i], ")）")
}

// yearFeat: the feature is a year's number (2014 of "2014 sales"), which
// names a piece as a word does, where an amount is its share.
func yearFeat(f string) bool {
	y, err := strconv.Atoi(strings.TrimPrefix(f, "n:"))
	return strings.HasPrefix(f, "n:") && err == nil && y >= 1900 && y <= 2100
}

// setParties sets each piece's party words: those no other piece has, on
// the side of the quantity where the later pieces have theirs.
func setParties(pieces []piece) {
	own := func(i int, side map[string]bool) []string {
		var out []string
		for f := range side {
			if (!strings.HasPrefix(f, "n:") || yearFeat(f)) && !numberNameFeats[f] && !slices.ContainsFunc(pieces, func(o piece) bool { return o.sp != pieces[i].sp && o.sp.feats[f] }) {
				out = append(out, f)
			}
		}
		return out
	}
	before, after := 0, 0
	for i, p := range pieces[1:] {
		before += len(own(i+1, p.before))
		after += len(own(i+1, p.after))
	}
	for i, p := range pieces {
		if before >= after {
			pieces[i].party = own(i, p.before)
		}
		if after >= before {
			pieces[i].party = append(pieces[i].party, own(i, p.after)...)
		}
	}
}

// conjunctConflict: two parallel phrases joined by "and", the second opening
// on a possessive ("He received his B.A. from Millikin University and his
// Ph.D. at Northwestern University"), each with a name of its own, against a
// statement that takes a name from one and a word only the other has ("his
// Ph.D. from Millikin University"). The words before the first phrase ("He
// received") are said of both.
func conjunctConflict(st, q, cs *span) (string, bool) {
	if st.hasHan || strings.Contains(st.text, " and ") || strings.Count(cs.text, " and ") != 1 {
		return "", false
	}
	i := strings.Index(cs.text, " and ")
	left, right := strings.ToLower(cs.text[:i]), cs.text[i+5:]
	rw := strings.Fields(right)
	if len(rw) < 3 || !possessives[strings.ToLower(rw[0])] {
		return "", false
	}
	k := strings.LastIndex(left, " "+strings.ToLower(rw[0])+" ")
	if k < 0 {
		return "", false
	}
	parts := [2]*span{analyze(cs.text[k+1 : i]), analyze(right)}
	caps := capitals(st)
	for _, n := range st.names {
		in := [2]bool{parts[0].feats[n.feat], parts[1].feats[n.feat]}
		if q != nil && q.feats[n.feat] || in[0] == in[1] {
			continue
		}
		own, other := parts[0], parts[1]
		if in[1] {
			own, other = other, own
		}
		if !slices.ContainsFunc(other.names, func(m name) bool { return !st.feats[m.feat] }) {
			continue
		}
		for _, f := range slices.Sorted(maps.Keys(st.feats)) { // sorted: one reason each time
			if strings.HasPrefix(f, "w:") && !caps[f] && !st.common[f] && other.feats[f] && !own.feats[f] {
				return fmt.Sprintf("the context gives %s with %q, not with %s", f[2:], clip(other.text), n.text), true
			}
		}
	}
	return "", false
}

// possessives open the second of two parallel phrases (conjunctConflict).
var possessives = map[string]bool{"his": true, "her": true, "its": true, "their": true}

// clauseConflict: the statement's own value (a number, an English name) is
// in a clause of the sentence that lacks the statement's word tying it
// (relationOf), while another clause says that word of a value of the same
// kind ("它于2015年全线贯通，并于2017年…投入使用" for "2017年贯通"; "founded
// in 1946, although its school traces its origins to an academy opened in
// 1825" for "founded in 1825").
func clauseConflict(st, q, cs *span) (string, bool) {
	if q == nil || len(cs.clauses) < 2 || st.hasHan != cs.hasHan {
		return "", false
	}
	isName, own := capitals(st), map[string]bool{}
	for f := range st.feats {
		if !q.feats[f] && !st.common[f] && (strings.HasPrefix(f, "n:") || !st.hasHan && isName[f]) {
			own[f] = true
		}
	}
	rel := relationOf(st, own)
	if len(rel) == 0 {
		return "", false
	}
	vi := -1
	for i, c := range cs.clauses {
		if overlap(own, c.feats) > 0 {
			if vi >= 0 {
				return "", false // the value is spread over clauses ("November 12, 2020")
			}
			vi = i
		}
	}
	// A clause that is the value alone stands beside the one before it
	// ("the director, Francis Ford Coppola"), as do the last names of a
	// list ("which stars Celia Marsh, Hugo Penn and Dora Vell").
	if vi < 0 || overlap(rel, cs.clauses[vi].feats) > 0 || !saysMore(cs.clauses[vi], st, q) || namesOnly(cs.clauses[vi]) {
		return "", false
	}
	var num *quantity // the value when it is a number
	if k := slices.IndexFunc(st.quants, func(qn quantity) bool { return own["n:"+qn.value] && cs.clauses[vi].feats["n:"+qn.value] }); k >= 0 {
		num = &st.quants[k]
	}
	for i, c := range cs.clauses {
		if i != vi && overlap(rel, c.feats) > 0 && valueOfItsOwn(c, st, q, cs, num) {
			return fmt.Sprintf("the context says %q of another value; %q does not say it", clip(c.text), clip(cs.clauses[vi].text)), true
		}
	}
	return "", false
}

// relationOf is the features of the statement's word that ties its first
// own value to the rest: in English the word before it
// (phrase.RelationWord: "founded" of "was founded in 1825"), in Chinese
// the two characters next to its number (贯通 of "2017年贯通", 全长 of
// "全长86公里").
func relationOf(st *span, own map[string]bool) map[string]bool {
	rel := map[string]bool{}
	if st.hasHan {
		for _, qn := range st.quants {
			i := strings.Index(st.text, qn.text)
			if i < 0 || !own["n:"+qn.value] {
				continue
			}
			before, after := []rune(st.text[:i]), []rune(st.text[i+len(qn.text):])
			for _, pair := range [][]rune{before[max(0, len(before)-2):], after[:min(2, len(after))]} {
				if f := "h:" + string(pair); len(pair) == 2 && st.feats[f] && !st.common[f] {
					rel[f] = true
				}
			}
			break
		}
		return rel
	}
	ws := strings.Fields(st.text)
	for i, w := range ws {
		f := capitalFeat(w)
		if f == "" {
			f = "n:" + norm.Number(phrase.TrimWord(w))
		}
		if own[f] {
			// Only a word of the value's own clause ties it: "If the item is
			// faulty, Glow & Co. covers" is not tied by "faulty".
			stem := phrase.RelationWord(st.text, strings.Join(ws[i:], " "))
			if stem != "" && slices.ContainsFunc(st.clauses, func(c clause) bool { return c.feats[f] && c.feats["w:"+stem] }) {
				rel["w:"+stem] = true
			}
			break
		}
	}
	return rel
}

// saysMore reports whether the clause has a feature of its own, neither the
// statement's nor the question's.
func saysMore(c clause, st, q *span) bool {
	for f := range c.feats {
		if !st.feats[f] && !q.feats[f] && !strings.HasPrefix(f, "n:") {
			return true
		}
	}
	return false
}

// namesOnly: the clause is capitalised words joined by "and" or "or".
func namesOnly(c clause) bool {
	return !slices.ContainsFunc(strings.Fields(c.text), func(w string) bool {
		t := phrase.TrimWord(w)
		return t != "" && !phrase.Capitalised(t) && t != "and" && t != "or" && t != "&"
	})
}

// valueOfItsOwn reports whether a clause of the sentence gives a value that
// neither the statement nor the question has, of the value's kind: a number
// in its unit when num is set, else a capitalised word past its first that
// is no stop word.
func valueOfItsOwn(c clause, st, q, cs *span, num *quantity) bool {
	theirs := func(f string) bool { return st.feats[f] || q.feats[f] || st.common[f] }
	if num != nil {
		return slices.ContainsFunc(cs.quants, func(x quantity) bool {
			return x.unit == num.unit && c.feats["n:"+x.value] && !theirs("n:"+x.value) && strings.Contains(c.text, x.text)
		})
	}
	for i, w := range strings.Fields(c.text) {
		if f := capitalFeat(w); i > 0 && f != "" && !theirs(f) && !englishStop[strings.ToLower(phrase.TrimWord(w))] {
			return true
		}
	}
	return false
}
