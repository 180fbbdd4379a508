package offline

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Sameness checked by values.
//
// "Do Ann Lee and Bo Chen have the same nationality?" asks about two
// things and one attribute. A context rarely says that two things share
// it or not, but it gives each its value: "Ann Lee (born 1950) is an
// American singer", "Bo Chen is a Welsh drummer". A yes or a no to such a
// question is checked on those values, each from a context sentence that
// names the one thing and not the other (or whose pronoun stands for it):
//
//   - nationality: the demonyms the sentence gives (Scottish-Australian is
//     two), the same when the two share one;
//   - year: the start date the comparison of dates reads (born, founded,
//     released…, "a 2009 film");
//   - country: the countries the sentence names, those of its demonyms
//     (American is the United States) and of its US states;
//   - state: the US states it names;
//   - family: the name after "family" (in the family Araceae).
//
// Values that agree support the yes and contradict the no, values that
// differ the other way round (DetectorComparison); a value missing for
// either thing leaves the statement to the support test.

// sameAttrs are the attributes a "same" question may ask about.
var sameAttrs = setOf("nationality", "country", "state", "year", "family")

// sameQuestion reads a yes/no question that asks whether two things have
// the same attribute: the two things as written and the attribute.
func sameQuestion(question string) (x, y, attr string, ok bool) {
	w := strings.Fields(strings.TrimRight(strings.TrimSpace(stripControls(question)), "?？. "))
	if len(w) < 5 || !englishQuestionAux[strings.ToLower(w[0])] || containsHan(question) {
		return "", "", "", false
	}
	for i := 1; i+1 < len(w); i++ {
		if strings.ToLower(w[i]) != "same" {
			continue
		}
		a := strings.ToLower(strings.Trim(w[i+1], ",.;:"))
		if a == "type" && i+3 < len(w) && strings.ToLower(w[i+2]) == "of" { // "the same type of family"
			a = strings.ToLower(strings.Trim(w[i+3], ",.;:"))
		}
		if !sameAttrs[a] {
			return "", "", "", false
		}
		attr = a
		break
	}
	if attr == "" {
		return "", "", "", false
	}
	// The two things: the capitalised runs either side of the first "and"
	// between two capitalised words.
	for i := 2; i+1 < len(w); i++ {
		if strings.ToLower(w[i]) != "and" || !capitalised(w[i-1]) || !capitalised(strings.Trim(w[i+1], "\"'")) {
			continue
		}
		s := i - 1
		for s > 1 && (capitalised(w[s-1]) || nameParticles[strings.ToLower(w[s-1])] && s > 2 && capitalised(w[s-2])) {
			s--
		}
		e := i + 1
		for e+1 < len(w) && (capitalised(strings.Trim(w[e+1], "\"'")) || nameParticles[strings.ToLower(w[e+1])] && e+2 < len(w) && capitalised(w[e+2])) {
			e++
		}
		x = strings.Trim(strings.Join(w[s:i], " "), ",\"'")
		y = strings.Trim(strings.Join(w[i+1:e+1], " "), ",\"'")
		return x, y, attr, x != "" && y != ""
	}
	return "", "", "", false
}

// sameFacts are what a "same" question asks (sameQuestion) and the
// statements of its yes and its no (propositionStatements' forms); ok is
// false for any other question.
type sameFacts struct {
	x, y, attr string
	yes, no    string
	ok         bool
}

func sameFactsOf(question string) sameFacts {
	x, y, attr, ok := sameQuestion(question)
	if !ok {
		return sameFacts{}
	}
	aff, den, ok := proposition(question)
	if !ok {
		return sameFacts{}
	}
	return sameFacts{x: x, y: y, attr: attr, yes: "Yes: " + aff, no: "No, " + den, ok: true}
}

