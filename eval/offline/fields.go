package offline

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/ragscope/ragscope/eval/offline/lex"
	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/phrase"
	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/eval/offline/records"
	"github.com/ragscope/ragscope/eval/offline/words"
)

// fieldCheck is what a cell or field span carries for fieldVerdict.
type fieldCheck struct {
	label string          // `cell (总监, 杭州)`, `field "开户行及账号"`
	keys  [][][]string    // the keys to name (a cell's row and column), each its alternatives' features
	kf    map[string]bool // the features of all its keys
	named []string        // those keys as written, for comparisons of a table's rows (compare.go)
	value *span           // the value, analysed
	shown string          // the value as written, for the reason
	mask  map[string]bool // features of the keys around the value (the record's keys, the table's caption and headers)
	whole *span           // the cell or field read with the rest of its record or table, for coverage
	from  string          // the record or table row, whose keys' words tell its fields apart
}

// fieldSpans are the cell and field spans of a structured chunk.
func fieldSpans(text string) []*span {
	var out []*span
	for _, f := range records.Fields(text) {
		keys, kf := make([][][]string, len(f.Keys)), map[string]bool{}
		for i, k := range f.Keys {
			keys[i] = keyParts(k)
			for _, ft := range slices.Concat(keys[i]...) {
				kf[ft] = true
			}
		}
		sp := analyzeContext(f.Analysed)
		sp.text = f.Quote
		sp.field = &fieldCheck{label: f.Label, keys: keys, kf: kf, named: f.Keys, value: analyze(f.Value), shown: f.Value, mask: analyze(f.Mask).feats, whole: unionSpan(sp, analyze(f.Whole)), from: f.Whole}
		out = append(out, sp)
	}
	return out
}

// keyParts are the featLists of a key's alternatives ("开户行及账号": 开户行, 账号).
func keyParts(key string) [][]string {
	parts := strings.FieldsFunc(key, func(r rune) bool { return strings.ContainsRune("及和与/、&", r) })
	if len(parts) < 2 {
		parts = nil
	}
	var out [][]string
	for _, p := range append(parts, key) {
		// its content features, else its characters
		sp := analyze(strings.TrimSpace(p))
		fs := sp.feats
		if len(fs) == 0 {
			fs = sp.unis
		}
		if len(fs) > 0 {
			out = append(out, slices.Collect(maps.Keys(fs)))
		}
	}
	return out
}

// KeyNamed is the least share of a key's features a statement must have to
// name it; only the cells and fields named best are checked.
const KeyNamed = 0.6

// naming is the best share of an alternative's features the statement has;
// a word of the key that names the kind of its value ("date" of "Due date")
// is had by a statement that gives a value of that kind (value nil: none).
func naming(st *span, alts [][]string, value *span) float64 {
	best := 0.0
	for _, fs := range alts {
		n := 0
		for _, f := range fs {
			if st.feats[f] || st.unis[f] || value != nil && kindGiven(f, st, value) {
				n++
			}
		}
		best = max(best, float64(n)/float64(len(fs)))
	}
	return best
}

// ownWords counts, for each field of sents, the words of its keys that the
// statement has and no other key of its record has: "The order is delivered
// on ..." names "Order date" and "Delivery date" alike (order; a date), but
// "order" is also the record's "Purchase order", and only "delivered" tells
// one field from the others.
func ownWords(st *span, sents []*span) map[int]int {
	type key struct{ from, f string }
	shared := map[key]int{}
	for _, cs := range sents {
		if cs.field != nil {
			for f := range cs.field.kf {
				shared[key{cs.field.from, f}]++
			}
		}
	}
	out := map[int]int{}
	for i, cs := range sents {
		if cs.field == nil {
			continue
		}
		for f := range cs.field.kf {
			if (st.feats[f] || st.unis[f]) && shared[key{cs.field.from, f}] == 1 {
				out[i]++
			}
		}
	}
	return out
}

