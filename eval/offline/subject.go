package offline

import (
	"strings"

	"github.com/ragscope/ragscope/eval/offline/norm"
)

// opensOn reports whether the statement opens on a name with the feature:
// what it says is said of that name, which is then its topic, not a
// premise ("Ann Lee is a married singer" for "Who is married to Ann
// Lee?").
// Function and common discourse words before the name ("The answer is
// Ann Lee ...", "According to the policy, Ann Lee ...") are skipped.
func opensOn(st *span, feat string) bool {
	w := strings.Fields(st.text)
	i := 0
	for i < len(w)-1 {
		lw := strings.ToLower(trimWord(w[i]))
		if lw != "" && !englishStop[lw] && !commonStems[norm.Stem(lw)] {
			break
		}
		i++
	}
	return wordFeats(openingName(strings.Join(w[i:], " ")))[feat]
}