// sameEvidence checks a yes or a no to a "same" question (the statement is
// the question's proposition affirmed or denied, see StatementsFor) on the
// values the contexts give the two things.
func sameEvidence(statement string, q *span, sents []*span) (Evidence, bool) {
	sf := factsOf(q).same
	if !sf.ok {
		return Evidence{}, false
	}
	x, y, attr := sf.x, sf.y, sf.attr
	var yes bool
	switch statement {
	case sf.yes:
		yes = true
	case sf.no:
	default:
		return Evidence{}, false
	}
	vx, ix := sameValues(x, y, attr, sents)
	vy, iy := sameValues(y, x, attr, sents)
	if len(vx) == 0 || len(vy) == 0 {
		return Evidence{}, false
	}
	same := false
	for v := range vx {
		if vy[v] {
			same = true
		}
	}
	ev := Evidence{Coverage: 1, Quote: sents[ix].text, From: ix}
	gives := fmt.Sprintf("context gives %s %s (%q) and %s %s (%q)", x, list(vx), clip(sents[ix].text), y, list(vy), clip(sents[iy].text))
	switch {
	case same == yes:
		ev.Verdict = 1
		if same {
			ev.Reason = fmt.Sprintf("%s: the same %s", gives, attr)
		} else {
			ev.Reason = fmt.Sprintf("%s: not the same %s", gives, attr)
		}
	case same:
		ev.Detector = DetectorComparison
		ev.Reason = fmt.Sprintf("%s: the same %s, which the answer denies (%s)", gives, attr, DetectorComparison)
	default:
		ev.Detector = DetectorComparison
		ev.Reason = fmt.Sprintf("%s: not the same %s (%s)", gives, attr, DetectorComparison)
	}
	return ev, true
}