// valueKinds are the key words that name a value's kind, with the units of
// the quantities of that kind (words/value_kinds.txt).
var valueKinds = func() map[string][]string {
	m := map[string][]string{}
	for w, units := range words.Map("value_kinds") {
		for f := range analyze(w).feats {
			for _, u := range strings.Fields(units) {
				m[f] = append(m[f], norm.Unit(u))
			}
		}
	}
	return m
}()

// kindGiven: f names a kind of value that both the statement and the value
// give a quantity of.
func kindGiven(f string, st, value *span) bool {
	has := func(sp *span) bool {
		return slices.ContainsFunc(valueKinds[f], func(u string) bool { return sp.units[u] })
	}
	return has(value) && has(st)
}

// fieldNaming is the least naming of a cell's or field's keys. A cell
// whose row or column the statement names may have the other named by the
// answer's statements before it (topic), a little less well than by the
// statement itself.
func fieldNaming(st *span, fc *fieldCheck) float64 {
	score, own := 1.0, false
	for _, k := range fc.keys {
		n := naming(st, k, fc.value)
		own = own || n >= KeyNamed
		if n < KeyNamed && st.topic != "" && len(fc.keys) > 1 {
			n = max(n, 0.99*naming(analyze(st.topic), k, nil))
		}
		score = min(score, n)
	}
	if !own {
		return 0
	}
	return score
}

// fieldVerdict tests the statement against the cells and fields it names;
// ok is false when it names none (the ordinary test decides).
func fieldVerdict(st, q *span, sents []*span, useUnis bool) (Evidence, bool) {
	// How well the statement names each field, worked out once: only the
	// fields named best are checked.
	names := make([]float64, len(sents))
	top := KeyNamed
	for i, cs := range sents {
		if cs.field != nil {
			names[i] = fieldNaming(st, cs.field)
			top = max(top, names[i])
		}
	}
	var atTop []int
	for i, cs := range sents {
		if cs.field != nil && names[i] >= top-1e-9 {
			atTop = append(atTop, i)
		}
	}
	// Of the fields named alike, those with the most words of their own.
	if len(atTop) > 1 {
		own, topOwn := ownWords(st, sents), 0
		for _, i := range atTop {
			topOwn = max(topOwn, own[i])
		}
		atTop = slices.DeleteFunc(atTop, func(i int) bool { return own[i] < topOwn })
	}
	var supported *Evidence
	var conflicts []Evidence
	agrees := map[string]bool{}
	var nb neighbours
	for _, i := range atTop {
		cs, fc := sents[i], sents[i].field
		ev := Evidence{Quote: cs.text, From: i, Also: -1, Coverage: 1}
		// numbers: one of the value's unit with another value
		bad := ""
		// A number of the keys names the row ("4–7岁"), not its value.
		keys := analyze(strings.Join(fc.named, " "))
		stated := slices.DeleteFunc(slices.Clone(st.quants), func(sq quantity) bool { return hasQuantity(keys, sq) })
		for _, sq := range stated {
			if clock(sq) && !slices.ContainsFunc(fc.value.quants, clock) {
				continue // a time of day is no value of a field without one
			}
			given := hasQuantity(fc.value, sq) || q != nil && hasQuantity(q, sq)
			if !given && (slices.ContainsFunc(fc.value.quants, func(vq quantity) bool {
				return vq.unit == sq.unit && !(vq.date && timeSpan(sq)) || !calendar(vq) && !calendar(sq) && norm.Convertible(vq.unit, sq.unit)
			}) ||
				bareNumber(fc.value) && !code(fc.value) && !calendar(sq) && !recordGives(sents, fc, sq, len(stated) > 1)) && !computed(st, q, sq, sents) && rowCell(st, fc, sq, sents) < 0 {
				bad = sq.text
			}
		}
		// words: what the statement writes in place of the value; a
		// quantity it gives is compared as one (its unit may stand apart).
		var extra []string
		if !slices.ContainsFunc(fc.value.quants, func(vq quantity) bool { return hasQuantity(st, vq) }) {
			extra = valueChanges(st.text, fc)
		}
		var other *fieldCheck
		if !says(st, fc) && bad == "" {
			if other = nb.of(st, fc, sents); other == nil {
				continue
			}
		}
		switch {
		case other != nil:
			ev.Reason = fmt.Sprintf("%s gives %s; the statement writes %s there, which %s gives", fc.label, fc.shown, other.shown, other.label)
		case bad != "":
			ev.Detector = DetectorNumber
			ev.Reason = fmt.Sprintf("statement says %s where %s gives %s (%s)", bad, fc.label, fc.shown, DetectorNumber)
		case len(extra) > 0:
			ev.Reason = fmt.Sprintf("%s gives %s; the statement writes %s there", fc.label, fc.shown, strings.Join(extra, ", "))
		default:
			// the value is there; the rest must be the record's
			agrees[fc.label] = true
			if ev.Coverage = coverage(st, q, fc.whole, useUnis || st.hasHan); ev.Coverage >= 0.5 && supported == nil {
				ev.Verdict = 1
				ev.Reason = fmt.Sprintf("%s gives %s", fc.label, fc.shown)
				supported = &ev
			}
			continue
		}
		conflicts = append(conflicts, ev)
	}
	// A named field with another value is a conflict unless the same key
	// of another record gives the statement's value.
	for _, c := range conflicts {
		if !agrees[sents[c.From].field.label] {
			return c, true
		}
	}
	if supported != nil {
		return *supported, true
	}
	return Evidence{}, false
}

