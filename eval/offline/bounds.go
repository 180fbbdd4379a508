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
// most (-1: "under 8 kW", "30 days or less", 不超过600元, 10年以下) or at
// least (+1: "over 8 kW", "at least 3 years", 满1年, 10年以上). A statement
// that gives the context's number with the other bound says the other side
// of it.
type boundLists struct {
	before, after map[string]int8
}

var bounds = func() boundLists {
	b := boundLists{before: map[string]int8{}, after: map[string]int8{}}
	for _, side := range []struct {
		list string
		sign int8
	}{{"bound_at_most", -1}, {"bound_at_least", 1}} {
		for _, l := range words.List(side.list) {
			where, phrase, ok := strings.Cut(l, ": ")
			switch {
			case ok && where == "before":
				b.before[phrase] = side.sign
			case ok && where == "after":
				b.after[phrase] = side.sign
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
	var before []string
	from := i - 1
	if symbolUnit(lx, i) != "" {
		from-- // the currency's symbol: "over $50"
	}
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
	if i+1 >= len(lx) {
		return 0, ""
	}
	if lx[i+1].Kind == 'h' {
		return 0, ""
	}
	// English: "or more" within the few words after the number (its unit's).
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
	same := func(c, q quantity) bool {
		return c.value == q.value && c.unit == q.unit || norm.SameAmount(c.value, c.unit, q.value, q.unit)
	}
	// Another sentence that covers the statement may give the number as it
	// does ("claims filed over 30 days … are rejected; claims must be filed
	// within 30 days").
	agreed := func(q quantity) bool {
		for i, cs := range sents {
			if cs != best && i < len(covs) && covs[i] >= SupportThreshold && slices.ContainsFunc(cs.quants, func(c quantity) bool { return same(c, q) && c.bound != -q.bound }) {
				return true
			}
		}
		return false
	}
	for _, q := range st.quants {
		if q.bound == 0 || q.date {
			continue
		}
		companions := map[int]bool{}
		for _, o := range st.quants {
			if same(o, q) {
				continue
			}
			for _, c := range best.quants {
				if same(c, o) {
					companions[c.clause] = true
				}
			}
		}
		var all, withCompanion []quantity
		for _, c := range best.quants {
			if same(c, q) {
				all = append(all, c)
				if companions[c.clause] {
					withCompanion = append(withCompanion, c)
				}
			}
		}
		occ := all
		if len(withCompanion) > 0 {
			occ = withCompanion
		}
		if len(occ) == 0 {
			continue
		}
		other := true
		for _, c := range occ {
			other = other && c.bound == -q.bound
		}
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
	if miss == "" {
		return false
	}
	for _, m := range strings.Split(miss, ", ") {
		if !strings.Contains(m, q.boundWords) && !strings.Contains(q.boundWords, m) {
			return true
		}
	}
	return false
}

// boundText is the quantity with its bound's words, as a reason quotes it.
func boundText(q quantity) string {
	if _, ok := bounds.after[q.boundWords]; ok && q.bound == bounds.after[q.boundWords] {
		if r, _ := utf8.DecodeRuneInString(q.boundWords); isHan(r) {
			return q.text + q.boundWords
		}
		return q.text + " " + q.boundWords
	}
	if r, _ := utf8.DecodeRuneInString(q.boundWords); isHan(r) {
		return q.boundWords + q.text
	}
	return q.boundWords + " " + q.text
}

// negatedEnd: the Han text ends on a negation marker (不会, 不), not on a
// word that only looks negated (非常).
func negatedEnd(text string) bool {
	neg := false
	for _, m := range chineseNegation {
		neg = neg || strings.HasSuffix(text, m)
	}
	for _, m := range chineseNotNegation {
		neg = neg && !strings.HasSuffix(text, m)
	}
	return neg
}
