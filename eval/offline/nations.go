package offline

import (
	"regexp"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval/offline/lex"
	"github.com/ragscope/ragscope/eval/offline/phrase"
	"github.com/ragscope/ragscope/eval/offline/words"
)

// nations reads words/countries.txt: each demonym and each name of a
// country (lowercased; Chinese as written) to the country's first name.
var demonyms, countryNames = func() (map[string]string, map[string]string) {
	dem, names := map[string]string{}, map[string]string{}
	for _, l := range words.List("countries") {
		d, rest, ok := strings.Cut(l, "=")
		if !ok {
			panic("offline: word list countries: " + l + " has no \"=\"")
		}
		alts := strings.Split(rest, ";")
		country := strings.TrimSpace(alts[0])
		dem[strings.ToLower(strings.TrimSpace(d))] = country
		for _, a := range alts {
			names[strings.ToLower(strings.TrimSpace(a))] = country
		}
	}
	return dem, names
}()

// nationKinds are the words of what a nationality or a country is the value
// of ("the same nationality", "based in the same country", 国籍相同).
var nationKinds = map[string]bool{"nationality": true, "nationalities": true, "citizenship": true, "country": true, "countries": true, "国籍": true, "国家": true}

// afterPlace are the words after which a country's name is where something is.
var afterPlace = map[string]bool{"in": true, "from": true, "of": true}

// nationIn is the country a sentence gives a thing: that of its first
// demonym ("an American musician"; "Scottish-Australian" is both), or the
// first country it says the thing is in or from ("in India"), or, in
// Chinese, the first country it names; "" when none. Words skip holds (the
// things' own names) are passed over.
func nationIn(sentence string, skip func(string) bool) string {
	if containsHan(sentence) {
		at, name, country := -1, "", ""
		for n, c := range countryNames {
			// The first, and of two that start there the longer (印度尼西亚, not
			// 印度): the map's order decides nothing.
			if i := strings.Index(sentence, n); containsHan(n) && i >= 0 && (at < 0 || i < at || i == at && len(n) > len(name)) && !skip(n) {
				at, name, country = i, n, c
			}
		}
		return country
	}
	w := strings.Fields(sentence)
	for i, x := range w {
		t := phrase.TrimWord(x)
		if i == 0 || !phrase.Capitalised(t) || skip(t) {
			continue
		}
		if cs := demonymCountries(t); cs != "" && (i+1 == len(w) || !phrase.Capitalised(phrase.TrimWord(w[i+1])) || demonymCountries(phrase.TrimWord(w[i+1])) != "") {
			return cs
		}
		if afterPlace[strings.ToLower(phrase.TrimWord(w[i-1]))] {
			for n := min(4, len(w)-i); n > 0; n-- {
				name := strings.ToLower(strings.TrimSuffix(phrase.TrimWord(strings.Join(w[i:i+n], " ")), "'s"))
				if c, ok := countryNames[strings.TrimPrefix(name, "the ")]; ok {
					return c
				}
			}
		}
	}
	return ""
}

// demonymCountries is the country of a demonym, or of each part of a
// compound one joined by " and "; "" when a part is none.
func demonymCountries(word string) string {
	var out []string
	for _, p := range strings.Split(word, "-") {
		c, ok := demonyms[strings.ToLower(p)]
		if !ok {
			return ""
		}
		out = append(out, c)
	}
	return strings.Join(out, " and ")
}

var yearPattern = regexp.MustCompile(`\b(1[0-9]{3}|20[0-9]{2})\b`)

// kindOfSame is the value a sentence gives a thing by the form of what
// the statement says is the same: a nationality or country by a demonym or
// a country's name, a year by the first the sentence writes ("Up is a 2009
// American film", for a "same year" whose relation word it does not say).
func kindOfSame(s phrase.Sameness, sentence string, skip func(string) bool) string {
	switch {
	case nationKinds[s.Of]:
		return nationIn(sentence, skip)
	case s.Year:
		return yearPattern.FindString(sentence)
	}
	return ""
}

// nationUnit is the unit of a demonym read as a value ("an American
// musician" against "a Canadian musician"), as a weekday is one.
const nationUnit = "nation"

// demonymAt: lexeme i is a capitalised demonym that modifies what follows
// it (a lowercase word, or another demonym of a compound: "Scottish-
// Australian singer") or ends its clause ("is Chilean."), not a word of a
// name ("American Airlines", "Excuse My French"); its country. A context
// written all in lowercase has no capitals to tell by: its demonyms are read
// as written ("another belgian club").
func demonymAt(lx []lex.Lexeme, i int, context bool) (string, bool) {
	if !lx[i].Capital && !(context && lowercased(lx)) || i > 0 && lx[i-1].Kind == 'w' && lx[i-1].Capital {
		return "", false // "Excuse My French is ..."
	}
	country, ok := demonyms[lx[i].Text]
	if !ok {
		return "", false
	}
	j := i + 1
	for j < len(lx) && lx[j].Kind == 'p' && lx[j].Text == "-" {
		j++
	}
	if j == len(lx) || lx[j].Kind != 'w' || !lx[j].Capital {
		return country, true // "... is Chilean."
	}
	_, ok = demonyms[lx[j].Text]
	return country, ok
}

// otherNationGiven: q is a demonym and the sentence gives another of the
// statement's ("an American rapper's album and an Egyptian film" against
// "an Egyptian film"): the sentence is about that one, and says nothing of
// q's.
func otherNationGiven(st *span, q quantity, cs *span) bool {
	return q.unit == nationUnit && slices.ContainsFunc(st.quants, func(x quantity) bool { return x.unit == nationUnit && hasQuantity(cs, x) })
}

// lowercased: no word of the clause is capitalised.
func lowercased(lx []lex.Lexeme) bool {
	return !slices.ContainsFunc(lx, func(l lex.Lexeme) bool { return l.Kind == 'w' && l.Capital })
}

// byDemonym are the countries the text names ("Great Britain" of "from
// Great Britain") that the sentence gives by their demonym ("a British
// film director"), lowercased: the sentence names them in another form.
// Only names: a demonym may be a language's ("Italian: Onorata Società"),
// so the country's words are not covered by it.
func byDemonym(text string, cs *span) []string {
	if !cs.units[nationUnit] {
		return nil
	}
	ws := strings.Fields(strings.ToLower(text))
	for i := range ws {
		ws[i] = phrase.TrimWord(ws[i])
	}
	var out []string
	for a := range ws {
		for b := a + 1; b <= min(len(ws), a+3); b++ {
			if c := countryNames[strings.Join(ws[a:b], " ")]; c != "" && slices.ContainsFunc(cs.quants, func(x quantity) bool { return x.unit == nationUnit && x.value == c }) {
				out = append(out, strings.Join(ws[a:b], " "))
			}
		}
	}
	return out
}
