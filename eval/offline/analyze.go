package offline

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/offline/lex"
	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/phrase"
	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/eval/offline/records"
	"github.com/ragscope/ragscope/eval/offline/words"
	"github.com/ragscope/ragscope/internal/memo"
)

// span is the lexical analysis of a statement or a context sentence.
type span struct {
	text  string
	feats map[string]bool // content features: "h:" Han bigram, "w:" English stem, "n:" number
	unis  map[string]bool // "u:" Han content unigrams, the fallback for short Chinese text
	// skips, of a context sentence only, are the bigrams of characters
	// with one other between them (号通 of 账号需通过).
	skips      map[string]bool
	clauses    []clause
	quants     []quantity
	units      map[string]bool // the units of quants
	names      []name
	hasHan     bool
	pronoun    bool   // the text opens with a personal pronoun
	prev, next *span  // a context sentence's neighbours in its chunk
	ref        string // the name a context sentence's subject pronoun stands for
	refFeats   map[string]bool
	chunk      uint64          // the context sentence's chunk (0 for other texts), for pairSupport
	whole      *wholeNameIndex // the names of two or more words its chunk's sentences write, read once
	common     map[string]bool // features of common words, which count only where a sentence has them
	field      *fieldCheck     // set on a table cell's or a field's span (fields.go)
	residue    bool            // a statement's residual (restate.go): never restated again
	prose      bool            // a sentence of a chunk with no records, cells or fields
	items      int             // the sentences after it that are the items of its list (markItems)
	order      []string        // a statement's English words and numbers, as features in text order (anchored)
	// topic, of a statement, is the text of the answer's statements before
	// it, analysed only when needed: a table's row or column it leaves to
	// them ("香港属于港澳台地区，P系列在该地区质保三年") is named there.
	topic string
	// answer, of a statement, is the text of all the answer's statements,
	// the same for each (analysed once): the terms of a total or a
	// difference it gives may stand in another.
	answer string
}

// name is a capitalised English word of a statement (Minnesota, NBC).
type name struct {
	feat string // "w:" stem
	text string
	head bool // the last word of a (possibly one-word) name: Oppenheimer of J. Robert Oppenheimer
}

type clause struct {
	text  string
	feats map[string]bool
	unis  map[string]bool
	negs  []negation
}

// negation is one negation marker and the content it negates.
type negation struct {
	marker string
	scope  []string
}

// quantity is a number with the unit after it (天, day, %) or the currency
// sign before it; months and weekdays are quantities too ("August" against
// "July").
type quantity struct {
	value string
	unit  string
	text  string
	key   string // the field it is the value of ("Fare" of "Fare: 480 Taka"), for reasons
	date  bool   // a part of a date (its year, month or day), no count or amount
	span  bool   // a decade ("the 1930s", 1870年代), no point in time
	// bound is what the words next to it say of the value (bounds.go): -1
	// at most, +1 at least, 0 neither; boundWords are those words.
	bound      int8
	boundWords string
	clause     int // the ordinal of its clause in its text
}

// symbolUnits are the units of the currency symbols: a sum of money is in
// one unit however its currency is written, by symbol, code or word
// (words/same_units.txt): ¥ and ￥ are yuan, as 元, RMB and "yuan" are.
var symbolUnits = map[string]string{"$": "$", "€": "€", "£": "£", "¥": "元", "￥": "元"}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// analyze is analyzeText through a bounded cache, as every metric of a
// sample analyses the same texts. The span is shared and must not be
// modified: a caller that sets its fields calls analyzeText.
func analyze(text string) *span { return analyses.Get(text, analyzeText) }

// analysisCacheSize bounds the memos of analysed texts: the samples in flight.
const analysisCacheSize = 4096

var analyses = memo.New[*span](analysisCacheSize)

// analyzeText builds a new span of a text without control sequences;
// Markdown, citations and answer frames stay in its text but are not
// analysed. Clauses are cut at commas, semicolons and colons, except a ':' or
// ',' between digits (06:30, 1,000).
func analyzeText(text string) *span { return analyzeClauses(text, true, false) }

// analyzeContext analyses a context sentence, record or field: skips too.
func analyzeContext(text string) *span { return analyzeClauses(text, true, true) }

// normalised is the text as it is analysed: Markdown, citation markers
// and answer frames stripped, numerals and quantities rewritten (package
// norm).
func normalised(text string) string {
	return norm.EnglishNumbers(norm.Numerals(norm.Quantities(norm.StripFrame(plaintext.StripMarkup(narrow(text))))))
}