func list(m map[string]bool) string {
	out := make([]string, 0, len(m))
	for v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// sameValues are the values of attr the first context sentence that
// names thing (and not other) gives it, and that sentence's index. A
// thing no sentence names in full is looked for by its last word, as the
// contexts often write a person (Christopher Carl Carter for Chris
// Carter).
func sameValues(thing, other, attr string, sents []*span) (map[string]bool, int) {
	named := false
	for _, cs := range sents {
		if namesThing(cs, thing) {
			named = true
			break
		}
	}
	if w := strings.Fields(thing); !named && len(w) > 1 {
		thing = w[len(w)-1]
	}
	for i, cs := range sents {
		if cs.hasHan || !namesThing(cs, thing) || namesThing(cs, other) {
			continue
		}
		if vs := attrValues(withParenthesis(cs), attr); len(vs) > 0 {
			return vs, i
		}
	}
	return nil, -1
}

// namesThing reports whether the sentence writes the name, as a whole
// word run, or stands for it by a pronoun.
func namesThing(cs *span, name string) bool {
	if cs.ref != "" && (cs.ref == name || strings.HasSuffix(name, " "+cs.ref) || strings.HasSuffix(cs.ref, " "+name)) {
		return true
	}
	for at := 0; ; {
		i := strings.Index(cs.text[at:], name)
		if i < 0 {
			return false
		}
		i += at
		end := i + len(name)
		if (i == 0 || !isWordByte(cs.text[i-1])) && (end == len(cs.text) || !isWordByte(cs.text[end])) {
			return true
		}
		at = i + 1
	}
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// attrValues are the values of attr a sentence gives, lower-cased.
func attrValues(text, attr string) map[string]bool {
	out := map[string]bool{}
	text = stripMarkup(text)
	words := strings.Fields(text)
	switch attr {
	case "year":
		if ds := sentenceDates(lexemes(text)); len(ds) > 0 {
			out[strconv.Itoa(int(ds[0].lo)/10000)] = true
		}
	case "family":
		for i, w := range words {
			if strings.ToLower(w) == "family" && i+1 < len(words) && capitalised(words[i+1]) {
				out[strings.ToLower(strings.Trim(words[i+1], ",.;:()"))] = true
				break
			}
		}
	default:
		for i, w := range words {
			t := strings.Trim(w, ",.;:()\"'")
			if !capitalised(t) {
				continue
			}
			for _, part := range strings.Split(t, "-") {
				lp := strings.ToLower(part)
				switch attr {
				case "nationality":
					if demonym(part) {
						out[lp] = true
					}
				case "state":
					if usStates[lp] {
						out[lp] = true
					}
				case "country":
					if c := demonymCountry[lp]; c != "" {
						out[c] = true
					}
					if usStates[lp] {
						out["united states"] = true
					}
				}
			}
			if attr == "country" {
				// Countries of two words: United States, New Zealand.
				if i+1 < len(words) {
					two := strings.ToLower(t + " " + strings.Trim(words[i+1], ",.;:()\"'"))
					if c := countryNames[two]; c != "" {
						out[c] = true
					}
				}
				if c := countryNames[strings.ToLower(t)]; c != "" {
					out[c] = true
				}
			}
		}
	}
	return out
}

var usStates = setOf("alabama", "alaska", "arizona", "arkansas", "california", "colorado", "connecticut", "delaware", "florida", "georgia",
	"hawaii", "idaho", "illinois", "indiana", "iowa", "kansas", "kentucky", "louisiana", "maine", "maryland", "massachusetts", "michigan",
	"minnesota", "mississippi", "missouri", "montana", "nebraska", "nevada", "ohio", "oklahoma", "oregon", "pennsylvania", "tennessee",
	"texas", "utah", "vermont", "virginia", "washington", "wisconsin", "wyoming")

// countryNames maps a country's names to one spelling; demonymCountry a
// demonym to it; demonymCountryNames a demonym to the names of its country
// as a text writes them (British: United Kingdom, Great Britain, Britain).
var countryNames, demonymCountry, demonymCountryNames = func() (map[string]string, map[string]string, map[string][]string) {
	names, dems, demNames := map[string]string{}, map[string]string{}, map[string][]string{}
	for _, c := range []struct {
		country string
		names   []string
		dems    []string
	}{
		{"united states", []string{"united states", "usa", "u.s", "america"}, []string{"american"}},
		{"united kingdom", []string{"united kingdom", "uk", "britain", "great britain", "england", "scotland", "wales"}, []string{"british", "english", "scottish", "welsh"}},
		{"ireland", []string{"ireland"}, []string{"irish"}},
		{"canada", []string{"canada"}, []string{"canadian"}},
		{"australia", []string{"australia"}, []string{"australian"}},
		{"new zealand", []string{"new zealand"}, nil},
		{"india", []string{"india"}, []string{"indian"}},
		{"china", []string{"china"}, []string{"chinese"}},
		{"japan", []string{"japan"}, []string{"japanese"}},
		{"south korea", []string{"south korea", "korea"}, []string{"korean"}},
		{"france", []string{"france"}, []string{"french"}},
		{"germany", []string{"germany"}, []string{"german"}},
		{"italy", []string{"italy"}, []string{"italian"}},
		{"spain", []string{"spain"}, []string{"spanish"}},
		{"mexico", []string{"mexico"}, []string{"mexican"}},
		{"russia", []string{"russia"}, []string{"russian"}},
		{"netherlands", []string{"netherlands", "holland"}, []string{"dutch"}},
		{"sweden", []string{"sweden"}, []string{"swedish"}},
		{"norway", []string{"norway"}, []string{"norwegian"}},
		{"denmark", []string{"denmark"}, []string{"danish"}},
		{"finland", []string{"finland"}, []string{"finnish"}},
		{"poland", []string{"poland"}, []string{"polish"}},
		{"greece", []string{"greece"}, []string{"greek"}},
		{"turkey", []string{"turkey"}, []string{"turkish"}},
		{"brazil", []string{"brazil"}, []string{"brazilian"}},
		{"argentina", []string{"argentina"}, []string{"argentine", "argentinian"}},
		{"chile", []string{"chile"}, []string{"chilean"}},
		{"switzerland", []string{"switzerland"}, []string{"swiss"}},
		{"austria", []string{"austria"}, []string{"austrian"}},
		{"belgium", []string{"belgium"}, []string{"belgian"}},
		{"portugal", []string{"portugal"}, []string{"portuguese"}},
		{"israel", []string{"israel"}, []string{"israeli"}},
		{"egypt", []string{"egypt"}, []string{"egyptian"}},
		{"south africa", []string{"south africa"}, nil},
		{"nigeria", []string{"nigeria"}, []string{"nigerian"}},
		{"pakistan", []string{"pakistan"}, []string{"pakistani"}},
		{"philippines", []string{"philippines"}, []string{"filipino"}},
		{"thailand", []string{"thailand"}, []string{"thai"}},
		{"vietnam", []string{"vietnam"}, []string{"vietnamese"}},
		{"indonesia", []string{"indonesia"}, []string{"indonesian"}},
		{"iran", []string{"iran"}, []string{"iranian"}},
		{"czech republic", []string{"czech republic"}, []string{"czech"}},
		{"hungary", []string{"hungary"}, []string{"hungarian"}},
		{"ukraine", []string{"ukraine"}, []string{"ukrainian"}},
		{"cuba", []string{"cuba"}, []string{"cuban"}},
		{"colombia", []string{"colombia"}, []string{"colombian"}},
		{"peru", []string{"peru"}, []string{"peruvian"}},
		{"singapore", []string{"singapore"}, []string{"singaporean"}},
	} {
		for _, n := range c.names {
			names[n] = c.country
		}
		for _, d := range c.dems {
			dems[d] = c.country
			demNames[d] = demonymNames(d, c.country, c.names)
		}
	}
	return names, dems, demNames
}()

// demonymNames are the names a demonym's country goes by in a text that
// would use the demonym: English is England, British is the United
// Kingdom and Great Britain, American the United States and America.
func demonymNames(dem, country string, names []string) []string {
	switch dem {
	case "english":
		return []string{"England"}
	case "scottish":
		return []string{"Scotland"}
	case "welsh":
		return []string{"Wales"}
	}
	var out []string
	for _, n := range names {
		if len(n) <= 3 || strings.Contains(n, ".") || dem == "british" && (n == "england" || n == "scotland" || n == "wales") {
			continue // abbreviations, and the nations of the UK, which British does not single out
		}
		w := strings.Fields(n)
		for i := range w {
			w[i] = strings.ToUpper(w[i][:1]) + w[i][1:]
		}
		out = append(out, strings.Join(w, " "))
	}
	return out
}

// valueConflict finds a context sentence that names the statement's
// subject (the name it opens on) and gives it another value of a keyed
// attribute than the statement does: "Indigofera belongs to the family
// Cupressaceae" against "Indigofera is a large genus … belonging to the
// family Fabaceae". Only the family, whose value follows its key.
func valueConflict(st *span, sents []*span) (Evidence, bool) {
	if st.hasHan || !strings.Contains(st.text, "family") {
		return Evidence{}, false
	}
	claimed := attrValues(st.text, "family")
	subject := openingName(strings.TrimPrefix(strings.TrimPrefix(st.text, "Yes: "), "No, "))
	if len(claimed) == 0 || subject == "" {
		return Evidence{}, false
	}
	given := func(cs *span) map[string]bool {
		if cs.hasHan {
			return nil
		}
		return attrValues(withParenthesis(cs), "family")
	}
	return otherValue(subject, "family", claimed, sents, given, func(a, b string) bool { return a == b })
}

// otherValue finds the first sentence that names the subject and gives
// its attribute values none of which is the same as a claimed one: the
// value conflict of valueConflict and nationalityConflict. A sentence
// that gives one of the claimed values ends the search: the context
// agrees somewhere, and no conflict is reported.
func otherValue(subject, attr string, claimed map[string]bool, sents []*span, given func(*span) map[string]bool, same func(a, b string) bool) (Evidence, bool) {
	for i, cs := range sents {
		if !namesThing(cs, subject) {
			continue
		}
		vals := given(cs)
		if len(vals) == 0 {
			continue
		}
		for g := range vals {
			for c := range claimed {
				if same(g, c) {
					return Evidence{}, false
				}
			}
		}
		return Evidence{Coverage: 1, Quote: cs.text, From: i, Detector: DetectorValue,
			Reason: fmt.Sprintf("context gives %s the %s %s (%q), not %s (%s)", subject, attr, list(vals), clip(cs.text), list(claimed), DetectorValue)}, true
	}
	return Evidence{}, false
}

// nationalityConflict finds a context sentence that names the subject of
// a denied proposition ("Ann Lee Chilean", of "Are Ann Lee and Bo Chen
// Chilean?" answered no) and gives it demonyms of other countries only:
// "Ann Lee (born 1925) was a Japanese author" contradicts it, so the "no"
// is supported. A language label ("Greek: …") is no nationality; a
// sentence that also gives the claimed one (Chilean-born, or English for
// British) does not contradict it.
func nationalityConflict(prop string, sents []*span) (Evidence, bool) {
	claimed := attrValues(prop, "nationality")
	if len(claimed) == 0 || containsHan(prop) {
		return Evidence{}, false
	}
	w := strings.Fields(openingName(prop))
	for len(w) > 0 && demonym(w[len(w)-1]) {
		w = w[:len(w)-1] // "Ann Lee Chilean": the demonym is the claim
	}
	if len(w) == 0 {
		return Evidence{}, false
	}
	subject := strings.Join(w, " ")
	same := func(a, b string) bool {
		return a == b || demonymCountry[a] != "" && demonymCountry[a] == demonymCountry[b]
	}
	given := func(cs *span) map[string]bool {
		return attrValues(withoutLanguageLabels(withParenthesis(cs)), "nationality")
	}
	return otherValue(subject, "nationality", claimed, sents, given, same)
}

// languageLabel reports whether a word labels a language ("Italian:",
// "Greek:\""): what follows is the name in that language, and the word
// names no nationality.
func languageLabel(w string) bool {
	return strings.HasSuffix(strings.TrimRight(w, "\"'"), ":")
}

// withoutLanguageLabels drops the words of a text that label a language
// ("(Greek: Οδυσσέας Ελύτης)", "Japanese: 三島"): they name no nationality.
func withoutLanguageLabels(text string) string {
	w := strings.Fields(text)
	out := w[:0:0]
	for _, x := range w {
		if languageLabel(x) {
			continue
		}
		out = append(out, x)
	}
	return strings.Join(out, " ")
}
