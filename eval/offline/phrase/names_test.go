package phrase

import (
	"strings"
	"testing"
)

// A name is one thing as written: markup and the article are not the name.
func TestNameRuns(t *testing.T) {
	for text, want := range map[string]string{
		"**Fare:** 480 Taka [Source: routes.pdf] and Band of Brothers play with the Harbour Band.": "Band of Brothers|Harbour Band", // markup and the article are not the name
		"Orvel Cloud's Basic Plan allows 25 users.":                                                "Orvel Cloud's|Basic Plan",      // the owner's name ends at its 's
	} {
		if got := NameRuns(text); strings.Join(got, "|") != want {
			t.Errorf("NameRuns(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestLinksBothWays: two sentences that write one name of two or more
// words are linked whichever comes first, though one writes more after it
// (an abbreviation in brackets).
func TestLinksBothWays(t *testing.T) {
	a := MentionsOf("Hale Units 1 and 2 were started by the Northgate Public Power Board (NPPB) in 1971.")
	b := MentionsOf("Kestrel Energy (formerly Northgate Public Power Board) is a public agency formed in 1957.")
	if !Links(a, b) || !Links(b, a) {
		t.Errorf("Links = %v, %v; want true both ways", Links(a, b), Links(b, a))
	}
}

// A sentence's subject is a pronoun at its opening or after a short
// opening phrase; the name a sentence opens on is read as written.
func TestSubjectPronounAndOpeningName(t *testing.T) {
	for text, want := range map[string]bool{
		"He was born in Leeds.":                           true,
		"In 2007, he was inducted.":                       true,
		"Self-released in 2004, it features Bo Chen.":     true,
		"After the war ended in Europe, she moved.":       true,
		"His wife was a singer.":                          false,
		"Harbour Days is a film.":                         false,
		"In the summer of that long year, he moved away.": false, // too long an opening to be sure
	} {
		if got := SubjectPronoun(text); got != want {
			t.Errorf("SubjectPronoun(%q) = %v, want %v", text, got, want)
		}
	}
	for text, want := range map[string]string{
		"The Quay Gesture (Welsh: Ystum) is a 1981 film.": "Quay Gesture",
		"Tom Reed (born 1954) is a vocalist.":             "Tom Reed",
		"Reed became a commentator.":                      "Reed",
		"Bank of Kent, the lender, grew.":                 "Bank of Kent",
		"The film was shot in Kent.":                      "",
		"In 2007, he was inducted.":                       "",
	} {
		if got := OpeningName(text); got != want {
			t.Errorf("OpeningName(%q) = %q, want %q", text, got, want)
		}
	}
}