// bareNumber: the value is one number without a unit ("500,000" in a
// column "Monthly API calls"), which the statement writes with its own word
// after it ("50,000 API calls").
func bareNumber(value *span) bool {
	return len(value.quants) == 1 && value.quants[0].unit == ""
}

// calendar: a part of a date, or a quantity of years or months, which a
// date's parts are written as (2031年3月14日): none is compared as a span of
// days or weeks.
func calendar(q quantity) bool {
	return q.date || q.unit == norm.Unit("年") || q.unit == norm.Unit("月")
}

// timeSpan: a quantity written as a length of time ("14 days", 14天), not as
// a date's part (14日, "the 14th"), which a date's day is not compared with.
func timeSpan(q quantity) bool {
	return !q.date && (strings.ContainsAny(strings.ToLower(q.text), "abcdefghijklmnopqrstuvwxyz") || strings.Contains(q.text, "天"))
}

// clock: a time of day ("10:00"), no count a bare number is.
func clock(q quantity) bool { return strings.Contains(q.value, ":") }

// code: the value writes letters beside its one number ("NV-INV-20931",
// "LT-6K"): an identifier, which no amount of the statement contradicts.
func code(value *span) bool {
	return strings.ContainsFunc(value.text, unicode.IsLetter)
}

// recordGives: another field of fc's record gives q ("300 requests per
// minute" beside "Monthly API calls"); but a statement of one number (many
// false) that writes the next bare cell of a row took the wrong column.
func recordGives(sents []*span, fc *fieldCheck, q quantity, many bool) bool {
	return slices.ContainsFunc(sents, func(cs *span) bool {
		o := cs.field
		return o != nil && o != fc && o.from == fc.from && hasQuantity(o.value, q) && (len(o.named) < 2 || !bareNumber(o.value) || many)
	})
}