// narrow writes full-width digits, Latin letters and ％ as ASCII ("２号线"
// is "2号线"), as Chinese input methods often type them; full-width
// punctuation stays, which splits clauses.
func narrow(s string) string {
	if !strings.ContainsFunc(s, fullWidth) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if fullWidth(r) {
			return r - 0xFEE0
		}
		return r
	}, s)
}

func fullWidth(r rune) bool {
	return r >= '０' && r <= '９' || r >= 'Ａ' && r <= 'Ｚ' || r >= 'ａ' && r <= 'ｚ' || r == '％'
}

// analyzeClauses is analyzeText; without keep, the clauses (most of a
// span's memory) are not kept.
func analyzeClauses(text string, keep, context bool) *span {
	// Valid UTF-8 from here on: a stray byte would shift the offsets.
	text = plaintext.StripControls(strings.ToValidUTF8(text, "\uFFFD"))
	sp := &span{text: text, feats: map[string]bool{}} // unis made by the first (lexClause)
	if context {
		sp.skips = map[string]bool{}
	}
	t := normalised(text)
	if !utf8.ValidString(t) {
		t = string([]rune(t))
	}
	start, nclauses := 0, 0
	key, fieldStart := "", true
	for i, n := 0, 1; i <= len(t); i += n {
		var r rune
		n = 1 // past the end
		if i < len(t) {
			r, n = utf8.DecodeRuneInString(t[i:])
			if !phrase.IsClausePunct(r) {
				continue
			}
			if before, _ := utf8.DecodeLastRuneInString(t[:i]); (r == ',' || r == ':') && unicode.IsDigit(before) && lex.RuneAt(t, i+1, unicode.IsDigit) {
				continue
			}
		}
		if i > start {
			n0 := len(sp.quants)
			c := lexClause(t[start:i], sp)
			if keep && (len(c.feats) > 0 || len(c.unis) > 0 || len(c.negs) > 0) {
				sp.clauses = append(sp.clauses, c)
			}
			for k := n0; k < len(sp.quants); k++ {
				sp.quants[k].key = key
				sp.quants[k].clause = nclauses
			}
			nclauses++
			// A field's key: the values up to the field's end are its.
			if (r == ':' || r == '：') && fieldStart && records.IsField(c.text+": x") {
				key = c.text
			}
		}
		switch r {
		case ';', '；', '\n', '。', 0:
			key, fieldStart = "", true
		case ':', '：':
			fieldStart = false
		default:
			fieldStart = fieldStart && key == "" && i <= start
		}
		start = i + n
	}
	for _, q := range sp.quants {
		put(&sp.units, q.unit)
	}
	return sp
}

