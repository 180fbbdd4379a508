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

// A chunk cut from its name refers to its thing by a bare description
// ("The platform was launched ..."), and so to what the question names,
// though another chunk names it.
func TestAChunkCutFromItsName(t *testing.T) {
	q := "When was the Quayline platform launched?"
	named := "Quayline is sold in three tiers."
	cut := []string{"The platform was launched in March 2019. The platform has served forty banks since 2021.", named}
	other := []string{"Harbour Pay is a payments app. The platform was launched in March 2019.", named}
	modified := []string{"The first platform that the bank built was launched in March 2019 and serves forty banks.", named}
	checkSupport(t, []supportCase{
		{"the chunk's description stands for the question's name", q, "The Quayline platform was launched in March 2019.", cut, 1, ""},
		{"its sentence after another bare description", q, "The Quayline platform serves forty banks.", cut, 1, ""},
		{"a wrong date is still a conflict", q, "The Quayline platform was launched in May 2020.", cut, 0, ""},
		{"the description follows another name", q, "The Quayline platform serves forty banks.", other, 0, ""},
		{"a description with words of its own is no reference", q, "The Quayline platform serves forty banks.", modified, 0, "unsupported name"},
	})
}