// rowCell is the index of the sentence of a cell, in fc's column when fc is
// set, that gives q in a row of a table whose name the statement writes
// nearest q: last before it ("Team is $49 a month and Solo $19": $19 is
// Solo's, not Team's; "Team $19" is no row's), or a few words after it ("a
// 10-year inverter warranty"); -1 when there is none.
func rowCell(st *span, fc *fieldCheck, q quantity, sents []*span) int {
	text := strings.ToLower(st.text)
	at := strings.Index(text, strings.ToLower(q.text))
	if at < 0 {
		return -1
	}
	end := at + len(q.text)
	clauseAt := max(strings.LastIndex(text[:at], ", "), strings.LastIndex(text[:at], " and "), strings.LastIndex(text[:at], ";"), 0)
	// A row named in q's clause before it is q's row; when the number
	// comes first ("a 10-year inverter warranty", "five years of
	// workmanship cover"), the one named a few words after it.
	away := func(name string) int { // how far before q the last mention is
		if i := phrase.LastWordAt(text[:at], name); i >= 0 {
			return at - i
		}
		return -1
	}
	if !slices.ContainsFunc(sents, func(x *span) bool {
		return x.field != nil && len(x.field.named) > 1 && slices.ContainsFunc(rowNames(x.field.named[0]), func(n string) bool {
			return phrase.LastWordAt(text[clauseAt:at], n) >= 0
		})
	}) {
		away = func(name string) int { return phrase.FirstWordAt(text[end:min(len(text), end+rowAfter)], name) }
	}
	dists := map[string]int{} // each row's, worked out once; -1 when the statement does not name it there
	dist := func(o *fieldCheck) int {
		row := o.named[0]
		if d, ok := dists[row]; ok {
			return d
		}
		d := -1
		for _, name := range rowNames(row) {
			if i := away(name); i >= 0 && (d < 0 || i < d) {
				d = i
			}
		}
		dists[row] = d
		return d
	}
	return slices.IndexFunc(sents, func(cs *span) bool {
		o := cs.field
		if o == nil || len(o.named) < 2 || !hasQuantity(o.value, q) ||
			fc != nil && (o.from == fc.from || !slices.Equal(o.named[1:], fc.named[1:])) {
			return false
		}
		// no other row is named nearer (o's own is as near)
		d := dist(o)
		return d >= 0 && !slices.ContainsFunc(sents, func(x *span) bool {
			return x.field != nil && len(x.field.named) > 1 && dist(x.field) >= 0 && dist(x.field) < d
		})
	})
}

// rowAfter is how far after a number (in bytes) the name of its row may
// come: "five years of workmanship cover".
const rowAfter = 24