func lexClause(text string, sp *span) clause {
	// The maps are made on their first feature: many clauses have none.
	c := clause{text: strings.TrimSpace(text)}
	lx := lex.Lexemes(text)
	add := func(f string) {
		put(&c.feats, f)
		sp.feats[f] = true
	}
	addUni := func(f string) {
		put(&c.unis, f)
		put(&sp.unis, f)
	}
	ordered := func(f string) { // in text order, of all but a context sentence (whose skips are made)
		add(f)
		if sp.skips == nil {
			sp.order = append(sp.order, f)
		}
	}
	for i := 0; i < len(lx); i++ {
		l := lx[i]
		switch l.Kind {
		case 'h':
			sp.hasHan = true
			phrase.HanFeatures(l.Text, add, addUni)
			if sp.skips != nil {
				phrase.AddSkips(l.Text, sp.skips)
			}
			markCommonHan(l.Text, sp)
			if i+2 < len(lx) && lx[i+1].Kind == 'p' && strings.Contains(nameDots, lx[i+1].Text) && lx[i+2].Kind == 'h' {
				markGivenName(l.Text, sp)
			}
			c.negs = append(c.negs, hanNegations(l.Text, lx[i+1:])...)
		case 'n':
			if ymd := norm.DateParts(l.Text); ymd != nil {
				// A date gives its year, month and day as 2024年6月1日 does:
				// the one form compares with the other, and with no number of
				// another kind (the 2291 of INV-2291).
				for k, unit := range [3]string{"年", "月", "日"} {
					v := norm.Number(ymd[k])
					ordered("n:" + v)
					sp.quants = append(sp.quants, quantity{value: v, unit: norm.Unit(unit), text: l.Text, date: true})
				}
				if m, err := strconv.Atoi(ymd[1]); err == nil && m >= 1 && m <= 12 && sp.skips != nil {
					add("w:" + norm.Stem(norm.MonthNames[m-1])) // a statement's March
				}
				continue
			}
			v := norm.Number(l.Text)
			ordered("n:" + v)
			if w, ok := norm.NumberNames[v]; ok {
				// 8 is "eight" too: a text that writes the word has it.
				add("w:" + w)
			}
			if w, ok := norm.OrdinalNames[v]; ok && i+1 < len(lx) && lx[i+1].Kind == 'w' && ordinalSuffixes[lx[i+1].Text] {
				add("w:" + w) // 5th is "fifth" too
			}
			q := quantity{value: v}
			q.unit, q.text, q.date = unitAt(lx, i)
			q.span = i+1 < len(lx) && (lx[i+1].Kind == 'w' && lx[i+1].Text == "s" || lx[i+1].Kind == 'h' && strings.HasPrefix(lx[i+1].Text, "年代"))
			// The first number of a range takes the unit of the second
			// ("between 95 and 110 cm", "3至5天").
			if q.unit == "" && i+2 < len(lx) && lx[i+2].Kind == 'n' && rangeJoin(lx[i+1]) {
				q.unit, _, _ = unitAt(lx, i+2)
			}
			q.unit = norm.Unit(q.unit)
			if !q.date {
				q.bound, q.boundWords = boundAt(lx, i)
			}
			sp.quants = append(sp.quants, q)
		case 'w':
			w := l.Text
			if neg, skip := englishNegationAt(lx, i); neg {
				c.negs = append(c.negs, negation{marker: w, scope: englishScope(lx[i+1:])})
				continue
			} else if skip {
				continue
			}
			if lex.MonthAt(lx, i) {
				// A month of the year, as 3月 and 2025-03-31 give it.
				m := norm.MonthNumber(w)
				sp.quants = append(sp.quants, quantity{value: m, unit: norm.Unit("月"), text: l.Text, date: true})
				if sp.skips != nil {
					add("n:" + m) // a context's March is the 3 of a statement's 2025-03-31
				}
			}
			if weekdayWords[w] {
				sp.quants = append(sp.quants, quantity{value: w, unit: "weekday", text: l.Text, date: true})
			}
			if country, ok := demonymAt(lx, i, sp.skips != nil); ok {
				sp.quants = append(sp.quants, quantity{value: country, unit: nationUnit, text: l.Orig})
			}
			if v, ok := norm.OrdinalWords[w]; ok {
				add("n:" + v) // "fifth" is 5th too
			}
			if v, ok := norm.NumberWords[w]; ok {
				// "eight hours" is the number 8: the feature of 8 hours;
				// "a three-year cycle" 3 years, as "a 30-day period" is 30 days.
				if u, ut := numberWordUnit(lx, i); u != "" {
					sp.quants = append(sp.quants, quantity{value: v, unit: norm.Unit(u), text: w + ut})
					add("n:" + v)
				}
			}
			first := len(sp.clauses) == 0 && i == firstWord(lx)
			if englishStop[w] && !codeLetter(lx, i) {
				// A later pronoun usually refers to a name in the sentence.
				sp.pronoun = sp.pronoun || phrase.Pronouns[w] && first
				continue
			}
			s := norm.Stem(w) // not empty: w opens on a letter
			ordered("w:" + s)
			if commonStems[s] {
				put(&sp.common, "w:"+s)
			}
			// A capitalised word is a name unless it merely starts the
			// text, and not before another capitalised word or quoted; a
			// date's month is a quantity.
			quoted := i > 0 && lx[i-1].Kind == 'p' && (lx[i-1].Text == "\"" || lx[i-1].Text == "“")
			if l.Capital && len(w) > 1 && (!first || quoted || i+1 < len(lx) && lx[i+1].Capital) && !lex.MonthAt(lx, i) {
				head := !(i+1 < len(lx) && lx[i+1].Kind == 'w' && lx[i+1].Capital)
				sp.names = append(sp.names, name{feat: "w:" + s, text: l.Orig, head: head})
			}
		}
	}
	return c
}

// numberWordUnit is the unit word after the number or number word lx[i]
// (unitWords), and its text with what joins it (" " or "-"); "" when none.
func numberWordUnit(lx []lex.Lexeme, i int) (unit, text string) {
	if u, ut := unitWords(lx, i+1); u != "" {
		return u, " " + ut
	}
	if i+2 < len(lx) && lx[i+1].Text == "-" && !lx[i+1].Spaced {
		if u, ut := unitWords(lx, i+2); u != "" {
			return u, "-" + ut
		}
	}
	return "", ""
}

