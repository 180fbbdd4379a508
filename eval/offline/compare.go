package offline

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/phrase"
)

// A comparison is read from a comparative or superlative word of the
// statement or its question (the package doc's Comparisons).
type comparison = phrase.Comparison

var dayUnit = norm.Unit("天")

// item is one thing compared, with the features that name it apart from
// the others.
type item struct {
	text  string
	feats []string // English stems the others lack; nil for Chinese
}

func items(texts []string) []item {
	own, ok := phrase.OwnStems(texts)
	if !ok {
		return nil // items the words cannot tell apart
	}
	out := make([]item, len(texts))
	for i, t := range texts {
		out[i].text = t
		if !containsHan(t) {
			for _, s := range own[i] {
				out[i].feats = append(out[i].feats, "w:"+s)
			}
		}
	}
	return out
}

// names reports whether a text (or an analysed span) names the item.
func (it item) named(text string, sp *span) bool {
	if it.feats == nil {
		return strings.Contains(norm.Numerals(text), norm.Numerals(it.text))
	}
	for k, f := range it.feats {
		if !sp.feats[f] && !sp.refFeats[f] && !(k == 0 && it.shortFirstIn(text)) {
			return false
		}
	}
	return true
}

// shortFirstIn: the text writes the item's name with its first word
// shortened or lengthened ("Christopher Carl Carter" for "Chris Carter").
func (it item) shortFirstIn(text string) bool {
	w := phrase.Stems(it.text)
	return len(w) >= 2 && "w:"+w[0] == it.feats[0] && phrase.ShortFirst(w[0], w[len(w)-1], phrase.Stems(text))
}

// value is an item's quantity for the comparison, from the first context
// piece (or clause of one) that names it and no other item.
type value struct {
	q    quantity
	v    float64
	from int // the index of the sentence that gives it (of rowItems, the cell or field with its keys)
}

func itemValue(c comparison, its []item, k int, sents []*span, about map[string]bool) (value, bool) {
	for i, cs := range sents {
		if !ofItem(its, k, cs) || !c.Time && !saysOf(cs, about) {
			continue
		}
		pieces := []*span{cs}
		if namesOther(its, k, cs.text, cs) {
			// The clauses of k only: "engineers $2,000, designers $1,500"; a
			// clause that names none is of the item named before it ("Glenn
			// Hughes (born 21 August 1951) ... Ross Lynch (born December 29,
			// 1995)"), read as one piece.
			var qs []quantity
			own := false
			for _, cl := range cs.clauses {
				p := analyze(cl.text)
				switch {
				case namesOther(its, k, cl.text, p):
					own = false
				case its[k].named(cl.text, p):
					own = true
				}
				if own {
					qs = append(qs, p.quants...)
				}
			}
			pieces = []*span{{quants: qs}}
		} else if !c.Time {
			pieces = append(clausesAbout(cs, about), pieces...)
		}
		if val, ok := piecesValue(c, pieces); ok {
			val.from = i
			return val, true
		}
	}
	return value{}, false
}

// piecesValue is the first piece's value of the comparison's kind: a year
// for points in time (not a decade's), else the first quantity with a unit.
func piecesValue(c comparison, pieces []*span) (value, bool) {
	for _, p := range pieces {
		for _, q := range p.quants {
			if v, err := strconv.ParseFloat(q.value, 64); err == nil && c.Time && !q.span && (q.unit == "" || q.unit == "年") && v >= 1000 && v <= 2200 && v == float64(int(v)) {
				return value{q: quantity{value: q.value, unit: "year", text: q.text}, v: v}, true
			}
		}
		for _, q := range p.quants {
			// Points in time without a year: days of a month (每月20日). A
			// year is no amount ("1931年鼎盛时期有工人220名" compares 220名).
			if v, err := strconv.ParseFloat(q.value, 64); err == nil && q.unit != "" && q.unit != "月" && q.unit != "weekday" && (!c.Time || q.unit == dayUnit) && !(q.unit == "年" && v >= 1000) {
				return value{q: q, v: v}, true
			}
		}
	}
	return value{}, false
}

// ofItem: the sentence names item k, or names none in the run of one that
// names k alone ("Orla Air is an airline. The company was founded in 1976.").
func ofItem(its []item, k int, cs *span) bool {
	if h := runHead(cs); h != cs && !slices.ContainsFunc(its, func(it item) bool { return it.named(cs.text, cs) }) {
		return its[k].named(h.text, h) && !namesOther(its, k, h.text, h)
	}
	return its[k].named(cs.text, cs)
}

