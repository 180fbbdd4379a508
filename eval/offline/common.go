package offline

import (
	"strings"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/words"
)

var (
	commonStems = map[string]bool{}
	commonHan   = map[rune][]string{} // by their first character
)

func init() {
	for _, w := range words.List("common_words") {
		if containsHan(w) {
			r, _ := utf8.DecodeRuneInString(w)
			commonHan[r] = append(commonHan[r], w)
		} else {
			commonStems[norm.Stem(strings.ToLower(w))] = true
		}
	}
}

// markCommonHan marks the bigrams and characters of a Han run that lie
// inside its common words.
func markCommonHan(run string, sp *span) {
	var in []bool // by rune
	k := 0
	for off, r := range run {
		for _, w := range commonHan[r] {
			if strings.HasPrefix(run[off:], w) {
				if in == nil {
					in = make([]bool, utf8.RuneCountInString(run))
				}
				for n := range utf8.RuneCountInString(w) {
					in[k+n] = true
				}
			}
		}
		k++
	}
	if in != nil {
		markCommonRunes([]rune(run), in, sp)
	}
}

// markCommonRunes marks the characters of rs that are in, and the bigrams
// of two of them.
func markCommonRunes(rs []rune, in []bool, sp *span) {
	for i, r := range rs {
		if !in[i] {
			continue
		}
		put(&sp.common, "u:"+string(r))
		if i+1 < len(rs) && in[i+1] {
			put(&sp.common, "h:"+string(rs[i:i+2]))
		}
	}
}

// onlyCommon reports whether a clause says nothing but common words (and
// particles): "据公司制度规定", "According to the policy".
func onlyCommon(c string) bool {
	sp := analyze(c)
	return len(sp.feats) > 0 && overlap(sp.feats, sp.common) == len(sp.feats)
}

// nameDots separate the given name from the family name of a
// transliterated name (南希·佩洛西).
const nameDots = "·•・‧"

// maxGivenNameRunes bounds the given name before a name dot.
const maxGivenNameRunes = 3

// markGivenName weighs the given name of a transliterated name as a common
// word: texts name the person by the family name (佩洛西 of 南希·佩洛西).
func markGivenName(run string, sp *span) {
	rs := []rune(run)
	in := make([]bool, len(rs))
	for i := len(rs); i > 0 && len(rs)-i < maxGivenNameRunes && !chineseParticles[rs[i-1]]; i-- {
		in[i-1] = true
	}
	markCommonRunes(rs, in, sp)
}
