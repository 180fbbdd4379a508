package phrase

import (
	"slices"
	"strings"
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

// Seams are the characters that end (left) and start (right) a Chinese
// bigram of the statement the sentence has: a bigram of the statement the
// sentence lacks, whose first character ends one and whose second starts
// another, is the seam between two words the sentence has (付值 of
// 支付值班费 against 支付 ... 值班), found. Made on the first bigram missed;
// slices, as a statement has a few dozen bigrams.
type Seams struct {
	St, Cs      map[string]bool // the features of the statement and the sentence
	made        bool
	left, right []rune
}

// Found reports whether the feature f of the statement is such a seam.
func (sm *Seams) Found(f string) bool {
	if !strings.HasPrefix(f, "h:") || sm.St == nil {
		return false
	}
	rs := []rune(f[2:])
	if len(rs) != 2 {
		return false
	}
	if !sm.made {
		sm.made = true
		for g := range sm.St {
			if !strings.HasPrefix(g, "h:") || !sm.Cs[g] {
				continue
			}
			if gs := []rune(g[2:]); len(gs) == 2 {
				sm.left, sm.right = append(sm.left, gs[1]), append(sm.right, gs[0])
			}
		}
	}
	return slices.Contains(sm.left, rs[0]) && slices.Contains(sm.right, rs[1])
}