// unitWords reads the unit that opens at lx[j], after a number: a word
// ("days"), the word after a modifier ("3 additional days" is 3 days, "25
// US dollars" dollars) or an area ("86 square kilometres"); its stem and
// the words read, or "" when lx[j] is no unit.
func unitWords(lx []lex.Lexeme, j int) (unit, text string) {
	if j >= len(lx) || lx[j].Kind != 'w' {
		return "", ""
	}
	w, k, sep := lx[j].Text, j+1, " "
	if k+1 < len(lx) && lx[k].Text == "-" && !lx[k].Spaced {
		k, sep = k+1, "-" // "a 10-calendar-day hold"
	}
	next := k < len(lx) && lx[k].Kind == 'w'
	switch {
	case unitModifiers[w] && next && !englishStop[lx[k].Text]:
		return norm.Stem(lx[k].Text), w + sep + lx[k].Text
	case englishStop[w]:
		return "", ""
	case w == "square" && next:
		return "sq:" + norm.Stem(lx[k].Text), w + sep + lx[k].Text
	}
	return norm.Stem(w), w
}

// put adds f to the set m, made on its first member.
func put(m *map[string]bool, f string) {
	if *m == nil {
		*m = map[string]bool{}
	}
	(*m)[f] = true
}

// codeLetter: the word is a capital letter that names a row, plan or
// series ("Plan A", "A 套餐", "智能门锁 S 系列"), not the article or the
// possessive's s that the stop words drop: it follows a capitalised word
// or stands next to Chinese.
func codeLetter(lx []lex.Lexeme, i int) bool {
	l := lx[i]
	if len(l.Orig) != 1 || !l.Capital || l.Orig == "I" {
		return false
	}
	before := i > 0 && (lx[i-1].Kind == 'h' || lx[i-1].Kind == 'w' && lx[i-1].Capital)
	return before || i+1 < len(lx) && lx[i+1].Kind == 'h'
}

// ordinalSuffixes write a number as an ordinal (5th, 21st).
var ordinalSuffixes = map[string]bool{"st": true, "nd": true, "rd": true, "th": true}

func firstWord(lx []lex.Lexeme) int {
	return slices.IndexFunc(lx, func(l lex.Lexeme) bool { return l.Kind == 'w' || l.Kind == 'h' || l.Kind == 'n' })
}

var unitModifiers = words.Set("unit_modifiers")

// englishNegationAt reports whether word i negates its clause; skip is true
// for a negation word that only states a bound ("no more than").
func englishNegationAt(lx []lex.Lexeme, i int) (neg, skip bool) {
	w := lx[i].Text
	if !englishNegation[w] && !strings.HasSuffix(w, "n't") {
		return false, false
	}
	// "No. 1" abbreviates; "not-for-profit" names a kind.
	if w == "no" && i+1 < len(lx) && (lx[i+1].Kind == 'n' || lx[i+1].Text == "." && i+2 < len(lx) && lx[i+2].Kind == 'n') {
		return false, true
	}
	if i+1 < len(lx) && lx[i+1].Kind == 'p' && (lx[i+1].Text == "-" || lx[i+1].Text == "‐") && !lx[i+1].Spaced {
		return false, true
	}
	// A capitalised negation inside a sentence is a title's ("No Country for Old Men").
	if lx[i].Capital && i > firstWord(lx) {
		return false, true
	}
	// "No." / "No —" / "Not yet —" opening an answer replies to the
	// question: what follows is its reason, not what it negates.
	if i == firstWord(lx) && (w == "no" && i+1 < len(lx) && lx[i+1].Kind == 'p' ||
		w == "not" && i+2 < len(lx) && lx[i+1].Kind == 'w' && lx[i+2].Kind == 'p') {
		return false, true
	}
	phrase := w
	for _, l := range lx[i+1 : min(i+3, len(lx))] {
		phrase += " " + l.Text
	}
	bound := prefixIn(phrase, englishBoundNegation) != ""
	return !bound, bound
}

// englishScopeWords is how many content words after an English negation it
// negates: more, and "must not reuse the last 5 passwords" would negate any
// statement about passwords.
const englishScopeWords = 2

func englishScope(rest []lex.Lexeme) []string {
	var scope []string
	for _, l := range rest {
		if len(scope) == englishScopeWords {
			break
		}
		if l.Kind == 'w' && !englishStop[l.Text] && !englishNegation[l.Text] {
			scope = append(scope, "w:"+norm.Stem(l.Text))
		}
		if l.Kind == 'h' {
			break
		}
	}
	return scope
}

// scopeSkip are characters too common to align two negated clauses (会, 能, 是).
var scopeSkip = words.Runes("negation_scope_skip")

// chineseScopeRunes is how many characters after a Chinese negation marker
// it is taken to negate.
const chineseScopeRunes = 2

