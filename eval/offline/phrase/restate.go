package phrase

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/eval/offline/words"
)

// Presupposes reports whether a question takes its content as given (a
// wh-question), not asks it (是否, 吗, 还是; an opening auxiliary).
func Presupposes(question string) bool {
	q := strings.ToLower(strings.TrimSpace(plaintext.StripControls(question)))
	if q == "" {
		return false
	}
	if containsHan(q) {
		return !strings.Contains(q, "还是") && !strings.Contains(q, "是否") && !strings.Contains(q, "是不是") &&
			!strings.HasSuffix(strings.TrimRight(q, "？?。 "), "吗")
	}
	return !norm.EnglishQuestionAux[strings.Trim(strings.Fields(q)[0], ",")]
}

// KeepNamesWhole marks every word of a name of two or more words kept
// when one of them is ("National Football League" for "football"); a
// name ends at punctuation ("Institute (PSI), Dennis Howard Marks" is two).
func KeepNamesWhole(words []string, keep []bool) {
	for i := 0; i < len(words); {
		j := i
		for j < len(words) && (Capitalised(TrimWord(words[j])) || j > i && NameParticles[words[j]] && j+1 < len(words) && Capitalised(TrimWord(words[j+1]))) {
			j++
			if EndsInPunct(words[j-1]) {
				break
			}
		}
		if j-i >= 2 && slices.Contains(keep[i:j], true) {
			for k := i; k < j; k++ {
				keep[k] = true
			}
		}
		i = max(j, i+1)
	}
}

// RelationWord is the stem of the word that ties a restatement's answer
// (its residual) to the rest of it, where the answer comes after it: a
// word of the three before the answer that is neither a stop word nor
// capitalised ("distributed" of "... was distributed by A", "born" of "X
// was born in A"); after a copula, its subject's noun (subjectHead:
// "director" of "The director of X was A"). "" when there is none, or when
// the residual opens on a word of its own ("lies Lauersee" says its
// relation).
func RelationWord(text, residual string) string {
	first := strings.Fields(residual)
	if len(first) == 0 || !Capitalised(first[0]) && !unicode.IsDigit([]rune(first[0])[0]) {
		return ""
	}
	words := strings.Fields(text)
	at := slices.IndexFunc(words, func(w string) bool { return TrimWord(w) == TrimWord(first[0]) })
	for k := at - 1; k >= max(0, at-3); k-- {
		t := strings.ToLower(TrimWord(words[k]))
		switch {
		case copulas[t]:
			return subjectHead(words[:k])
		case t == "" || EnglishStop[t] || Capitalised(TrimWord(words[k])):
			continue
		}
		return norm.Stem(t)
	}
	return ""
}

// subjectHead is the noun a copula's subject is about: the word before its
// first "of", "who", "that" or "which" ("director" of "The current director
// of the museum ... is A"); "" when there is none, or it is capitalised or a
// stop word.
func subjectHead(words []string) string {
	for k := 1; k < len(words); k++ {
		switch strings.ToLower(TrimWord(words[k])) {
		case "of", "who", "that", "which":
			t := TrimWord(words[k-1])
			if t == "" || Capitalised(t) || EnglishStop[strings.ToLower(t)] {
				return ""
			}
			return norm.Stem(strings.ToLower(t))
		}
	}
	return ""
}

// sameRelations are verbs that tie a value in one way (words/same_relations.txt).
var sameRelations = words.Map("same_relations")

// sameRelation is the stem a relation word is read as: founded, formed and
// established are one.
func sameRelation(stem string) string { return cmp.Or(sameRelations[stem], stem) }

var copulas = map[string]bool{"is": true, "was": true, "are": true, "were": true}

// TieWords is how many words after a relation word what it ties may come:
// a short phrase may stand between ("formally described as a new genus in
// 1852").
const TieWords = 7

// TiedBy returns the first word of what a sentence ties by the relation
// word (its stem): a name, or a number when number is set, in the TieWords
// words after a lowercase occurrence of it ("distributed in cinemas by
// Halcyon Pictures"; "Museum" of "the Adams Museum" is a name's word, no
// relation), other than the words skip holds; "" when there is none.
func TiedBy(sentence, stem string, number bool, skip func(word string) bool) string {
	if words, at := tiedAt(sentence, stem, number, skip); at >= 0 {
		return TrimWord(words[at])
	}
	return ""
}

// tiedAt is TiedBy's word: the sentence's words and its index; -1 when
// there is none.
func tiedAt(sentence, stem string, number bool, skip func(word string) bool) ([]string, int) {
	words := strings.Fields(sentence)
	for i, w := range words {
		if t := TrimWord(w); t == "" || Capitalised(t) || sameRelation(norm.Stem(strings.ToLower(t))) != sameRelation(stem) {
			continue
		}
		for j := i + 1; j <= min(i+TieWords, len(words)-1); j++ {
			t := TrimWord(words[j])
			if t == "" || skip(t) {
				continue
			}
			if number && strings.IndexFunc(t, unicode.IsDigit) >= 0 || !number && Capitalised(t) && !EnglishStop[strings.ToLower(t)] {
				return words, j
			}
		}
	}
	return words, -1
}

// WrittenAs is the word of text whose stem is stem, for a reason.
func WrittenAs(text, stem string) string {
	for _, w := range strings.Fields(text) {
		if t := TrimWord(w); norm.Stem(strings.ToLower(t)) == stem {
			return t
		}
	}
	return stem
}

// WordsOf is the set of a text's words as written, punctuation trimmed.
func WordsOf(text string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(text) {
		m[TrimWord(w)] = true
	}
	return m
}