// rowNames are the lowercased ways a statement writes a row's name: whole,
// or one of the alternatives a slash sets apart ("Labour / workmanship").
func rowNames(row string) []string {
	out := []string{strings.ToLower(row)}
	if parts := strings.Split(row, "/"); len(parts) > 1 {
		for _, p := range parts {
			if p = strings.ToLower(strings.TrimSpace(p)); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// rowsSupport: a statement that gives values of two or more rows of a
// table, each after its row's name, is read against those rows together.
func rowsSupport(st, q *span, sents []*span, useUnis bool) (Evidence, bool) {
	var cells []int
	var rows []string // the rows the statement's values are in, each read whole once
	var u *span
	for _, sq := range st.quants {
		i := rowCell(st, nil, sq, sents)
		if i < 0 {
			return Evidence{}, false
		}
		cells = append(cells, i)
		if f := sents[i].field; !slices.Contains(rows, f.from) {
			rows = append(rows, f.from)
			if u == nil {
				u = f.whole
			} else {
				u = unionSpan(u, f.whole)
			}
		}
	}
	if len(rows) < 2 {
		return Evidence{}, false // one row: the cell test reads it
	}
	cov := coverage(st, q, u, useUnis)
	if _, missing := missingName(st, q, u); missing || cov < SupportThreshold {
		return Evidence{}, false
	}
	var given []string
	for _, c := range cells {
		given = append(given, fmt.Sprintf("%s gives %s", sents[c].field.label, sents[c].field.shown))
	}
	return Evidence{Verdict: 1, Coverage: cov, Quote: sents[cells[0]].text, From: cells[0], Also: -1,
		Reason: strings.Join(given, "; ") + fmt.Sprintf(" (coverage %.2f together)", cov)}, true
}

// neighbourValue is another field of fc's record whose value the statement
// writes after the first word that names fc, and whose key it names less
// well: "assigned to Tom Becker" where "Assigned to" is Priya Raman and
// "Previous holder" Tom Becker; "由技师蔡立恒制作" where 制作技师 is 庞晓雯.
func neighbourValue(st *span, fc *fieldCheck, record []*fieldCheck, pos map[string]int) *fieldCheck {
	keyAt := -1
	for f := range fc.kf {
		if p, ok := pos[f]; ok && (keyAt < 0 || p < keyAt) {
			keyAt = p
		}
	}
	var best *fieldCheck
	bestAt, named := 0, fieldNaming(st, fc)
next:
	for _, g := range record {
		if g == fc || fieldNaming(st, g) > named-1e-9 {
			continue
		}
		at, words := -1, 0
		for f := range g.value.feats {
			p, ok := pos[f]
			if !strings.HasPrefix(f, "n:") {
				if !ok {
					continue next // a word of the value the statement does not write
				}
				words++
			}
			if ok && (at < 0 || p < at) {
				at = p
			}
		}
		if words > 0 && at > keyAt && (best == nil || at < bestAt) {
			best, bestAt = g, at
		}
	}
	return best
}

// neighbours serves neighbourValue for one statement: the fields by their
// record, the statement's feature positions, and the answers, worked out
// once however many records (or copies of one record) a context has.
type neighbours struct {
	records map[string][]*fieldCheck
	pos     map[string]int
	done    map[string]*fieldCheck
}

func (n *neighbours) of(st *span, fc *fieldCheck, sents []*span) *fieldCheck {
	if n.records == nil {
		n.records, n.done = map[string][]*fieldCheck{}, map[string]*fieldCheck{}
		for _, cs := range sents {
			if cs.field != nil {
				n.records[cs.field.from] = append(n.records[cs.field.from], cs.field)
			}
		}
		n.pos = lex.FeaturePositions(st.text)
	}
	key := fc.from + "\x00" + fc.label
	if g, ok := n.done[key]; ok {
		return g
	}
	g := neighbourValue(st, fc, n.records[fc.from], n.pos)
	n.done[key] = g
	return g
}

// valueChanges are the words and Han characters in or beside the stretch
// of the statement that writes the value that neither the value nor its
// record has (建设 of 建设银行 for 中国银行); none when written whole, spaces
// aside ("运营专员欧阳婧" for "运营专员 欧阳婧").
func valueChanges(text string, fc *fieldCheck) []string {
	text = plaintext.StripMarkup(text)
	if strings.Contains(unspaced.Replace(text), unspaced.Replace(fc.shown)) {
		return nil
	}
	type tok struct {
		s      string
		value  bool
		number bool
		skip   bool // a function word, or one the record gives
		word   bool // an English word in lowercase: beside the value, no part of it ("… Marion Kell gave")
	}
	var toks []tok
	for _, l := range lex.Lexemes(text) {
		switch l.Kind {
		case 'h':
			for _, r := range l.Text {
				c := string(r)
				// 每 and 各 ("per", "each") write the "/" of 800元/晚.
				skip := chineseParticles[r] || r == '每' || r == '各' || fc.mask["u:"+c] || maskHasRune(fc.mask, c)
				toks = append(toks, tok{s: c, value: strings.Contains(fc.value.text, c), skip: skip})
			}
		case 'w':
			f := "w:" + norm.Stem(l.Text)
			toks = append(toks, tok{s: l.Orig, value: fc.value.feats[f], skip: englishStop[l.Text] || fc.mask[f], word: !l.Capital})
		case 'n':
			toks = append(toks, tok{s: l.Text, value: fc.value.feats["n:"+norm.Number(l.Text)], number: true, skip: true})
		}
	}
	first, last := -1, -1
	for i, t := range toks {
		if t.value {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first == last {
		return nil // one value token, or none
	}
	// A number ends the stretch: the number detector compares numbers.
	lo, hi := first, last
	if !toks[first].number {
		lo = max(first-1, 0)
	}
	if !toks[last].number {
		hi = min(last+1, len(toks)-1)
	}
	var out []string
	seen := map[string]bool{}
	for i := lo; i <= hi; i++ {
		if t := toks[i]; !t.value && !t.skip && !seen[t.s] && !(t.word && (i < first || i > last)) {
			seen[t.s] = true
			out = append(out, t.s)
		}
	}
	return out
}

// unspaced writes a text without its spaces.
var unspaced = strings.NewReplacer(" ", "", "\u3000", "")

// maskHasRune: a bigram of the mask has the character.
func maskHasRune(mask map[string]bool, c string) bool {
	for f := range mask {
		if strings.HasPrefix(f, "h:") && strings.Contains(f, c) {
			return true
		}
	}
	return false
}

// says reports whether the statement has a feature of fc's value that is
// not a word of the keys around it ("term" of "12-month terms" under "Term"
// says nothing of the value), nor in one of except.
func says(st *span, fc *fieldCheck, except ...map[string]bool) bool {
	for f := range fc.value.feats {
		if st.feats[f] && !fc.mask[f] && !slices.ContainsFunc(except, func(m map[string]bool) bool { return m[f] }) {
			return true
		}
	}
	return false
}

// otherRowsValue: a statement that names a table row but not the column it
// reads says the value of another row when what tells that row's cell from
// its own in one column is the statement's and what tells its own is not
// ("A级…按一般检验水平II抽检": II is row B级's, row A级 gives 一般检验水平I).
func otherRowsValue(st *span, sents []*span) (Evidence, bool) {
	for i, cs := range sents {
		a := cs.field
		if a == nil || len(a.keys) != 2 || len(a.named) != 2 || naming(st, a.keys[0], nil) < KeyNamed || naming(st, a.keys[1], a.value) >= KeyNamed {
			continue
		}
		var row map[string]bool
		for _, ds := range sents {
			b := ds.field
			if b == nil || ds.chunk != cs.chunk || len(b.named) != 2 || b.named[1] != a.named[1] || b.named[0] == a.named[0] || naming(st, b.keys[0], nil) >= KeyNamed {
				continue
			}
			if row == nil {
				row = rowFeats(a, cs.chunk, sents)
			}
			// st says a feature of b's value that a's lacks, and none of a's
			// that b's lacks, other than a word of the row it names or of
			// another cell of that row ("1号棚" says no 1小时; "three night
			// shifts" is the row's night shifts, not another row's long days).
			if says(st, b, a.value.feats, row) && !says(st, a, b.value.feats, row) {
				return Evidence{Quote: cs.text, From: i, Also: -1, Coverage: 1,
					Reason: fmt.Sprintf("%s gives %s; the statement writes %s there, which %s gives", a.label, a.shown, b.shown, b.label)}, true
			}
		}
	}
	return Evidence{}, false
}

// rowFeats are the features of a table row's name and of all its cells'
// values.
func rowFeats(a *fieldCheck, chunk uint64, sents []*span) map[string]bool {
	out := maps.Clone(analyze(a.named[0]).feats)
	for _, cs := range sents {
		if f := cs.field; f != nil && cs.chunk == chunk && len(f.named) == 2 && f.named[0] == a.named[0] && f != a {
			maps.Copy(out, f.value.feats)
		}
	}
	return out
}

// otherTopic: a statement that leaves what it speaks of to the answer's
// statements before it ("… is a Tier A supplier. So every lot is inspected
// at normal level.") is matched by a list's field, on its own line, whose
// key neither it (by any word) nor they name, while they name another key
// of that list, and one only: the statement gives that key's thing
// another's rule.
func otherTopic(st *span, sents []*span, best int) (string, bool) {
	if st.topic == "" {
		return "", false
	}
	b := sents[best]
	k := slices.IndexFunc(sents, func(cs *span) bool {
		return cs.field != nil && len(cs.field.keys) == 1 && (cs == b || strings.Contains(b.text, cs.text) && len(b.text) <= len(cs.text)+4)
	})
	if k < 0 {
		return "", false
	}
	// the statement names the field, if only in part, or so do the statements before it
	fc, t := sents[k].field, analyze(st.topic)
	if naming(st, fc.keys[0], nil) > 0 || naming(t, fc.keys[0], nil) >= KeyNamed {
		return "", false
	}
	var other *fieldCheck
	for _, cs := range sents {
		o := cs.field
		if o == nil || o == fc || o.from != fc.from || len(o.keys) != 1 || naming(t, o.keys[0], nil) < KeyNamed {
			continue
		}
		if other != nil {
			return "", false // the answer speaks of two: a comparison
		}
		other = o
	}
	if other == nil {
		return "", false
	}
	return fmt.Sprintf("the answer speaks of %q before it; %s gives this, not field %q", other.named[0], fc.label, other.named[0]), true
}