// hanNegations finds the negation markers of a Han run. A marker's scope is
// the rest of the marker (变 of 不变) and the predicate after it, continuing
// into the following lexemes when the run ends.
func hanNegations(run string, after []lex.Lexeme) []negation {
	var out []negation
	for i := 0; i < len(run); {
		if w := prefixIn(run[i:], chineseNotNegation); w != "" {
			i += len(w)
			continue
		}
		marker := prefixIn(run[i:], chineseNegation)
		if marker == "" {
			_, n := utf8.DecodeRuneInString(run[i:])
			i += n
			continue
		}
		var scope []string
		for _, r := range []rune(marker)[1:] {
			if !scopeSkip[r] {
				scope = append(scope, "u:"+string(r))
			}
		}
		// The predicate: a bigram (无需重新 -> 重新), else a character
		// (不满10 -> 满), after the particles and modals that open it
		// (不在保修范围内 -> 保修). Wider scopes matched any clause on the
		// subject.
		var next []rune
		for _, r := range run[i+len(marker):] {
			if len(next) == chineseScopeRunes {
				break
			}
			if len(next) == 0 && (chineseParticles[r] || scopeSkip[r]) {
				continue
			}
			next = append(next, r)
		}
		switch {
		case len(next) == chineseScopeRunes && !chineseParticles[next[0]] && !chineseParticles[next[1]]:
			scope = append(scope, "h:"+string(next))
		case len(next) >= 1 && !chineseParticles[next[0]] && !scopeSkip[next[0]]:
			scope = append(scope, "u:"+string(next[0]))
		}
		if i+len(marker) == len(run) {
			for _, l := range after {
				if l.Kind == 'n' {
					scope = append(scope, "n:"+norm.Number(l.Text))
				} else if l.Kind == 'w' && !englishStop[l.Text] {
					scope = append(scope, "w:"+norm.Stem(l.Text))
				}
				if len(scope) >= 3 {
					break
				}
			}
		}
		out = append(out, negation{marker: marker, scope: scope})
		i += len(marker)
	}
	return out
}

// prefixIn is the first of words that s starts with, or "".
func prefixIn(s string, words []string) string {
	for _, w := range words {
		if strings.HasPrefix(s, w) {
			return w
		}
	}
	return ""
}

// unitAt is the unit of the number lx[i] and its text with the unit: a
// currency symbol before it, a date's part (date true), or the word, Han
// unit or % after it ("" when none).
func unitAt(lx []lex.Lexeme, i int) (unit, text string, date bool) {
	l := lx[i]
	v := norm.Number(l.Text)
	text = l.Text
	if u := symbolUnit(lx, i); u != "" {
		unit, text = u, lx[i-1].Text+l.Text
	} else if i > 0 && lx[i-1].Kind == 'w' && len(lx[i-1].Text) == 3 && currencyUnit(norm.Unit(lx[i-1].Text)) {
		// A currency's code before the number ("USD 372,000", "RMB 300") is
		// its unit, as the code after it is.
		unit, text = norm.Unit(lx[i-1].Text), lx[i-1].Text+" "+l.Text
	} else if du := lex.DateUnit(lx, i, v); du != "" {
		// 31 March 2025, March 31: a day and a year.
		unit, date = du, true
	} else if u, ut := numberWordUnit(lx, i); u != "" {
		unit, text = u, text+ut // "30 days"; "a 30-day notice period" is 30 days
	} else if i+1 < len(lx) && lx[i+1].Kind == 'h' {
		unit = norm.HanUnit(lx[i+1].Text)
		text += unit
	} else if i+1 < len(lx) && (lx[i+1].Text == "%" || lx[i+1].Text == "％") {
		unit, text = "%", text+"%"
	}
	return unit, text, date
}

// currencyUnit: the unit is a currency's (one of symbolUnits').
func currencyUnit(u string) bool { return u == "$" || u == "€" || u == "£" || u == "元" }

// symbolUnit is the unit of the currency symbol that ends the lexeme
// before lx[i] ("$", "US$", "€"), or "".
func symbolUnit(lx []lex.Lexeme, i int) string {
	if i == 0 || lx[i-1].Kind != 'p' {
		return ""
	}
	r, _ := utf8.DecodeLastRuneInString(lx[i-1].Text)
	return symbolUnits[string(r)]
}

// rangeJoin: the lexeme joins two numbers as a range (and, to, –, 至, 到).
func rangeJoin(l lex.Lexeme) bool {
	return slices.Contains([]string{"and", "to", "–", "-", "~", "～", "至", "到"}, l.Text)
}
