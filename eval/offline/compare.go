package offline

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/words"
	"github.com/ragscope/ragscope/internal/memo"
)

// A comparison is read from a comparative or superlative word of the
// statement, or, for an answer that only names an item, of its question
// (words/comparatives.txt). The items compared are the alternatives the
// question offers ("A or B", "A还是B", "A和B，哪个…"), or else the rows of
// the table or the fields of the record the statement names. Each item's
// value is the first quantity of the comparison's kind (a year for points
// in time, else one with a unit) in the first context piece that names that
// item and no other. When every item has a value of one unit, the
// statement is right only if its item holds the extreme one.
type comparison struct {
	word string
	max  bool // the largest (latest) is meant
	time bool // points in time: years first
}

var comparatives = words.Map("comparatives")

var dayUnit = norm.Unit("天")

type foundComparison struct {
	c  comparison
	ok bool
}

// Every support test asks for the comparison of its statement and question.
var (
	comparisonsOf  = memo.New[foundComparison](analysisCacheSize)
	alternativesOf = memo.New[[]string](analysisCacheSize)
)

// comparisonIn finds the first comparative word of a text; "more than 3"
// is a bound, not a comparison of items.
func comparisonIn(text string) (comparison, bool) {
	f := comparisonsOf.Get(text, func(text string) foundComparison {
		c, ok := findComparison(text)
		return foundComparison{c, ok}
	})
	return f.c, f.ok
}

func findComparison(text string) (comparison, bool) {
	ws := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range ws {
		kind, ok := comparatives[w]
		if !ok || quantifier(ws, i) {
			continue
		}
		return comparison{word: w, max: strings.HasPrefix(kind, "max"), time: strings.HasSuffix(kind, "-time")}, true
	}
	best, at := comparison{}, -1
	for w, kind := range comparatives {
		if isASCIIWord(w) {
			continue
		}
		for from := 0; ; {
			i := strings.Index(text[from:], w)
			if i < 0 {
				break
			}
			i += from
			if predicative(text[i+len(w):]) && (at < 0 || i < at) {
				best, at = comparison{word: w, max: strings.HasPrefix(kind, "max"), time: strings.HasSuffix(kind, "-time")}, i
				break
			}
			from = i + len(w)
		}
	}
	return best, at >= 0
}

// quantifier: more, most, less, least, fewer used as a quantity and not to
// compare ("more than 3", "at least", "most of", "Most employees ...").
func quantifier(ws []string, i int) bool {
	switch ws[i] {
	case "more", "most", "less", "least", "fewer", "fewest":
	default:
		return false
	}
	return i == 0 || ws[i-1] == "at" || i+1 < len(ws) && (ws[i+1] == "of" || ws[i+1] == "than" && i+2 < len(ws) && startsWithDigit(ws[i+2]))
}

// predicative: a Chinese comparative that ends what it says of its item
// (住宿标准更高，, 哪个最低？, 最高的是) compares; one that modifies a noun or
// a verb (最高限额, 最多可报销) is part of a name or a bound.
func predicative(after string) bool {
	r, _ := utf8.DecodeRuneInString(after)
	return after == "" || !isHan(r) || r == '的' || r == '是'
}

func isASCIIWord(w string) bool { return w != "" && w[0] < 0x80 }

func startsWithDigit(w string) bool { return w != "" && w[0] >= '0' && w[0] <= '9' }

// alternatives are the items an alternative question offers.
func alternatives(question string) []string {
	q := strings.TrimRight(strings.TrimSpace(question), "?？。 ")
	if i := strings.Index(q, " or "); i > 0 {
		left, right := q[:i], q[i+4:]
		if j := strings.LastIndexAny(left, ",;:"); j >= 0 {
			left = left[j+1:]
		} else if c, ok := comparisonIn(left); ok {
			if k := strings.LastIndex(strings.ToLower(left), c.word); k >= 0 {
				left = left[k+len(c.word):]
			}
		}
		lw := strings.Fields(left)
		for len(lw) > 1 && openingWords[strings.ToLower(lw[0])] {
			lw = lw[1:]
		}
		if j := strings.IndexAny(right, ",;:"); j >= 0 {
			right = right[:j]
		}
		rw := strings.Fields(right)
		if c, ok := comparisonIn(right); ok {
			// "Do A or B get more X": B is as long as A.
			k := slices.IndexFunc(rw, func(w string) bool { return strings.EqualFold(trimWord(w), c.word) })
			if k > 0 && len(rw) > len(lw) {
				rw = rw[:min(k, len(lw))]
			}
		}
		if len(lw) == 0 || len(rw) == 0 || len(lw) > 8 || len(rw) > 8 {
			return nil
		}
		return []string{strings.Join(lw, " "), strings.Join(rw, " ")}
	}
	for _, sep := range []string{"还是", "和", "与", "或"} {
		i := strings.Index(q, sep)
		if i <= 0 {
			continue
		}
		left := []rune(q[:i])
		s := len(left)
		for s > 0 && itemRune(left[s-1]) {
			s--
		}
		right := []rune(q[i+len(sep):])
		e := 0
		for e < len(right) && itemRune(right[e]) && !strings.ContainsRune("哪谁", right[e]) {
			e++
		}
		a, b := string(left[s:]), string(right[:e])
		if a != "" && b != "" {
			return []string{a, b}
		}
	}
	return nil
}

