package phrase

import (
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval/offline/norm"
)

// Sameness is what a statement says of two things that have, or do not
// have, the same value of something ("A and B were born in the same
// city", "A was designed by the same firm as B", "甲和乙的设计时速相同").
type Sameness struct {
	A, B   string
	Rel    string // stem of the word that ties the value to each ("born"); "" when none
	Of     string // what has the value ("city", 设计时速)
	Year   bool   // the value is a year
	Differ bool   // the statement says the values differ
}

// SamenessIn reads a statement that says two named things share a value
// or differ in it; ok is false when it says no such thing.
func SamenessIn(text string) (Sameness, bool) {
	if containsHan(text) {
		return hanSameness(text)
	}
	w := strings.Fields(text)
	at, differ := -1, false
	for i, x := range w {
		switch t := strings.ToLower(TrimWord(x)); {
		case t == "same" && i > 0 && strings.EqualFold(w[i-1], "the"):
			at = i
		case t == "different" || t == "differ":
			at, differ = i, true
		case t == "not" || t == "never" || strings.HasSuffix(t, "n't"):
			differ = !differ
			continue
		default:
			if strings.HasSuffix(x, ",") || strings.HasSuffix(x, ";") {
				differ = false // a negation before the clause says nothing of it
			}
			continue
		}
		break
	}
	if at < 0 || at+1 >= len(w) || EndsInPunct(w[at]) {
		return Sameness{}, false
	}
	s := Sameness{Differ: differ, Of: strings.ToLower(TrimWord(w[at+1]))}
	s.Year = s.Of == "year" || s.Of == "years"
	if i := indexWord(w[at+1:], "as"); i > 0 && i < 4 {
		s.A, s.B = nameAt(w, 0, at), nameAt(w, at+1+i+1, len(w))
	} else if and := indexWord(w[:at], "and"); and > 0 {
		s.A, s.B = nameBefore(w, and), nameAt(w, and+1, at)
	}
	if s.A == "" || s.B == "" {
		return Sameness{}, false
	}
	for k := at - 2; k >= 0 && k >= at-4; k-- {
		t := strings.ToLower(TrimWord(w[k]))
		if t == "" || EnglishStop[t] || copulas[t] || Capitalised(TrimWord(w[k])) {
			continue
		}
		s.Rel = norm.Stem(t)
		break
	}
	return s, true
}

// indexWord is where w first writes word, case and punctuation aside; -1 when it does not.
func indexWord(w []string, word string) int {
	for i, x := range w {
		if strings.EqualFold(TrimWord(x), word) {
			return i
		}
	}
	return -1
}

// nameAt is the first name in w[from:to] ("" when none).
func nameAt(w []string, from, to int) string {
	for i := from; i < to; i++ {
		t := strings.ToLower(TrimWord(w[i]))
		if Capitalised(TrimWord(w[i])) && !norm.YesWords[t] && !norm.NoWords[t] && (!EnglishStop[t] || i+1 < to && Capitalised(w[i+1])) {
			return trimName(w[i:min(NameEnd(w, i), to)])
		}
	}
	return ""
}

func trimName(w []string) string {
	if len(w) > 1 && w[0] == "the" {
		w = w[1:]
	}
	return strings.Trim(strings.Join(w, " "), ",.;:!?\"'()")
}

// nameBefore is the last name before w[at], past up to two lowercase
// words after it ("the Tallow Creek mine and ...").
func nameBefore(w []string, at int) string {
	for end := at; end > 0 && end >= at-2; end-- {
		if i := NameStart(w, end); i < end {
			return trimName(w[i:end])
		}
	}
	return ""
}

// tiedRun is the name (or, for a year, the number) a sentence ties by the
// relation word: TiedBy's, written whole ("New York", not "New"), with the
// name after its comma ("Sligo, Ireland").
func tiedRun(sentence, stem string, year bool, skip func(word string) bool) string {
	w, i := tiedAt(sentence, stem, year, skip)
	if i < 0 {
		return ""
	}
	if year {
		return TrimWord(w[i])
	}
	end := NameEnd(w, i)
	if end < len(w) && strings.HasSuffix(w[end-1], ",") && Capitalised(w[end]) {
		end = NameEnd(w, end) // "Sligo, Ireland": the place and where it is
	}
	return trimName(w[i:end])
}

// hanSameness: "甲和乙的K相同", "甲与乙的K不同", "…不一样".
func hanSameness(text string) (Sameness, bool) {
	rs := []rune(text)
	at, differ := -1, false
	for _, m := range []string{"不相同", "不一样", "不同", "相同", "一样"} {
		if i := strings.Index(text, m); i >= 0 {
			at, differ = len([]rune(text[:i])), strings.HasPrefix(m, "不")
			break
		}
	}
	de := lastInClause(rs, at, "的")
	if at < 0 || de < 0 {
		return Sameness{}, false
	}
	of := strings.TrimRight(string(rs[de+1:at]), "都也并均是")
	start, and, ok := hanPair(rs, de)
	if !ok || of == "" {
		return Sameness{}, false
	}
	a, b := string(rs[start:and]), string(rs[and+1:de])
	return Sameness{A: a, B: b, Of: of, Differ: differ, Year: of == "年份" || of == "年"}, true
}

// ValueIn is the value a sentence about one of the two things gives it:
// the name (or year) it ties by the relation word, or else by the word of
// what has the value ("family Araceae"); in Chinese, the words after what
// has the value (设计时速为160公里). skip holds the two things' own words.
func (s Sameness) ValueIn(sentence string, skip func(word string) bool) string {
	if containsHan(s.Of) {
		if j := strings.Index(sentence, s.Of); j >= 0 {
			return strings.TrimLeft(upTo(sentence[j+len(s.Of):], clausePunct), "同均也都为是在：: ") // up to its clause's end
		}
		return ""
	}
	for _, rel := range []string{s.Rel, norm.Stem(s.Of)} {
		if rel == "" {
			continue
		}
		if v := tiedRun(sentence, rel, s.Year, skip); v != "" {
			return v
		}
	}
	return ""
}

// SameValues compares two values: the same when their first names are
// written alike, different when they share no word; undecided otherwise
// ("Lyon, France" and "Paris, France" decide no "same country").
func SameValues(a, b string) (same, decided bool) {
	if strings.EqualFold(strings.Split(a, ",")[0], strings.Split(b, ",")[0]) {
		return true, true
	}
	sb := Stems(b)
	return false, !slices.ContainsFunc(Stems(a), func(w string) bool { return slices.Contains(sb, w) })
}
