package calibrate

import (
	"strings"
	"unicode"
)

// The constructions' own small word helpers. They read like some of the
// offline judge's, and are kept apart on purpose: the judge shares no code
// with the generator of the answers it is scored on.

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func containsHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

func capitalised(w string) bool {
	for _, r := range w {
		return unicode.IsUpper(r)
	}
	return false
}

func indexWord(w []string, word string, from int) int {
	for i := from; i < len(w); i++ {
		if strings.EqualFold(w[i], word) {
			return i
		}
	}
	return -1
}

// nameParticles are the lowercase words inside one name: Kings of Leon,
// Band of Brothers, First for Women, Theo van Gogh.
var nameParticles = setOf("of", "for", "the", "de", "du", "da", "del", "della", "di", "la", "le", "van", "von", "der", "den", "y", "&")

// nameConnectors may join the capitalised words of a subject: one name's
// particles, and "and" between two names (Pam Veasey and Jon Jost).
var nameConnectors = func() map[string]bool {
	m := setOf("and")
	for k := range nameParticles {
		m[k] = true
	}
	return m
}()

// nameRun splits "Kings of Leon American rock bands" into the name it
// opens with and the rest. The name is the run of capitalised words (and
// connectors between them); a demonym at its end that the lowercase rest
// follows (American rock bands) opens the predicate instead.
func nameRun(w []string) (name, rest []string) {
	end := 0
	for i, x := range w {
		if capitalised(x) {
			end = i + 1
			continue
		}
		if !nameConnectors[strings.ToLower(x)] || i+1 >= len(w) || !capitalised(w[i+1]) {
			break
		}
	}
	if end == 0 {
		return nil, w
	}
	if end > 1 && end < len(w) && demonym(w[end-1]) {
		end--
	}
	return w[:end], w[end:]
}

// demonym: American, Canadian, Chinese, English, Korean, Dutch... by the
// suffixes of English demonyms, and the common ones without them. A name
// that merely ends in -an (Corman, Gorman) is not one.
func demonym(w string) bool {
	lw := strings.ToLower(strings.Trim(w, ",."))
	if demonyms[lw] {
		return true
	}
	for _, suf := range []string{"ican", "ian", "ean", "ese", "ish"} {
		if len(lw) > len(suf)+2 && strings.HasSuffix(lw, suf) {
			return true
		}
	}
	return false
}

var demonyms = setOf("dutch", "french", "german", "greek", "thai", "swiss", "welsh", "irish", "british", "czech", "danish", "swedish", "polish", "turkish", "finnish")

// auxAfterSubject finds the auxiliary that follows a yes/no question's
// subject and its comma ("Ann Lee and Bo Chen, are Chilean?"), and the
// question's words without it and the comma ("Ann Lee and Bo Chen
// Chilean"). The subject is names and the words that join them; an
// opening phrase ("In 2006, was Ann Lee the winner?") is none.
func auxAfterSubject(w []string) (aux string, rest []string, ok bool) {
	for k := 1; k+1 < len(w); k++ {
		if !strings.HasSuffix(w[k-1], ",") {
			continue
		}
		if !englishQuestionAux[strings.ToLower(w[k])] || openingPrepositions[strings.ToLower(w[0])] {
			return "", nil, false // the first comma decides
		}
		for _, x := range w[:k] {
			t := strings.Trim(x, ",")
			if !capitalised(t) && t != "and" && !nameParticles[t] {
				return "", nil, false
			}
		}
		rest = append(append(append([]string{}, w[:k-1]...), strings.TrimSuffix(w[k-1], ",")), w[k+1:]...)
		return w[k], rest, true
	}
	return "", nil, false
}

// englishStop are function words that carry no content of their own; they
// are ignored by the support test and the embeddings. Negation words are not
// here: they are markers, see englishNegation.
var englishStop = setOf(
	"a", "an", "the", "and", "or", "but", "if", "then", "so", "than", "that", "this", "these", "those",
	"there", "here", "of", "in", "on", "at", "to", "for", "from", "by", "with", "about", "as", "into",
	"onto", "over", "under", "after", "before", "between", "through", "during", "within", "upon",
	"is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "done", "doing",
	"have", "has", "had", "having", "will", "would", "shall", "should", "can", "could", "may", "might",
	"must", "it", "its", "it's", "they", "them", "their", "theirs", "he", "him", "his", "she", "her",
	"hers", "we", "us", "our", "ours", "you", "your", "yours", "i", "me", "my", "mine", "who", "whom",
	"whose", "which", "what", "when", "where", "why", "how", "also", "very", "just", "only", "any",
	"all", "each", "every", "some", "such", "both", "either", "other", "another", "more", "most",
	"much", "many", "yes", "please", "one's", "s", "t", "via", "per", "etc", "up", "out", "off",
	"again", "once", "same", "own", "too", "well", "still", "even", "ever", "yet", "while", "because",
	"since", "until", "whether", "answer", "question", "known",
)

var numberWords = map[string]string{"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
	"seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "fifteen": "15",
	"twenty": "20", "thirty": "30", "fifty": "50", "hundred": "100"}

var openingPrepositions = setOf("in", "on", "at", "after", "before", "during", "since", "by", "from", "until", "later", "then", "today", "now", "currently")

var (
	yesWords           = setOf("yes", "yeah", "yep", "correct", "true", "right", "是", "是的", "对", "对的", "会", "会的", "能", "可以", "有", "正确")
	noWords            = setOf("no", "nope", "incorrect", "false", "wrong", "否", "不是", "不对", "不会", "不能", "不可以", "没有", "不", "错误")
	englishQuestionAux = setOf("is", "are", "was", "were", "do", "does", "did", "can", "could", "has", "have", "had", "will", "would", "should", "shall", "may", "might")
)

// yesNo reports whether a short answer is only yes or only no (with
// punctuation), and which.
func yesNo(answer string) (yes, ok bool) {
	a := strings.ToLower(strings.TrimFunc(answer, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r)
	}))
	a = strings.TrimPrefix(a, "the answer is ")
	switch {
	case yesWords[a]:
		return true, true
	case noWords[a]:
		return false, true
	}
	return false, false
}
