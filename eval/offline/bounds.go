package offline

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/offline/lex"
	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/words"
)

// A number's bound is what the words next to it say of the value meant: at
// most (-1: "up to 8 kW", "30 days or less", 不超过600元, 10年以下), below it
// (-2: "under 8 kW", 不满3年), at least (+1: "at least 3 years", 满1年, 10年以
// 上) or above it (+2: "over 8 kW", 超过2小时). A statement that gives the
// context's number with the other bound says the other side of it.
type boundLists struct {
	before, after map[string]int8
	lastWords     map[string]bool // the last word of each English phrase before a number
}

var bounds = func() boundLists {
	b := boundLists{before: map[string]int8{}, after: map[string]int8{}, lastWords: map[string]bool{}}
	for _, side := range []struct {
		list string
		sign int8
	}{{"bound_at_most", -1}, {"bound_at_least", 1}} {
		for _, l := range words.List(side.list) {
			where, phrase, ok := strings.Cut(l, ": ")
			sign := side.sign
			if w, strict := strings.CutPrefix(where, "strict "); strict {
				where, sign = w, 2*sign
			}
			switch {
			case ok && where == "before":
				b.before[phrase] = sign
				f := strings.Fields(phrase)
				b.lastWords[f[len(f)-1]] = true
			case ok && where == "after":
				b.after[phrase] = sign
			default:
				panic(fmt.Sprintf("offline: word list %s: %q is no \"before: phrase\" or \"after: phrase\" line", side.list, l))
			}
		}
	}
	return b
}()

// boundAt is the bound of the number lexeme i (-1, +1; 0 for none) and the
// words that set it: the longest list entry that ends the Han run or the
// three words before the number, or that opens what follows its unit.
func boundAt(lx []lex.Lexeme, i int) (int8, string) {
	if i+1 < len(lx) && lx[i+1].Kind == 'h' {
		// What follows the unit decides first: 满20年以上.
		rest := strings.TrimPrefix(lx[i+1].Text, norm.HanUnit(lx[i+1].Text))
		if w := longestAffix(rest, bounds.after, strings.HasPrefix); w != "" {
			return bounds.after[w], w
		}
	}
	if i > 0 && lx[i-1].Kind == 'h' {
		run := lx[i-1].Text
		if w := longestAffix(run, bounds.before, strings.HasSuffix); w != "" {
			// A negation before it turns it: 不会超过 is at most.
			if negatedEnd(strings.TrimSuffix(run, w)) {
				return -bounds.before[w], w
			}
			return bounds.before[w], w
		}
	}
	from := i - 1
	if symbolUnit(lx, i) != "" {
		from-- // the currency's symbol: "over $50"
	}
	if from < 0 || lx[from].Kind != 'w' || !bounds.lastWords[lx[from].Text] {
		return boundAfter(lx, i)
	}
	var before []string
	for k := from; k >= 0 && k >= from-2 && lx[k].Kind == 'w'; k-- {
		before = append([]string{lx[k].Text}, before...)
	}
	for n := len(before); n >= 1; n-- {
		if p := strings.Join(before[len(before)-n:], " "); bounds.before[p] != 0 {
			// "will not exceed 14 days" is at most.
			if k := from - n; k >= 0 && lx[k].Kind == 'w' && englishNegation[lx[k].Text] {
				return -bounds.before[p], p
			}
			return bounds.before[p], p
		}
	}
	return boundAfter(lx, i)
}

// boundAfter is boundAt's English bound after the number: "or more" within
// the few words after it (its unit's).
func boundAfter(lx []lex.Lexeme, i int) (int8, string) {
	if i+1 >= len(lx) || lx[i+1].Kind == 'h' {
		return 0, ""
	}
	for k := i + 1; k+1 < len(lx) && k <= i+4; k++ {
		if lx[k].Kind == 'n' || lx[k].Kind == 'p' && lx[k].Text != "%" && lx[k].Text != "-" {
			break
		}
		if lx[k].Kind == 'w' && lx[k+1].Kind == 'w' {
			if p := lx[k].Text + " " + lx[k+1].Text; bounds.after[p] != 0 {
				return bounds.after[p], p
			}
		}
	}
	return 0, ""
}

// longestAffix is the longest Han entry of list that text ends (or opens)
// with, by fix; "" when none does.
func longestAffix(text string, list map[string]int8, fix func(s, affix string) bool) string {
	best := ""
	for w := range list {
		if r, _ := utf8.DecodeRuneInString(w); isHan(r) && len(w) > len(best) && fix(text, w) {
			best = w
		}
	}
	return best
}

// boundConflict: a number the statement bounds ("under 8 kW") that the
// best sentence gives only with the other bound ("above 8 kW"), when the
// statement says nothing the sentence does not (else it may say what holds
// on the other side: "you pay for parts over $50" beside "parts up to $50
// are included"). Where the
// sentence gives it more than once, the clauses that also give another of
// the statement's numbers decide ("For systems up to 8 kW … 90 minutes.
// Systems above 8 kW take around 150 minutes" for "under 8 kW … two and a
// half hours").
func boundConflict(st, question, best *span, sents []*span, covs []float64) (string, bool) {
	// Another sentence that covers the statement may give the number as it
	// does ("claims filed over 30 days … are rejected; claims must be filed
	// within 30 days").
	agreed := func(q quantity) bool {
		return covering(sents, covs, func(cs *span) bool {
			return cs != best && slices.ContainsFunc(cs.quants, func(c quantity) bool { return sameQuantity(c, q) && c.bound*q.bound >= 0 })
		})
	}
	for _, q := range st.quants {
		if q.bound == 0 || q.date {
			continue
		}
		companions := map[int]bool{} // clauses of the sentence with another of the statement's numbers
		for _, c := range best.quants {
			companions[c.clause] = companions[c.clause] || slices.ContainsFunc(st.quants, func(o quantity) bool { return !sameQuantity(o, q) && sameQuantity(c, o) })
		}
		occ := slices.DeleteFunc(slices.Clone(best.quants), func(c quantity) bool { return !sameQuantity(c, q) })
		if with := slices.DeleteFunc(slices.Clone(occ), func(c quantity) bool { return !companions[c.clause] }); len(with) > 0 {
			occ = with
		}
		if len(occ) == 0 {
			continue
		}
		other := !slices.ContainsFunc(occ, func(c quantity) bool { return c.bound*q.bound >= 0 })
		if other && !saysMoreThan(st, question, best, q) && !agreed(q) {
			return fmt.Sprintf("statement says %q where the context says %q", boundText(q), boundText(occ[0])), true
		}
	}
	return "", false
}

