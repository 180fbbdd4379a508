package offline

import (
	"strings"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/phrase"
)

// opensOn reports whether the statement opens on a name with the feature,
// its topic, not a premise; stop and common words before it are skipped.
func opensOn(st *span, feat string) bool {
	w := strings.Fields(st.text)
	i := 0
	for i < len(w)-1 {
		if lw := strings.ToLower(phrase.TrimWord(w[i])); lw != "" && !englishStop[lw] && !commonStems[norm.Stem(lw)] {
			break
		}
		i++
	}
	return wordFeats(phrase.OpeningName(strings.Join(w[i:], " ")))[feat]
}
