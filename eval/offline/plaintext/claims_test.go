package plaintext

import (
	"slices"
	"testing"
)

// TestUnnest: a claim whose subject carries a claim of its own is the two
// it makes; a list, an opening adverb or a clause at the end is not.
func TestUnnest(t *testing.T) {
	for _, tt := range []struct {
		name, claim string
		want        []string
	}{
		{"relative clause", "Arthur Venn, who took over the works in 1899, studied at the Dunmore Institute.",
			[]string{"Arthur Venn took over the works in 1899", "Arthur Venn studied at the Dunmore Institute."}},
		{"apposition", "Old Margery, the ichthyosaur at the museum, was unearthed by Harold Blythe.",
			[]string{"Old Margery is the ichthyosaur at the museum", "Old Margery was unearthed by Harold Blythe."}},
		{"participle by", "Ledgerwood Hall, opened by Elspeth Marr, has the larger collection.",
			[]string{"Ledgerwood Hall was opened by Elspeth Marr", "Ledgerwood Hall has the larger collection."}},
		{"noun of", "Amos Tregarth, founder of the Ravensford Dye Works, came from Porth Anwen.",
			[]string{"Amos Tregarth is founder of the Ravensford Dye Works", "Amos Tregarth came from Porth Anwen."}},
		{"a list, not an apposition", "Albert Brooks, an American actor, filmmaker, and author, was born in 1947.",
			[]string{"Albert Brooks, an American actor, filmmaker, and author, was born in 1947."}},
		{"an opening adverb", "However, the passage does not give the numbers, nor the date.",
			[]string{"However, the passage does not give the numbers, nor the date."}},
		{"no second comma", "The route is run by the Fenwold Bus Cooperative, which Rosalind Okafor chairs.",
			[]string{"The route is run by the Fenwold Bus Cooperative, which Rosalind Okafor chairs."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unnest(tt.claim); !slices.Equal(got, tt.want) {
				t.Errorf("Unnest(%q)\n got %q\nwant %q", tt.claim, got, tt.want)
			}
		})
	}
}
