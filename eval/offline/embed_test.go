package offline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/internal/memo"
)

// The vector of a big text, made from an analysis that keeps no clauses,
// is the vector of its full analysis.
func TestEmbedOfABigText(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < memo.BigText+1000; i++ {
		fmt.Fprintf(&b, "Plan %d costs %d yuan a month; 第%d条：年假%d天，不得折现。 ", i, i*7%1000, i, i%15)
	}
	text := b.String()
	lean := Embed(text)
	sp := analyzeText(text)
	if len(sp.clauses) == 0 || len(analyzeClauses(text, false, false).clauses) != 0 {
		t.Fatal("the lean analysis keeps clauses, or the full one has none")
	}
	full := vectorOf(sp)
	for i := range full {
		if d := lean[i] - full[i]; d > 1e-12 || d < -1e-12 {
			t.Fatalf("dimension %d: %g from the lean analysis, %g from the full one", i, lean[i], full[i])
		}
	}
}
