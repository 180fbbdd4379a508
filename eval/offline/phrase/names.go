package phrase

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/eval/offline/words"
	"github.com/ragscope/ragscope/internal/memo"
)

// EnglishStop, Pronouns and NameParticles are the word lists the offline
// judge reads names with, here and in its own analysis: one copy each.
var (
	EnglishStop         = words.Set("english_stop")
	Pronouns            = words.Set("pronouns")
	NameParticles       = words.Set("name_particles") // lowercase words inside a name (Kings of Leon)
	subjectPronouns     = words.Set("subject_pronouns")
	openingPrepositions = words.Set("opening_prepositions")
)

// SubjectNoun is the noun of a sentence that opens on a description ("The
// mall is...", "Set in Chicago, the series..."), or "".
func SubjectNoun(text string) string {
	text = strings.TrimLeft(text, " \t*#>_\"'(")
	if !strings.HasPrefix(text, "The ") && !strings.HasPrefix(text, "This ") {
		if first := upTo(text, " \t,"); len(first) > 20 || !opensPhrase(strings.ToLower(first)) {
			return ""
		}
		c := strings.Index(text, ", ")
		if c < 0 || strings.Count(text[:c], " ") > 5 {
			return ""
		}
		text = text[c+2:]
		if !strings.HasPrefix(text, "the ") && !strings.HasPrefix(text, "this ") {
			return ""
		}
	}
	w := strings.TrimSuffix(upTo(text[strings.IndexByte(text, ' ')+1:], " ,;:."), "'s")
	if len(w) < 3 || EnglishStop[w] || strings.ContainsFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) {
		return ""
	}
	return w
}

// SubjectPronoun reports whether the sentence's subject is a personal
// pronoun, at its opening or after a short opening phrase ("In 2007, he
// was…", "Self-released in 2004, it…", "A Democrat from Texas, he…"). It
// runs on every context sentence: the common case reads one word.
func SubjectPronoun(text string) bool {
	text = strings.TrimLeft(text, " \t*#>_-\"'(")
	first := upTo(text, " \t,")
	if len(first) > 20 {
		return false
	}
	first = strings.ToLower(first)
	if subjectPronouns[first] {
		return true
	}
	if !opensPhrase(first) && first != "a" && first != "an" {
		return false
	}
	w := strings.Fields(plaintext.StripMarkup(text))
	for i := 1; i < len(w) && i <= 5; i++ {
		if strings.HasSuffix(w[i], ",") {
			return i+1 < len(w) && subjectPronouns[strings.ToLower(w[i+1])]
		}
	}
	return false
}

// upTo is text up to its first byte of stops (its opening word, for " \t,").
func upTo(text, stops string) string {
	if i := strings.IndexAny(text, stops); i >= 0 {
		return text[:i]
	}
	return text
}

// opensPhrase: a lowercased word that opens a phrase before a subject.
func opensPhrase(w string) bool { return openingPrepositions[w] || Participle(w) }

// OpeningName is the name a sentence opens on as written ("The Saimaa
// Gesture", "David Lee Roth"), or "".
func OpeningName(text string) string {
	w := strings.Fields(plaintext.StripMarkup(text))
	i := 0
	if len(w) > 1 && determiners[strings.ToLower(w[0])] && Capitalised(strings.Trim(w[1], "\"'(")) {
		i = 1
	}
	var out []string
	for ; i < len(w); i++ {
		if len(out) > 0 && strings.HasPrefix(w[i], "(") {
			break // "The Saimaa Gesture (Finnish: …)"
		}
		t := strings.Trim(w[i], "\"'(),;:.")
		lt := strings.ToLower(t)
		switch {
		case t != "" && Capitalised(t) && (len(out) > 0 || !EnglishStop[lt] && !Participle(lt) && !Pronouns[lt]):
			out = append(out, t)
		case len(out) > 0 && NameParticles[lt] && i+1 < len(w) && Capitalised(strings.Trim(w[i+1], "\"'(")):
			out = append(out, t)
		default:
			return strings.Join(out, " ")
		}
		if strings.ContainsAny(w[i][len(w[i])-1:], ",;:.)") {
			break // punctuation after the word ends the name
		}
	}
	return strings.Join(out, " ")
}

