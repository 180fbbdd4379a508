package offline

import "testing"

// A restatement names the question's things, premises; the sentence that
// supports its claim may name another thing that a sentence of the same
// chunk ties to them (a bridge).
func TestQuestionNameReachedThroughABridge(t *testing.T) {
	q := "Where is the company that bought Harbour Air based?"
	linked := []string{"In 2019 Quay Group announced that it had bought Harbour Air. Quay Group is based in Portland, Maine."}
	unlinked := []string{"In 2019 Quay Group announced that it had bought Harbour Air. Tide Holdings is based in Portland, Maine."}
	apart := []string{"In 2019 Quay Group announced that it had bought Harbour Air.", "Quay Group is based in Portland, Maine."}
	// The bridge is the thing the supporting sentence is about: through
	// its pronoun too.
	filmQ := "Who directed the 2004 film that was shot at the Harbor Diner?"
	film := []string{"The Harbor Diner appeared in films such as Night Shift and Low Tide. Night Shift is a 2004 film. It was directed by Lena Park."}
	checkSupport(t, []supportCase{
		{"the buyer is the bridge", q, "The company that bought Harbour Air is based in Portland, Maine.", linked, 1, ""},
		{"nothing ties the company to the airline", q, "The company that bought Harbour Air is based in Portland, Maine.", unlinked, 0, ""},
		{"a wrong city through the bridge", q, "The company that bought Harbour Air is based in Augusta, Maine.", linked, 0, ""},
		{"the bridge is in the same chunk", q, "The company that bought Harbour Air is based in Portland, Maine.", apart, 0, ""},
		{"through the pronoun's name", filmQ, "The 2004 film that was shot at the Harbor Diner was directed by Lena Park.", film, 1, ""},
	})
}

// Not a restatement of the question: its names are claims of its own.
func TestNoBridgeOutsideARestatement(t *testing.T) {
	q := "Which films of the 1990s were shot at the Harbor Diner, the oldest diner in Maine?"
	ctx := []string{"The Harbor Diner, the oldest diner in Maine, appeared in films such as Night Shift. Night Shift was directed by Lena Park."}
	checkSupport(t, []supportCase{
		{"a new claim about the diner", q, "Lena Park directed every film at the Harbor Diner.", ctx, 0, ""},
	})
	// A statement that opens on the question's name says something of
	// it: no bridge stands in for a sentence about it.
	st := analyze("Harbour Air is based in Portland, Maine.")
	if !opensOn(st, "w:air") || opensOn(st, "w:portland") {
		t.Errorf("opensOn: want the opening name only")
	}
	if !opensOn(analyze("The answer is Harbour Air, based in Portland."), "w:harbour") {
		t.Errorf("opensOn: the frame's words come before the name")
	}
}

// A question's name that the statement makes its subject (one of the
// question's alternatives) is what it speaks of: the sentence names it
// whole, or writes its head as a name.
func TestTheStatementsSubjectIsNoPremise(t *testing.T) {
	q := "Which research university is located in Harbourton, Quay College or Tide University?"
	ctx := []string{"Quay College is a private research university located in Harbourton."}
	mvpQ := "In which game was Ann Lee named the best player?"
	mvp := []string{"Lee was named the best player of the Harbour Cup after the final."}
	checkSupport(t, []supportCase{
		{"the alternative the context places there", q, "Quay College is located in Harbourton.", ctx, 1, ""},
		{"the other alternative", q, "Tide University is located in Harbourton.", ctx, 0, "Tide"},
		{"the family name written as a name", mvpQ, "Ann Lee was named the best player in the Harbour Cup.", mvp, 1, ""},
	})
}
