package offline

import "testing"

// A statement that opens on the question's name says something of it.
func TestOpensOn(t *testing.T) {
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
