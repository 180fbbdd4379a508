package phrase

import (
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/offline/words"
)

// ChineseParticles are function characters: a bigram with one is no content.
var ChineseParticles = words.Runes("chinese_particles")

// ChineseStopBigrams are bigrams of two content characters that carry no content.
var ChineseStopBigrams = words.Set("chinese_stop_bigrams")

// HanFeatures emits the content bigrams and unigrams of a Han run.
func HanFeatures(run string, add, addUni func(string)) {
	for i := 0; i < len(run); {
		r, n := utf8.DecodeRuneInString(run[i:])
		if !ChineseParticles[r] {
			addUni("u:" + run[i:i+n])
		}
		if j := i + n; j < len(run) {
			r2, n2 := utf8.DecodeRuneInString(run[j:])
			if bg := run[i : j+n2]; !ChineseParticles[r] && !ChineseParticles[r2] && !ChineseStopBigrams[bg] {
				add("h:" + bg)
			}
		}
		i += n
	}
}

// AddSkips adds the bigrams of a context's Han run whose characters have
// one other between them.
func AddSkips(run string, skips map[string]bool) {
	a, b := "", "" // the characters two and one before, "" for a particle
	for i, r := range run {
		c := run[i : i+utf8.RuneLen(r)]
		if ChineseParticles[r] {
			c = ""
		}
		if a != "" && c != "" {
			skips["h:"+a+c] = true
		}
		a, b = b, c
	}
}
