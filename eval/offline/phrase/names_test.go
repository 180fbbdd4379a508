package phrase

import (
	"strings"
	"testing"
)

// A name is one thing as written: markup and the article are not the name.
func TestNameRuns(t *testing.T) {
	if got := NameRuns("**Fare:** 480 Taka [Source: routes.pdf] and Band of Brothers play with the Harbour Band."); strings.Join(got, "|") != "Band of Brothers|Harbour Band" {
		t.Errorf("NameRuns = %q, want Band of Brothers and Harbour Band (markup and the article are not the name)", got)
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
