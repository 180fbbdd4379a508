package offline

import (
	"bufio"
	"embed"
	"fmt"
	"strings"
)

// Word lists of the lexical judge. They are deliberately small and explicit:
// the judge is a transparent first pass, and a user reading a reason should
// be able to predict it from these lists. Each list is a file of words/,
// one entry a line, in the order the judge tries them where order matters
// (longest first); a line starting with # is a comment. The files are
// embedded: the judge reads no file at run time.

//go:embed words/*.txt
var wordFiles embed.FS

// words is the list in words/<name>.txt. A missing list is a build
// mistake, found by any test: it panics.
func words(name string) []string {
	b, err := wordFiles.ReadFile("words/" + name + ".txt")
	if err != nil {
		panic(fmt.Sprintf("offline: word list %s: %v", name, err))
	}
	var out []string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" && !strings.HasPrefix(t, "#") {
			out = append(out, t)
		}
	}
	return out
}

// wordSet is the list as a set.
func wordSet(name string) map[string]bool { return setOf(words(name)...) }

// runeSet is the set of the characters of the list's entries.
func runeSet(name string) map[rune]bool { return setOfRunes(strings.Join(words(name), "")) }

// wordMap reads "key value" lines (number words: "three 3").
func wordMap(name string) map[string]string {
	m := map[string]string{}
	for _, l := range words(name) {
		k, v, ok := strings.Cut(l, " ")
		if !ok {
			panic(fmt.Sprintf("offline: word list %s: %q is no \"key value\" line", name, l))
		}
		m[k] = strings.TrimSpace(v)
	}
	return m
}

// alternatives is the list as a regular expression's alternation; its
// entries are written in that syntax ("kilometres?").
func alternatives(name string) string { return strings.Join(words(name), "|") }

// englishStop are function words that carry no content of their own; they
// are ignored by the support test and the embeddings. Negation words are not
// here: they are markers, see englishNegation.
var englishStop = wordSet("english_stop")

// englishNegation are the words that negate a clause.
var englishNegation = wordSet("english_negation")

// englishBoundNegation are phrases that look negated but state a bound
// ("no more than 600") and must not fire the negation detector.
var englishBoundNegation = words("english_bound_negation")

// chineseNegation are the negation markers, longest first so that 不需要 is
// recognised before 不.
var chineseNegation = words("chinese_negation")

// chineseNotNegation are words that contain a negation character without
// negating anything (不断 "continuously", 非常 "very", 未来 "future") or that
// state a bound (不超过 "at most"); they are masked before marker search.
var chineseNotNegation = words("chinese_not_negation")

// chineseParticles are function characters; a bigram containing one is not
// content (的员, 了解 would otherwise inflate overlap).
var chineseParticles = runeSet("chinese_particles")

// chineseStopBigrams are frequent function words.
var chineseStopBigrams = wordSet("chinese_stop_bigrams")

// changeWords say that something changes; they make the reason for a
// conflict with 不变 ("unchanged") read naturally.
var changeWords = words("change_words")

var monthWords = wordSet("months")

var weekdayWords = wordSet("weekdays")

// noncommittalPhrases show an evasive answer. They are matched on the
// lowercased answer with typographic apostrophes folded.
var noncommittalPhrases = words("noncommittal")

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func setOfRunes(s string) map[rune]bool {
	m := map[rune]bool{}
	for _, r := range s {
		m[r] = true
	}
	return m
}
