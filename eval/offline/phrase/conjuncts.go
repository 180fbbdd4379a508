package phrase

import (
	"regexp"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/words"
)

// collectiveWords are said of two together, not distributed to each.
var collectiveWords = words.Set("collective")

// Conjunct is one statement of a coordination, and the name it is about.
type Conjunct struct {
	Text, Name string
}

// Conjuncts are the statement with "A and B" (both dropped) read once as A
// and once as B; nil when it coordinates no two names or its predicate is
// collective. B ends where the longest run of its words written (by the
// stems of the run) ends.
func Conjuncts(text string, written func(stems []string) bool) []Conjunct {
	if containsHan(text) {
		return hanConjuncts(text)
	}
	if !strings.Contains(text, " and ") {
		return nil
	}
	w := strings.Fields(text)
	if slices.ContainsFunc(w, func(x string) bool { return collectiveWords[strings.ToLower(TrimWord(x))] }) {
		return nil
	}
	for i := 1; i+1 < len(w); i++ {
		if w[i] != "and" || EndsInPunct(w[i-1]) {
			continue
		}
		ls := writtenStart(w, NameStart(w, i), i, written)
		re := writtenEnd(w, i+1, NameEnd(w, i+1), written)
		if ls == i || re == i+1 || re >= len(w) {
			continue
		}
		both := func(x string) bool { return strings.ToLower(x) == "both" }
		before := slices.DeleteFunc(slices.Clone(w[:ls]), both)
		after := slices.DeleteFunc(slices.Clone(w[re:]), both)
		if len(after) == 0 {
			continue
		}
		a := strings.Join(slices.Concat(before, w[ls:i], after), " ")
		b := strings.Join(slices.Concat(before, w[i+1:re], after), " ")
		return []Conjunct{{a, strings.Join(w[ls:i], " ")}, {b, strings.Join(w[i+1:re], " ")}}
	}
	return nil
}

// writtenStart: a name before "and" that ends in a lowercase word ("Gin and
// tonic and Paloma") starts at the capitalised word whose run to it a
// sentence writes together; from when it has a start of its own.
func writtenStart(w []string, from, to int, written func([]string) bool) int {
	if from < to {
		return from
	}
	for k := max(0, to-4); k < to-1; k++ {
		if Capitalised(TrimWord(w[k])) && written(Stems(strings.Join(w[k:to], " "))) {
			return k
		}
	}
	return from
}

// writtenEnd shortens the name w[from:end] to the longest run of its words
// written together ("Quay Players" of "Quay Players American"), or takes in
// the lowercase words after it that a sentence writes with it ("Sake bomb").
func writtenEnd(w []string, from, end int, written func([]string) bool) int {
	for e := min(end+2, len(w)-1); e > end && end > from; e-- {
		if !slices.ContainsFunc(w[end:e], EndsInPunct) && written(Stems(strings.Join(w[from:e], " "))) {
			return e
		}
	}
	for e := end; e > from+1; e-- {
		if written(Stems(strings.Join(w[from:e], " "))) {
			return e
		}
	}
	return end
}

// hanConjuncts: "甲和乙都在上海" -> "甲在上海", "乙在上海": the runs
// around 和 (与, 及, 跟) before 都.
func hanConjuncts(text string) []Conjunct {
	rs := []rune(text)
	dou := slices.Index(rs, '都')
	if dou < 0 {
		return nil
	}
	for c := range collectiveWords {
		if containsHan(c) && strings.Contains(text, c) {
			return nil
		}
	}
	start, and, ok := hanPair(rs, dou)
	if !ok || dou+1 >= len(rs) {
		return nil
	}
	head, pred := string(rs[:start]), string(rs[dou+1:])
	a, b := string(rs[start:and]), string(rs[and+1:dou])
	name, _, _ := strings.Cut(b, "的") // 乙 of "甲和乙的总部都…"
	return []Conjunct{{head + a + pred, a}, {head + b + pred, name}}
}

// hanPair finds the two names coordinated by 和 (与, 及, 跟) before rs[end]
// in its clause: rs[start:and] and rs[and+1:end]. "是的，甲和乙都..." opens
// after the comma: the first name is what is left.
func hanPair(rs []rune, end int) (start, and int, ok bool) {
	if and = lastInClause(rs, end, "和与及跟"); and < 0 {
		return 0, 0, false
	}
	start = and
	for start > 0 && !IsClausePunct(rs[start-1]) && !strings.ContainsRune("、 ", rs[start-1]) {
		start--
	}
	return start, and, and-start >= 1 && end-and-1 >= 1
}

// lastInClause is where rs[1:end] last has a rune of marks in the clause
// that ends at rs[end]; -1 when it does not.
func lastInClause(rs []rune, end int, marks string) int {
	for i := end - 1; i > 0 && !IsClausePunct(rs[i]); i-- {
		if strings.ContainsRune(marks, rs[i]) {
			return i
		}
	}
	return -1
}