// HasPronoun: the text has a personal pronoun.
func HasPronoun(text string) bool {
	ws := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) })
	return slices.ContainsFunc(ws, func(w string) bool { return Pronouns[w] })
}

// NameRuns are a text's names of two or more capitalised words as written
// ("Band of Brothers"), a particle between them included, an opening
// capitalised stop word not.
func NameRuns(text string) []string {
	var out, run []string
	caps := 0
	flush := func() {
		for len(run) > 0 && !Capitalised(run[len(run)-1]) {
			run = run[:len(run)-1]
		}
		if caps >= 2 {
			out = append(out, strings.Join(run, " "))
		}
		run, caps = nil, 0
	}
	for _, w := range strings.Fields(norm.StripFrame(plaintext.StripMarkup(text))) {
		t := TrimWord(w)
		if strings.HasPrefix(w, "(") || strings.HasPrefix(w, "[") {
			flush() // "Petrushevskaya (Russian: …)": a gloss is no part of the name
		}
		switch {
		case t != "" && Capitalised(t) && !(len(run) == 0 && EnglishStop[strings.ToLower(t)]):
			run = append(run, t)
			caps++
		case len(run) > 0 && NameParticles[t]:
			run = append(run, t)
		default:
			flush()
		}
		if t != w && strings.ContainsAny(w[len(w)-1:], ",;:.!?()\"") || strings.HasSuffix(t, "'s") || strings.HasSuffix(t, "’s") {
			flush() // "Orvel Cloud's Basic plan": the owner's name ends at its 's
		}
	}
	flush()
	return out
}

// Stems is a text's words, lowered and stemmed, in order.
func Stems(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' }) {
		if w = strings.Trim(w, "'"); w != "" {
			out = append(out, norm.Stem(w))
		}
	}
	return out
}