// clausesAbout are the clauses that say something of what is compared, most
// first ("现有在校学生约两万六千人" before "学校设有二十二个学院" for students).
func clausesAbout(cs *span, about map[string]bool) []*span {
	var out []*span
	for _, cl := range cs.clauses {
		if p := analyze(cl.text); saysOf(p, about) {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b *span) int { return overlap(about, b.feats) - overlap(about, a.feats) })
	return out
}

func namesOther(its []item, k int, text string, sp *span) bool {
	for j, it := range its {
		if j != k && it.named(text, sp) {
			return true
		}
	}
	return false
}

// comparisonVerdict decides a statement that compares items when the
// context gives each a value of one unit: a conflict when another item
// holds the extreme value, support when the statement's item does and the
// rest of the statement is covered. ok is false when it cannot decide.
func comparisonVerdict(st, q *span, sents []*span, useUnis bool) (Evidence, bool) {
	c, own := phrase.ComparisonIn(st.text) // own: the statement's, not only its question's
	ok := own
	if !ok && q != nil {
		c, ok = phrase.ComparisonIn(q.text)
	}
	if !ok || q == nil {
		return Evidence{}, false
	}
	its := items(phrase.Alternatives(q.text))
	about := compared(st, q, c, its)
	var vals []value
	if len(its) < 2 {
		// A comparative ("more", 更高) says which of two; of three rows or
		// more only a superlative ("most", 最高) names one.
		// The measure as the statement says it ("monthly limit"), before the
		// question's other words ("… and cash withdrawals").
		measure := maps.Clone(about)
		maps.DeleteFunc(measure, func(f string, _ bool) bool { return !st.feats[f] })
		if len(measure) == 0 {
			measure = about
		}
		if its, vals = rowItems(c, st, sents, measure); len(its) < 2 || len(its) > 2 && !c.Superlative {
			return Evidence{}, false
		}
		about = compared(st, q, c, its)
		if !c.Time && slices.ContainsFunc(vals, func(v value) bool { return !saysOf(sents[v.from], about) }) {
			return Evidence{}, false
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
	if !own && !onlyNames(st, q, its[x]) {
		return Evidence{}, false
	}
	for len(vals) < len(its) { // the question's items, not rowItems: their values
		v, ok := itemValue(c, its, len(vals), sents, about)
		if !ok {
			return Evidence{}, false
		}
		vals = append(vals, v)
	}
	best, given := x, []string{}
	for k, it := range its {
		if vals[k].q.unit != vals[0].q.unit || k != x && vals[k].v == vals[x].v {
			return Evidence{}, false // other units, or a tie, decide nothing
		}
		if c.Max && vals[k].v > vals[best].v || !c.Max && vals[k].v < vals[best].v {
			best = k
		}
		given = append(given, fmt.Sprintf("%s %s", it.text, vals[k].q.text))
	}
	from := vals[x].from
	ev := Evidence{Quote: sents[from].text, From: from, Also: -1, Coverage: 1}
	if best != x {
		ev.Detector = DetectorNumber
		ev.Reason = fmt.Sprintf("statement says %s is the %s; context gives %s: %s has it (%s)", its[x].text, c.Word, strings.Join(given, ", "), its[best].text, DetectorNumber)
		return ev, true
	}
	// A statement that restates the question around its item says no more
	// than the comparison; anything else it says must be covered.
	rest := withoutComparative(st, c)
	if cov := coverage(rest, q, sents[from], useUnis); cov >= 0 && cov < SupportThreshold && !onlyNames(st, q, its[x]) && !onlyComparison(st, q, its, c) {
		return Evidence{}, false
	}
	ev.Verdict = 1
	ev.Reason = fmt.Sprintf("context gives %s: %s is the %s", strings.Join(given, ", "), its[x].text, c.Word)
	// The other items' values are part of the evidence: name a sentence of
	// one of them in another chunk, so that chunk counts as useful too.
	for k := range its {
		if k != x && sents[vals[k].from].chunk != sents[from].chunk {
			ev.Also = vals[k].from
			break
		}
	}
	return ev, true
}

// firstMention is where the text first writes one of the words the item is
// found by, or -1: its own (two items may share their first, "Northbunk
// Porto Ribeira" and "Northbunk Seville Triana"), or a Chinese item's first.
func firstMention(text string, it item) int {
	lower, at := strings.ToLower(text), -1
	for _, w := range strings.Fields(it.text) {
		lw := strings.ToLower(phrase.TrimWord(w))
		if it.feats != nil && !slices.Contains(it.feats, "w:"+norm.Stem(lw)) {
			continue
		}
		if i := strings.Index(lower, lw); i >= 0 && (at < 0 || i < at) {
			at = i
		}
		if it.feats == nil {
			break
		}
	}
	return at
}

// onlyNames: an answer that says no more than its item (and the question's
// words): it is read as the question's comparison. The item is cut out
// first, so no Chinese bigram spans its edge (技成 of 砺石科技成立).
func onlyNames(st, q *span, it item) bool {
	itemFeats := analyze(it.text).feats
	return onlyQuestion(st, q, []string{it.text}, func(f string) bool { return itemFeats[f] })
}

// onlyComparison: the statement says no more than its items compared
// ("落雁桥比云栖桥更长", "A is longer than B"): its words less the items', the
// comparative's and the comparison's 比 are the question's.
func onlyComparison(st, q *span, its []item, c comparison) bool {
	var cut []string
	for _, it := range its {
		cut = append(cut, it.text)
	}
	cut = append(cut, c.Word)
	if st.hasHan {
		cut = append(cut, "比")
	}
	return onlyQuestion(st, q, cut, func(f string) bool { return f == "w:than" })
}

// onlyQuestion: the statement's words, once the texts of cut are cut out,
// are the question's, common words and those also allows aside.
func onlyQuestion(st, q *span, cut []string, also func(string) bool) bool {
	text := st.text
	for _, c := range cut {
		text = strings.ReplaceAll(text, c, "，")
	}
	rest := analyze(text)
	for f := range rest.feats {
		if !also(f) && !q.feats[f] && !rest.common[f] {
			return false
		}
	}
	for f := range rest.unis {
		if !q.unis[f] {
			return false
		}
	}
	return true
}

// withoutComparative is the statement without the comparative word's
// features, for the coverage of the rest of it.
func withoutComparative(st *span, c comparison) *span {
	out, drop := *st, analyze(c.Word)
	out.feats, out.unis = maps.Clone(st.feats), maps.Clone(st.unis)
	maps.DeleteFunc(out.feats, func(f string, _ bool) bool { return drop.feats[f] || f == "w:than" })
	maps.DeleteFunc(out.unis, func(f string, _ bool) bool { return drop.unis[f] })
	return &out
}

// rowItems are the rows of the table (or the fields of the record) whose
// row the statement names, read in one column, with their values: the
// items of a superlative ("the lowest monthly fee") that offers none.
func rowItems(c comparison, st *span, sents []*span, about map[string]bool) ([]item, []value) {
	k := slices.IndexFunc(sents, func(cs *span) bool {
		return cs.field != nil && len(cs.field.named) > 0 && naming(st, cs.field.keys[0], nil) >= 1
	})
	if k < 0 {
		return nil, nil
	}
	cs, fc := sents[k], sents[k].field
	var texts []string
	var vals []value
	for i, o := range sents {
		of := o.field
		if of == nil || o.chunk != cs.chunk || len(of.named) != len(fc.named) || !slices.Equal(of.named[1:], fc.named[1:]) {
			continue
		}
		// The value's clause that says what is compared first ("annual
		// deductible $2,000" of "employee premium $0 per month; annual
		// deductible $2,000").
		v, ok := piecesValue(c, append(clausesAbout(of.value, about), of.value))
		if !ok {
			return nil, nil
		}
		v.from = i
		texts = append(texts, of.named[0])
		vals = append(vals, v)
	}
	return items(texts), vals // no items when their words cannot tell them apart
}

// compared are the features of what is compared ("deductible", 年假): the
// statement's and the question's, but the items', the comparative word's
// and common words. A quantity (not a year) is read only from a piece that
// has one, so "VDI is more secure" is not decided by how many users each
// supports.
func compared(st, q *span, c comparison, its []item) map[string]bool {
	drop := analyze(c.Word).feats
	out := map[string]bool{}
	// What the comparative measures, as a context names it: "longer" the
	// length, 更长 a 长 (全长).
	for _, d := range dimensions[c.Word] {
		out[d] = true
	}
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

// saysOf: the piece (or the name its pronoun stands for) has one of the
// features: of what is compared, or a word of a name (names).
func saysOf(cs *span, about map[string]bool) bool {
	for f := range about {
		if cs.feats[f] || cs.refFeats[f] || cs.unis[f] {
			return true
		}
	}
	return false
}

// dimensions are the features of what a comparative of a measure measures:
// its adjective and its noun ("212 metres long", "a total length of 148
// metres"), or the Chinese character of both (全长).
var dimensions = func() map[string][]string {
	m := map[string][]string{}
	for _, d := range []struct{ feats, words string }{
		{"long length", "longer longest shorter shortest"},
		{"high tall height", "higher highest taller tallest"},
		{"wide width", "wider widest narrower narrowest"},
		{"deep depth", "deeper deepest shallower shallowest"},
		{"heavy weight", "heavier heaviest lighter lightest"},
		{"长", "更长 最长 较长 更短 最短 较短"},
		{"高", "更高 最高 较高 更低 最低 较低"},
		{"宽", "更宽 最宽 较宽 更窄 最窄 较窄"},
		{"深", "更深 最深 较深 更浅 最浅 较浅"},
		{"重", "更重 最重 较重 更轻 最轻 较轻"},
	} {
		var feats []string
		for _, f := range strings.Fields(d.feats) {
			if containsHan(f) {
				feats = append(feats, "u:"+f)
			} else {
				feats = append(feats, "w:"+norm.Stem(f))
			}
		}
		for _, w := range strings.Fields(d.words) {
			m[w] = feats
		}
	}
	return m
}()

// sameVerdict decides a statement that two things have the same value of
// something, or not (phrase.SamenessIn), by the value the context gives each
// (Sameness.ValueIn) in a sentence or chunk about it alone (chunksAbout),
// when both are found and phrase.SameValues decides.
func sameVerdict(st *span, sents []*span) (Evidence, bool) {
	s, ok := phrase.SamenessIn(st.text)
	its := items([]string{s.A, s.B})
	if !ok || its == nil {
		return Evidence{}, false
	}
	skip := func(w string) bool { return strings.Contains(s.A+" "+s.B, w) }
	var vals [2]string
	var from [2]int
	// The value a sentence ties by the word, else, when none does, one of
	// the kind's form.
	readers := []func(string) string{
		func(text string) string { return s.ValueIn(text, skip) },
		func(text string) string { return kindOfSame(s, text, skip) },
	}
	for k := range its {
		about := chunksAbout(its, k, sents)
		for _, read := range readers {
			for i, cs := range sents {
				if vals[k] == "" && !namesOther(its, k, cs.text, cs) && (its[k].named(cs.text, cs) || about[cs.chunk]) {
					vals[k], from[k] = read(cs.text), i
				}
			}
		}
		if vals[k] == "" {
			return Evidence{}, false
		}
	}
	same, decided := phrase.SameValues(vals[0], vals[1])
	if !decided {
		return Evidence{}, false
	}
	ev := Evidence{Quote: sents[from[0]].text, From: from[0], Also: -1, Coverage: 1, Verdict: 1}
	if from[1] != from[0] {
		ev.Also = from[1] // the other value's sentence is evidence too
	}
	ev.Reason = fmt.Sprintf("context gives %s %s, %s %s", s.A, vals[0], s.B, vals[1])
	if same != s.Differ {
		return ev, true
	}
	if len(analyze(vals[0]).quants) > 0 {
		return ev.conflict(DetectorNumber, ev.Reason), true
	}
	return ev.conflict(DetectorName, ev.Reason), true
}

// tiedConflict: a name tied to what a statement opens on by a word ("A belongs
// to the family X") against a sentence about A that ties another by it.
func tiedConflict(st *span, sents []*span) (Evidence, bool) {
	subject := analyze(phrase.OpeningName(st.text))
	for _, n := range st.names {
		rel := phrase.RelationWord(st.text, n.text)
		for i, cs := range sents {
			if rel == "" || len(subject.feats) == 0 || subject.feats[n.feat] || cs.feats[n.feat] || overlap(subject.feats, cs.feats) < len(subject.feats) {
				continue
			}
			v := phrase.TiedBy(cs.text, rel, false, func(w string) bool { return subject.feats["w:"+norm.Stem(strings.ToLower(w))] })
			if same, decided := phrase.SameValues(n.text, v); v != "" && decided && !same {
				return Evidence{Quote: cs.text, From: i, Also: -1, Coverage: 1}.conflict(DetectorName, fmt.Sprintf("statement ties %s by %q; context ties %s", n.text, phrase.WrittenAs(st.text, rel), v)), true
			}
		}
	}
	return Evidence{}, false
}

// chunksAbout are the chunks that name item k and no other: "设计时速160公里" there is k's.
func chunksAbout(its []item, k int, sents []*span) map[uint64]bool {
	out := map[uint64]bool{} // false, once a sentence of the chunk names another
	for _, cs := range sents {
		if namesOther(its, k, cs.text, cs) {
			out[cs.chunk] = false
		} else if _, seen := out[cs.chunk]; !seen && its[k].named(cs.text, cs) {
			out[cs.chunk] = true
		}
	}
	return out
}