var openingWords = map[string]bool{"do": true, "does": true, "did": true, "is": true, "are": true, "was": true, "were": true, "which": true, "who": true, "what": true, "whose": true, "has": true, "have": true, "had": true}

func itemRune(r rune) bool { return isHan(r) || unicode.IsLetter(r) || unicode.IsDigit(r) }

// item is one thing compared, with the features that name it apart from
// the others.
type item struct {
	text  string
	feats []string // English stems the others lack; nil for Chinese
}

func items(texts []string) []item {
	count := map[string]int{}
	all := make([][]string, len(texts))
	for i, t := range texts {
		seen := map[string]bool{}
		for _, s := range stems(t) {
			if !englishStop[s] && !seen[s] {
				seen[s] = true
				all[i] = append(all[i], s)
				count[s]++
			}
		}
	}
	out := make([]item, len(texts))
	for i, t := range texts {
		out[i].text = t
		if containsHan(t) {
			continue
		}
		for _, s := range all[i] {
			if count[s] < len(texts) {
				out[i].feats = append(out[i].feats, "w:"+s)
			}
		}
		if len(out[i].feats) == 0 {
			return nil // items the words cannot tell apart
		}
	}
	return out
}

// names reports whether a text (or an analysed span) names the item.
func (it item) named(text string, sp *span) bool {
	if it.feats == nil {
		return strings.Contains(norm.Numerals(text), norm.Numerals(it.text))
	}
	for _, f := range it.feats {
		if !sp.feats[f] && !sp.refFeats[f] {
			return false
		}
	}
	return true
}

// value is an item's quantity for the comparison, from the first context
// piece (or clause of one) that names it and no other item.
type value struct {
	q    quantity
	v    float64
	from int   // the index of the sentence that gives it
	cell *span // a table's cell or a record's field, read with its keys (rowItems)
}

func itemValue(c comparison, its []item, k int, sents []*span, about map[string]bool) (value, bool) {
	for i, cs := range sents {
		if !its[k].named(cs.text, cs) || !c.time && !saysOf(cs, about) {
			continue
		}
		pieces := []*span{cs}
		if namesOther(its, k, cs.text, cs) {
			pieces = nil // one clause each: "engineers $2,000, designers $1,500"
			for _, cl := range cs.clauses {
				if p := analyze(cl.text); its[k].named(cl.text, p) && !namesOther(its, k, cl.text, p) {
					pieces = append(pieces, p)
				}
			}
		}
		for _, p := range pieces {
			if val, ok := kindValue(c, p.quants); ok {
				val.from = i
				return val, true
			}
		}
	}
	return value{}, false
}

func namesOther(its []item, k int, text string, sp *span) bool {
	for j, it := range its {
		if j != k && it.named(text, sp) {
			return true
		}
	}
	return false
}

// kindValue: a year for points in time, else the first quantity with a unit.
func kindValue(c comparison, qs []quantity) (value, bool) {
	for _, q := range qs {
		v, err := strconv.ParseFloat(q.value, 64)
		if err != nil {
			continue
		}
		if c.time && (q.unit == "" || q.unit == "年") && v >= 1000 && v <= 2200 && v == float64(int(v)) {
			return value{q: quantity{value: q.value, unit: "year", text: q.text}, v: v}, true
		}
	}
	for _, q := range qs {
		// Points in time without a year: days of a month (每月20日).
		if v, err := strconv.ParseFloat(q.value, 64); err == nil && q.unit != "" && q.unit != "month" && q.unit != "weekday" && (!c.time || q.unit == dayUnit) {
			return value{q: q, v: v}, true
		}
	}
	return value{}, false
}