// saysMoreThan: the statement has words the sentence does not, beyond
// the words of q's bound (以上 against 以下).
func saysMoreThan(st, question, best *span, q quantity) bool {
	miss := missingWords(st, question, best)
	return miss != "" && slices.ContainsFunc(strings.Split(miss, ", "), func(m string) bool {
		return !strings.Contains(m, q.boundWords) && !strings.Contains(q.boundWords, m)
	})
}

// boundText is the quantity with its bound's words, as a reason quotes it.
func boundText(q quantity) string {
	sep := " "
	if r, _ := utf8.DecodeRuneInString(q.boundWords); isHan(r) {
		sep = ""
	}
	if b, ok := bounds.after[q.boundWords]; ok && q.bound == b {
		return q.text + sep + q.boundWords
	}
	return q.boundWords + sep + q.text
}

// negatedEnd: the Han text ends on a negation marker (不会, 不), not on a
// word that only looks negated (非常).
func negatedEnd(text string) bool {
	ends := func(m string) bool { return strings.HasSuffix(text, m) }
	return slices.ContainsFunc(chineseNegation, ends) && !slices.ContainsFunc(chineseNotNegation, ends)
}

// conditionConflict: the statement gives a number of a clause whose
// condition the question's case does not meet: a bound of the clause
// (conditionsOf) is on a quantity of a unit the question gives unbounded,
// and the question's value is outside it ("超过2小时每小时收费5元" for a stay of
// 一个半小时; "Systems above 8 kW take around 150 minutes" for a 6.4 kW
// system).
func conditionConflict(st, question, best *span) (string, bool) {
	if question == nil || len(question.quants) == 0 || !slices.ContainsFunc(best.quants, func(b quantity) bool { return b.bound != 0 }) {
		return "", false
	}
	for _, x := range st.quants {
		if x.date || slices.ContainsFunc(question.quants, func(y quantity) bool { return sameQuantity(y, x) }) {
			continue
		}
		for _, c := range best.quants {
			if !sameQuantity(c, x) {
				continue
			}
			for _, b := range conditionsOf(c, x, st, best) {
				for _, y := range question.quants {
					if y.bound == 0 && !y.date && outside(y, b) && !ordinalOrDay(question.text, y) {
						return fmt.Sprintf("the context gives %s for %s; the question's %s is not", c.text, boundText(b), y.text), true
					}
				}
			}
		}
	}
	return "", false
}

// conditionsOf are the bounded quantities that condition c, the context's
// writing of the statement's number x: those of c's clause and, for a cell
// of a table row or a field of a record, of its other fields ("| Over 12
// months | $5,000 |"); where c's clause has none, those of the clause before
// it, where a Chinese condition stands ("期限一年以上不满三年的，试用期为2个月").
// Not a bound the statement gives itself, which says what holds up to it
// ("$1,800 covers up to 120 garments; the 30 more …").
func conditionsOf(c, x quantity, st, best *span) []quantity {
	var out []quantity
	for _, at := range []int{c.clause, c.clause - 1} {
		for _, b := range best.quants {
			inRow := at == c.clause && c.key != "" && b.key != ""
			if (b.clause == at || inRow) && b.bound != 0 && !b.date && !sameQuantity(b, x) && !slices.ContainsFunc(st.quants, func(o quantity) bool { return sameQuantity(o, b) }) {
				out = append(out, b)
			}
		}
		if slices.ContainsFunc(best.quants, func(b quantity) bool { return b.clause == at && b.bound != 0 }) {
			break // the clause's own condition decides
		}
	}
	return out
}

// outside: the value y is outside the bound b (of the same unit or one
// convertible to it).
func outside(y, b quantity) bool {
	if y.unit == "" || b.unit == "" || y.unit != b.unit && !norm.Convertible(y.unit, b.unit) {
		return false
	}
	yv, yu, ok1 := norm.Smallest(y.value, y.unit)
	bv, bu, ok2 := norm.Smallest(b.value, b.unit)
	if !ok1 || !ok2 || yu != bu || yu == "" {
		return false
	}
	switch b.bound {
	case -1:
		return yv > bv
	case -2:
		return yv >= bv
	case 1:
		return yv < bv
	case 2:
		return yv <= bv
	}
	return false
}

// ordinalOrDay: the question writes the number as an ordinal (第23周) or as
// the day of a month (6月30日), no amount of its unit.
func ordinalOrDay(text string, y quantity) bool {
	return strings.Contains(text, "第"+y.text) || strings.Contains(text, "月"+y.value+"日") || strings.Contains(text, "月"+y.value+"号")
}

// sameQuantity: c and q are one amount, in one unit or in two of one kind
// (2年 and 24个月).
func sameQuantity(c, q quantity) bool {
	return c.value == q.value && c.unit == q.unit || norm.SameAmount(c.value, c.unit, q.value, q.unit)
}
