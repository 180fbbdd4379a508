// Package phrase reads, from text alone, the shapes of phrases the offline
// judge decides by: the parts a sentence gives its parties ("reviewed by
// Procurement and approved by Finance", "采购部核对，财务部批准"), the
// comparison a text makes and the alternatives a question offers ("A or
// B", "A还是B"), the part of a question its answer fills, the names a text
// writes, the one a sentence opens on and whether its subject is a pronoun.
package phrase

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/words"
	"github.com/ragscope/ragscope/internal/memo"
)

// cacheSize bounds the memos: the texts of the samples in flight.
const cacheSize = 4096

// IsClausePunct: the punctuation that ends a clause, in both languages.
func IsClausePunct(r rune) bool { return strings.ContainsRune(clausePunct, r) }

const clausePunct = "，,；;：:\n。！？!?（）()"

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

func containsHan(s string) bool { return strings.ContainsFunc(s, isHan) }

var (
	irregularParticiples = words.Set("irregular_participles")
	determiners          = words.Set("english_determiners")
)

// Participle: a word that reads as a past participle (located, written).
func Participle(w string) bool {
	return strings.HasSuffix(w, "ed") && len(w) > 4 || irregularParticiples[w]
}

// Roles: a sentence binds each party to its verb ("drafted by the Legal
// team, reviewed by Procurement and signed off by the CFO"; "由法务部起草，
// 采购部审核，财务总监审批").

// maxRoles bounds the bindings read from one sentence: prose gives a few
// parts a sentence; more is a list.
const maxRoles = 16

// Role is a verb and the parties a sentence binds to it.
type Role struct {
	Verb    string   // a stem ("sign"), or two Han characters (审批)
	Parties []string // each party as written
	Text    string   // as written, for a reason
}

var rolesOf = memo.New[[]Role](cacheSize)

// Roles are the bindings of a sentence, nil when it has fewer than two:
// English "<participle> [off|up|out] by <party>[, <party>] [and <party>]",
// Chinese clauses "[由|归|经]<party><verb>" of a list of parts.
func Roles(text string) []Role { return rolesOf.Get(text, sentenceRoles) }

func sentenceRoles(text string) []Role {
	if containsHan(text) {
		return chineseRoles(text)
	}
	ws := strings.Fields(text)
	var out []Role
	for i := 0; i+2 < len(ws) && len(out) < maxRoles; i++ {
		w := strings.ToLower(TrimWord(ws[i]))
		by := i + 1
		if roleParticles[strings.ToLower(TrimWord(ws[by]))] {
			by++
		}
		if !pastForm(w) || by+1 >= len(ws) || strings.ToLower(ws[by]) != "by" {
			continue
		}
		r := Role{Verb: norm.Stem(w)}
		var party []string
		flush := func() {
			if len(party) > 0 {
				r.Parties = append(r.Parties, strings.Join(party, " "))
			}
			party = nil
		}
		for k := by + 1; k < len(ws) && len(party) < 5; k++ {
			t := TrimWord(ws[k])
			lt := strings.ToLower(t)
			if lt == "and" || lt == "or" {
				flush()
				if k+1 < len(ws) && pastForm(strings.ToLower(TrimWord(ws[k+1]))) {
					break // the next binding
				}
				continue
			}
			if t == "" || pastForm(lt) || EnglishStop[lt] && !determiners[lt] && lt != "of" {
				break // "by Ann Lee in 1955", "by Ann Lee, who ..."
			}
			if !determiners[lt] {
				party = append(party, t)
			}
			if strings.HasSuffix(ws[k], ",") {
				flush()
			} else if strings.ContainsAny(ws[k][len(ws[k])-1:], ";:.") {
				break
			}
		}
		flush()
		if len(r.Parties) > 0 {
			r.Text = strings.Join(ws[i:by+1], " ") + " " + strings.Join(r.Parties, ", ")
			out = append(out, r)
		}
	}
	return out
}

// OtherAgent is the name a statement gives the verb's part to where the
// sentence writes that name in another part: the party of none of its
// roles of that verb, nor what it opens on ("The Kingsmen wrote it" against
// "written by A ... the hit version by The Kingsmen"); "" when there is none.
func OtherAgent(statement, verb string, roles []Role, sentence string) string {
	n := agent(statement, verb)
	if n == "" || !strings.Contains(sentence, n) || strings.Contains(OpeningName(sentence), n) {
		return ""
	}
	for _, r := range roles {
		if r.Verb == verb && slices.ContainsFunc(r.Parties, func(p string) bool { return strings.Contains(p, strings.Fields(n)[0]) }) {
			return ""
		}
	}
	return n
}