// comparisonVerdict decides a statement that compares items when the
// context gives each a value of one unit: a conflict when another item
// holds the extreme value, support when the statement's item does and the
// rest of the statement is covered. ok is false when it cannot decide.
func comparisonVerdict(st, q *span, sents []*span, useUnis bool) (Evidence, bool) {
	c, ok := comparisonIn(st.text)
	if !ok && q != nil {
		c, ok = comparisonIn(q.text)
	}
	if !ok || q == nil {
		return Evidence{}, false
	}
	its := items(alternativesOf.Get(q.text, alternatives))
	about := compared(st, q, c, its)
	var vals []value
	if len(its) < 2 {
		if its, vals = rowItems(c, st, sents); len(its) < 2 {
			return Evidence{}, false
		}
		about = compared(st, q, c, its)
		for _, v := range vals {
			if !c.time && !saysOf(v.cell, about) {
				return Evidence{}, false
			}
		}
	}
	// The statement's item: the first it names.
	x, at := -1, -1
	for k, it := range its {
		if !it.named(st.text, st) {
			continue
		}
		pos := firstMention(st.text, it)
		if x < 0 || pos >= 0 && pos < at {
			x, at = k, pos
		}
	}
	if x < 0 {
		return Evidence{}, false
	}
	if _, own := comparisonIn(st.text); !own && !onlyNames(st, q, its[x]) {
		return Evidence{}, false
	}
	if vals == nil {
		vals = make([]value, len(its))
		for k := range its {
			v, ok := itemValue(c, its, k, sents, about)
			if !ok {
				return Evidence{}, false
			}
			vals[k] = v
		}
	}
	for k := range vals {
		if vals[k].q.unit != vals[0].q.unit {
			return Evidence{}, false
		}
	}
	best := x
	for k := range its {
		if c.max && vals[k].v > vals[best].v || !c.max && vals[k].v < vals[best].v {
			best = k
		}
	}
	for k := range its {
		if k != x && vals[k].v == vals[x].v {
			return Evidence{}, false // a tie decides nothing
		}
	}
	var given []string
	for k, it := range its {
		given = append(given, fmt.Sprintf("%s %s", it.text, vals[k].q.text))
	}
	from := vals[x].from
	ev := Evidence{Quote: sents[from].text, From: from, Also: -1, Coverage: 1}
	if best != x {
		ev.Detector = DetectorNumber
		ev.Reason = fmt.Sprintf("statement says %s is the %s; context gives %s: %s has it (%s)", its[x].text, c.word, strings.Join(given, ", "), its[best].text, DetectorNumber)
		return ev, true
	}
	rest := withoutComparative(st, c)
	if cov := coverage(rest, q, sents[from], useUnis); cov >= 0 && cov < SupportThreshold {
		return Evidence{}, false
	}
	ev.Verdict = 1
	ev.Reason = fmt.Sprintf("context gives %s: %s is the %s", strings.Join(given, ", "), its[x].text, c.word)
	// The other items' values are part of the evidence: name a sentence of
	// one of them, so its chunk counts as useful too.
	for k := range its {
		if k != x && vals[k].from != from {
			ev.Also = vals[k].from
			break
		}
	}
	return ev, true
}

// firstMention is where the text first writes the item's first word.
func firstMention(text string, it item) int {
	return strings.Index(strings.ToLower(text), strings.ToLower(strings.Fields(it.text)[0]))
}

// onlyNames: an answer that says no more than its item (and the question's
// words): it is read as the question's comparison.
func onlyNames(st, q *span, it item) bool {
	itemFeats := analyze(it.text).feats
	itemUnis := analyze(it.text).unis
	for f := range st.feats {
		if !itemFeats[f] && !q.feats[f] && !st.common[f] {
			return false
		}
	}
	for f := range st.unis {
		if !itemUnis[f] && !q.unis[f] {
			return false
		}
	}
	return true
}

// withoutComparative is the statement without the comparative word's
// features, for the coverage of the rest of it.
func withoutComparative(st *span, c comparison) *span {
	out := *st
	drop := analyze(c.word)
	out.feats = map[string]bool{}
	for f := range st.feats {
		if !drop.feats[f] && f != "w:than" {
			out.feats[f] = true
		}
	}
	if st.unis != nil {
		out.unis = map[string]bool{}
		for f := range st.unis {
			if !drop.unis[f] {
				out.unis[f] = true
			}
		}
	}
	return &out
}

// rowItems are the rows of the table (or the fields of the record) whose
// row the statement names, read in one column, with their values: the
// items of a superlative ("the lowest monthly fee") that offers none.
func rowItems(c comparison, st *span, sents []*span) ([]item, []value) {
	for _, cs := range sents {
		fc := cs.field
		if fc == nil || len(fc.named) == 0 || naming(st, fc.keys[0]) < 1 {
			continue
		}
		var texts []string
		var vals []value
		for i, o := range sents {
			of := o.field
			if of == nil || o.chunk != cs.chunk || len(of.named) != len(fc.named) || !slices.Equal(of.named[1:], fc.named[1:]) {
				continue
			}
			v, ok := kindValue(c, of.value.quants)
			if !ok {
				return nil, nil
			}
			v.from, v.cell = i, o
			texts = append(texts, of.named[0])
			vals = append(vals, v)
		}
		if its := items(texts); len(its) == len(vals) {
			return its, vals
		}
		return nil, nil
	}
	return nil, nil
}

// compared are the features of what is compared ("deductible", 年假): the
// statement's and the question's, but the items', the comparative word's
// and common words. A quantity (not a year) is read only from a piece that
// has one, so "VDI is more secure" is not decided by how many users each
// supports.
func compared(st, q *span, c comparison, its []item) map[string]bool {
	drop := analyze(c.word).feats
	out := map[string]bool{}
	for _, sp := range []*span{st, q} {
		for f := range sp.feats {
			if !drop[f] && !sp.common[f] && !strings.HasPrefix(f, "n:") {
				out[f] = true
			}
		}
	}
	for _, it := range its {
		for f := range analyze(it.text).feats {
			delete(out, f)
		}
	}
	return out
}

// saysOf: the piece has a feature of what is compared.
func saysOf(cs *span, about map[string]bool) bool {
	for f := range about {
		if cs.feats[f] || cs.refFeats[f] {
			return true
		}
	}
	return false
}