// SaysBoth reports whether BothAs would read the statement ("both",
// "两家…都"), so a caller need not work out the two names first.
func SaysBoth(statement string) bool {
	if containsHan(statement) {
		loc := hanBoth.FindStringIndex(statement)
		return loc != nil && strings.Contains(statement[loc[0]:], "都")
	}
	return strings.Contains(strings.ToLower(statement), "both") && indexWord(strings.Fields(statement), "both") >= 0
}

// BothAs is the statement with what its "both" stands for ("both
// cocktails", "both of them", "Both were ...") replaced by "both a and b";
// the statement as it is when it has no such "both".
func BothAs(statement, a, b string) string {
	if containsHan(statement) { // "两家X" read as "a和b" where a 都 says it of each
		loc := hanBoth.FindStringIndex(statement)
		if loc == nil || !strings.Contains(statement[loc[0]:], "都") {
			return statement
		}
		end := loc[1] - len("的") // 的 and 都 are one character of three bytes each
		return statement[:loc[0]] + a + "和" + b + statement[end:]
	}
	w := strings.Fields(statement)
	at := indexWord(w, "both")
	if at < 0 || at+1 >= len(w) || EndsInPunct(w[at]) {
		return statement
	}
	end := at + 1
	next := TrimWord(w[at+1])
	switch {
	case !Capitalised(next) && strings.HasSuffix(next, "s") && !EnglishStop[strings.ToLower(next)]:
		end = at + 2 // "both cocktails"
	case strings.EqualFold(next, "of") && at+2 < len(w) && strings.EqualFold(TrimWord(w[at+2]), "them"):
		end = at + 3
	}
	if EndsInPunct(w[end-1]) {
		return statement
	}
	return strings.Join(slices.Concat(w[:at+1], []string{a, "and", b}, w[end:]), " ")
}

// OnlyAs reads a statement that says "only a" ("No, only the Grasshopper is
// a drink."), a and b the two things its question coordinates, as what it
// says of a, and that said of b, which it denies; ok is false without one.
func OnlyAs(statement, a, b string) (ofA, ofB string, ok bool) {
	w := strings.Fields(statement)
	at := indexWord(w, "only")
	if at < 0 {
		return "", "", false
	}
	next := strings.TrimPrefix(strings.Join(w[at+1:], " "), "the ")
	if strings.HasPrefix(next, b) && !strings.HasPrefix(next, a) {
		a, b = b, a
	}
	ofA = strings.Join(slices.Delete(w, at, at+1), " ")
	return ofA, strings.Replace(ofA, a, b, 1), a != "" && b != "" && strings.HasPrefix(next, a)
}

// hanBoth is "两家机构" (two, a measure word, what they are) before 都 or 的
// of a Chinese statement: "是的，两家机构的总部都设在…".
var hanBoth = regexp.MustCompile(`(这)?两(?:家|个|种|位|款|所|座|名|部|支|项|条|者|人|间|只|本|份|类|栋|处)[\p{Han}]{0,6}?(?:的|都)`)

// HanPair is the two things a Chinese question coordinates, each as long as
// written says it is ("朗川出版社" of "朗川出版社是不是").
func HanPair(question string, written func(string) bool) (a, b string, ok bool) {
	alts := Alternatives(question)
	if len(alts) != 2 {
		return "", "", false
	}
	b, _, _ = strings.Cut(alts[1], "的") // "乙的总部在…" names 乙
	rs := []rune(b)
	for n := len(rs); n >= 2; n-- {
		if written(string(rs[:n])) {
			return alts[0], string(rs[:n]), written(alts[0])
		}
	}
	return "", "", false
}

// NotBoth is what a statement denies when it says two things are not both
// so ("No, A and B are not both American bands." denies "A and B are both
// American bands."): the statement without its reply word and the negation
// before "both"; ok is false when it says no such thing.
func NotBoth(statement string) (string, bool) {
	if containsHan(statement) {
		return "", false
	}
	w := strings.Fields(statement)
	at := indexWord(w, "both")
	if at < 1 {
		return "", false
	}
	neg := strings.ToLower(w[at-1])
	switch {
	case neg == "not":
		w = append(w[:at-1:at-1], w[at:]...)
	case strings.HasSuffix(neg, "n't") && len(neg) > 3:
		w = slices.Clone(w)
		w[at-1] = strings.TrimSuffix(w[at-1], "n't") // "aren't" → "are", "don't" → "do"
		if strings.EqualFold(w[at-1], "ca") || strings.EqualFold(w[at-1], "wo") {
			return "", false // "can't", "won't"
		}
	default:
		return "", false
	}
	if len(w) > 1 && norm.NoWords[strings.ToLower(TrimWord(w[0]))] {
		w = w[1:]
	}
	return strings.Join(w, " "), true
}