// agent is the name a statement gives the verb's part: the one written
// right before a word of the verb used actively ("The Kingsmen wrote the
// song", "has written"; not "X was founded", "X founded on ...") or right
// after "<verb> by"; "" when there is none.
func agent(text, verb string) string {
	if containsHan(verb) { // "由财务部审批": the party its own binding gives
		for _, r := range Roles(text) {
			if r.Verb == verb {
				return r.Parties[0]
			}
		}
		return ""
	}
	w := strings.Fields(text)
	for i, x := range w {
		if t := TrimWord(x); i > 0 && Capitalised(t) || norm.Stem(strings.ToLower(t)) != verb {
			continue // a name's word ("Dennis Publishing") is no verb
		}
		if i+2 < len(w) && strings.EqualFold(w[i+1], "by") {
			return TrimWord(strings.Join(w[i+2:NameEnd(w, i+2)], " "))
		}
		if i+1 < len(w) {
			if next := strings.ToLower(TrimWord(w[i+1])); EnglishStop[next] && !determiners[next] {
				continue // a participle's preposition: no active verb
			}
		}
		k := i
		for k > 0 && auxiliaries[strings.ToLower(w[k-1])] {
			k--
		}
		if s := NameStart(w, k); s < k && !EndsInPunct(w[k-1]) {
			return strings.TrimPrefix(strings.Join(w[s:k], " "), "The ")
		}
	}
	return ""
}

var auxiliaries = map[string]bool{"has": true, "have": true, "had": true, "also": true}

var roleParticles = map[string]bool{"off": true, "up": true, "out": true, "over": true}

func pastForm(w string) bool { return Participle(w) || norm.IrregularPast(w) }

// SaysVerb: a word of the text is of the verb (pays and paid of pay).
func SaysVerb(text, verb string) bool {
	return slices.ContainsFunc(strings.Fields(strings.ToLower(text)), func(w string) bool { return norm.Stem(TrimWord(w)) == verb })
}

// A Chinese binding is a clause that names its party after 由, 归 or 经, or
// one that follows such a clause in the same list of parts.
func chineseRoles(text string) []Role {
	var out []Role
	inList := false
	for _, c := range strings.FieldsFunc(text, func(r rune) bool { return IsClausePunct(r) || r == '、' }) {
		c = strings.TrimSpace(c)
		rs := []rune(c)
		if len(rs) < 4 || !isHan(rs[len(rs)-1]) || !isHan(rs[len(rs)-2]) {
			inList = false
			continue
		}
		verb := string(rs[len(rs)-2:])
		head := c[:len(c)-len(verb)]
		at := strings.LastIndexAny(head, "由归经")
		marked := at >= 0
		if marked {
			head = head[at+len("由"):]
		}
		party := []rune(head)
		if !marked && !inList || len(party) < 2 || len(party) > 8 || !isHan(party[0]) {
			inList = false
			continue
		}
		inList = true
		out = append(out, Role{Verb: verb, Parties: []string{string(party)}, Text: string(rs)})
		if len(out) == maxRoles {
			break
		}
	}
	return out
}

// GapPart is the part of a question that its answer fills: the words next
// to its wh-word ("directed by who", "who wrote", "由谁审批"), so that a
// bare answer is read with the question's verb and not its premises' ("he
// wrote the screenplay for Beowulf, directed by who?"). The whole question
// when no wh-word is found.
func GapPart(question string) string {
	if containsHan(question) {
		if i := strings.Index(question, "谁"); i >= 0 {
			rs := []rune(question[i+len("谁"):])
			return string(rs[:min(len(rs), 4)])
		}
		return question
	}
	ws := strings.Fields(strings.ToLower(question))
	for i, w := range ws {
		switch TrimWord(w) {
		case "who", "whom", "what", "which":
			lo, hi := max(0, i-2), min(len(ws), i+3)
			return strings.Join(ws[lo:hi], " ")
		}
	}
	return question
}

// Comparison is what a comparative or superlative word says
// (words/comparatives.txt).
type Comparison struct {
	Word        string
	Max         bool // the largest (latest) is meant
	Time        bool // points in time: years first
	Superlative bool // names one of many (most, 最高), not one of two (more, 更高)
}

var comparatives = words.Map("comparatives")

var (
	comparisonsOf  = memo.New[*Comparison](cacheSize)
	alternativesOf = memo.New[[]string](cacheSize)
)

// ComparisonIn finds the first comparative word of a text that compares
// ("more than 3", "at least", 最高限额 do not).
func ComparisonIn(text string) (Comparison, bool) {
	if c := comparisonsOf.Get(text, findComparison); c != nil {
		return *c, true
	}
	return Comparison{}, false
}

func comparisonOf(w string) *Comparison {
	kind := comparatives[w]
	return &Comparison{Word: w, Max: strings.HasPrefix(kind, "max"), Time: strings.HasSuffix(kind, "-time"),
		Superlative: strings.HasSuffix(w, "est") || w == "most" || w == "least" || w == "first" || strings.HasPrefix(w, "最")}
}