// ContainsSeq reports whether seq has the words of sub in order, each
// within NameGap words of the one before ("President Obama" in "President
// Barack Obama").
func ContainsSeq(seq, sub []string) bool {
	if len(sub) == 0 {
		return true
	}
	for i := range seq {
		if seq[i] != sub[0] {
			continue
		}
		at, j := i, 1
		for ; j < len(sub); j++ {
			next := slices.Index(seq[at+1:min(len(seq), at+2+NameGap)], sub[j])
			if next < 0 {
				break
			}
			at += 1 + next
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// ContainsRun reports whether seq has sub's words together, in order.
func ContainsRun(seq, sub []string) bool {
	for i := 0; i+len(sub) <= len(seq); i++ {
		if slices.Equal(seq[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// NameStart is where the name that ends before w[at] starts (at when none).
func NameStart(w []string, at int) int {
	i := at
	for i > 0 {
		t := TrimWord(w[i-1])
		lt := strings.ToLower(t)
		switch {
		case t != "" && Capitalised(t) && !norm.YesWords[lt] && !norm.NoWords[lt] && lt != "both" && !(i == 1 && norm.EnglishQuestionAux[lt]):
			i-- // a question's "Are" is no name's word
		case i < at && NameParticles[t] && i-1 > 0 && Capitalised(TrimWord(w[i-2])):
			i--
		default:
			return i
		}
		if i > 0 && EndsInPunct(w[i-1]) {
			return i // "Yes: Jane": the name opens after the colon
		}
	}
	return i
}

// NameEnd is where the name that starts at w[from] ends (exclusive).
func NameEnd(w []string, from int) int {
	i := from
	for i < len(w) {
		t := TrimWord(w[i])
		switch {
		case t != "" && Capitalised(t):
		case i > from && NameParticles[t] && i+1 < len(w) && Capitalised(TrimWord(w[i+1])):
		default:
			return i
		}
		i++
		if EndsInPunct(w[i-1]) {
			return i
		}
	}
	return i
}

// EndsInPunct: the word ends at punctuation, which ends a name.
func EndsInPunct(w string) bool {
	return strings.ContainsAny(w[len(w)-1:], ",;:.!?)")
}

// Capitalised: the word starts with an uppercase letter.
func Capitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// TrimWord is the word without the punctuation around it.
func TrimWord(w string) string {
	return strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// NameGap is how many words (a middle name, an initial) may come between
// two words of a name.
const NameGap = 2

// Mentions are the names a sentence writes, to tell whether two sentences
// are about one thing (Links).
type Mentions struct {
	stems, opening []string // the sentence's stems; those of the name it opens on
	runs           [][]string
}

// MentionsOf is the text's Mentions, memoised.
func MentionsOf(text string) Mentions { return mentionsOf.Get(text, mentions) }

var mentionsOf = memo.New[Mentions](cacheSize)

func mentions(text string) Mentions {
	m := Mentions{stems: Stems(text), opening: Stems(OpeningName(text))}
	for _, r := range NameRuns(text) {
		m.runs = append(m.runs, Stems(r))
	}
	return m
}

// OpensOnName reports whether the sentence opens on a name, a thing of its
// own, where one that opens on "It", "The event" or "Directed by ..., the
// film" goes on about the thing before it.
func (m Mentions) OpensOnName() bool { return len(m.opening) > 0 }

// Links reports whether two sentences are about one thing by the names
// they write: one opens on a name the other writes ("... films such as
// Night Shift", "Night Shift is a 2004 film"), or one writes a name of two
// or more words that the other writes too, though with more around it ("the
// Northgate Power Board (NPPB)"). A name of one word two sentences share (a
// country) is no link.
func Links(a, b Mentions) bool {
	if named(b.opening, a.stems) || named(a.opening, b.stems) {
		return true
	}
	return slices.ContainsFunc(a.runs, func(r []string) bool { return named(r, b.stems) }) ||
		slices.ContainsFunc(b.runs, func(r []string) bool { return named(r, a.stems) })
}

// named reports whether stems name the name: its words, or its first and
// last, in order, a few words apart at most ("Alf Clausen" names Alf
// Heiberg Clausen, "Dwight D. Eisenhower" Dwight David Eisenhower), or
// all but its company suffix ("BellSouth Corporation" in "BellSouth's
// operations"), or its last word after a short first (ShortFirst).
func named(name, stems []string) bool {
	if len(name) == 0 {
		return false
	}
	last := name[len(name)-1]
	return ContainsSeq(stems, name) || ContainsSeq(stems, []string{name[0], last}) ||
		len(name) >= 2 && (companySuffixes[last] && ContainsSeq(stems, name[:len(name)-1]) || ShortFirst(name[0], last, stems))
}

// companySuffixes are the stems of the words that close a company's name
// and that a text leaves out when it names it again.
var companySuffixes = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"corporation", "corp", "inc", "incorporated", "ltd", "limited", "company", "co", "plc", "llc", "group", "holdings"} {
		m[norm.Stem(w)] = true
	}
	return m
}()

// ShortFirst: stems write the name's last word after a first word that is
// the name's first or begins with it, or that it begins with (a short
// first name: "Pam Veasey" names Pamela Renea Veasey, "Christopher Carter"
// Chris Carter), a few words apart at most.
func ShortFirst(first, last string, stems []string) bool {
	if len(first) < 3 {
		return false
	}
	for i, s := range stems {
		if s != last {
			continue
		}
		for j := max(0, i-1-NameGap); j < i; j++ {
			if t := stems[j]; len(t) >= 3 && t != last && (strings.HasPrefix(t, first) || strings.HasPrefix(first, t)) {
				return true
			}
		}
	}
	return false
}

// FirstWordAt is where text first writes name as a word of its own; -1 when
// it does not.
func FirstWordAt(text, name string) int {
	for from := 0; name != "" && from < len(text); {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return -1
		}
		i += from
		if LastWordAt(text[:i+len(name)], name) == i {
			return i
		}
		from = i + 1
	}
	return -1
}

// LastWordAt is where text last writes name as a word of its own (a row
// named "A" is not the a of "a month"); -1 when it does not.
func LastWordAt(text, name string) int {
	letter := func(r rune) bool { return unicode.IsLetter(r) && !isHan(r) || unicode.IsDigit(r) }
	for end := len(text); name != ""; {
		i := strings.LastIndex(text[:end], name)
		if i < 0 {
			return -1
		}
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[i+len(name):])
		if !letter(before) && !letter(after) || isHan([]rune(name)[0]) {
			return i
		}
		end = i
	}
	return -1
}