// findComparison is ComparisonIn's, nil when there is none.
func findComparison(text string) *Comparison {
	ws := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range ws {
		if _, ok := comparatives[w]; ok && !quantifier(ws, i) {
			return comparisonOf(w)
		}
	}
	var best *Comparison
	at := -1
	for w := range comparatives {
		if w[0] < 0x80 {
			continue
		}
		for from := 0; ; {
			i := strings.Index(text[from:], w)
			if i < 0 {
				break
			}
			i += from
			if predicative(text[i+len(w):]) && (at < 0 || i < at) {
				best, at = comparisonOf(w), i
				break
			}
			from = i + len(w)
		}
	}
	return best
}

// quantifier: more, most, less, least, fewer used as a quantity and not to
// compare ("more than 3", "at least", "most of", "Most employees ...").
func quantifier(ws []string, i int) bool {
	switch ws[i] {
	case "more", "most", "less", "least", "fewer", "fewest":
	default:
		return false
	}
	return i == 0 || ws[i-1] == "at" || i+1 < len(ws) && (ws[i+1] == "of" || ws[i+1] == "than" && i+2 < len(ws) && unicode.IsDigit(rune(ws[i+2][0])))
}

// predicative: a Chinese comparative that ends what it says of its item
// (住宿标准更高，, 哪个最低？, 最高的是) compares; one that modifies a noun or
// a verb (最高限额, 最多可报销) is part of a name or a bound.
func predicative(after string) bool {
	r, _ := utf8.DecodeRuneInString(after)
	return after == "" || !isHan(r) || r == '的' || r == '是'
}

// Alternatives are the items an alternative question offers ("Who was born
// first, A or B?", "A还是B", "A和B，哪个…"); nil when it offers none.
func Alternatives(question string) []string { return alternativesOf.Get(question, alternatives) }

func alternatives(question string) []string {
	q := strings.TrimRight(strings.TrimSpace(question), "?？。 ")
	if i := strings.Index(q, " or "); i > 0 {
		left, right := strings.TrimRight(q[:i], ", "), q[i+4:]
		if j := strings.LastIndexAny(left, ",;:"); j >= 0 {
			// "first, Hole, the rock band that …, or B": the name before its
			// apposition is the alternative.
			if k := strings.LastIndexAny(left[:j], ",;:"); k >= 0 && apposition(left[j+1:]) {
				left = left[k+1 : j]
			} else {
				left = left[j+1:]
			}
		} else if c, ok := ComparisonIn(left); ok {
			if k := strings.LastIndex(strings.ToLower(left), c.Word); k >= 0 {
				left = left[k+len(c.Word):]
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
		if c, ok := ComparisonIn(right); ok {
			// "Do A or B get more X": B is as long as A.
			k := slices.IndexFunc(rw, func(w string) bool { return strings.EqualFold(TrimWord(w), c.Word) })
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
		// the items: the runs of letters right before sep, and right after it up to 哪 or 谁
		left, right := q[:i], q[i+len(sep):]
		a := strings.TrimPrefix(left, strings.TrimRightFunc(left, itemRune))
		b := strings.TrimSuffix(right, strings.TrimLeftFunc(right, func(r rune) bool { return itemRune(r) && !strings.ContainsRune("哪谁", r) }))
		if a != "" && b != "" {
			return []string{a, b}
		}
	}
	return nil
}

// apposition: a piece that opens on an article describes the name before it.
func apposition(piece string) bool {
	f := strings.Fields(piece)
	return len(f) > 1 && (strings.EqualFold(f[0], "the") || strings.EqualFold(f[0], "a") || strings.EqualFold(f[0], "an"))
}

var openingWords = map[string]bool{"do": true, "does": true, "did": true, "is": true, "are": true, "was": true, "were": true, "which": true, "who": true, "what": true, "whose": true, "has": true, "have": true, "had": true}

func itemRune(r rune) bool { return isHan(r) || unicode.IsLetter(r) || unicode.IsDigit(r) }

// OwnStems are the stems of each text that not every other text has, stop
// words left out; ok is false when an English text has none (the words
// cannot tell it from the others). A Chinese text is matched whole.
func OwnStems(texts []string) (own [][]string, ok bool) {
	count := map[string]int{}
	own = make([][]string, len(texts))
	for i, t := range texts {
		seen := map[string]bool{}
		for _, s := range Stems(t) {
			if !EnglishStop[s] && !seen[s] {
				seen[s] = true
				own[i] = append(own[i], s)
				count[s]++
			}
		}
	}
	for i, t := range texts {
		own[i] = slices.DeleteFunc(own[i], func(s string) bool { return count[s] == len(texts) })
		if len(own[i]) == 0 && !containsHan(t) {
			return nil, false
		}
	}
	return own, true
}

// JoinAt is where j first joins two pieces in s: not the "," of "5,000".
func JoinAt(s, j string) int {
	for off := 0; ; {
		k := strings.Index(s[off:], j)
		if k < 0 {
			return -1
		}
		if k += off; j != "," || k == 0 || k+1 >= len(s) || !unicode.IsDigit(rune(s[k-1])) || !unicode.IsDigit(rune(s[k+1])) {
			return k
		}
		off = k + 1
	}
}
