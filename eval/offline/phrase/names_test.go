package phrase

import (
	"slices"
	"strings"
	"testing"
)

// A name is one thing as written: markup and the article are not the name.
func TestNameRuns(t *testing.T) {
	for text, want := range map[string]string{
		"**Fare:** 480 Taka [Source: routes.pdf] and Band of Brothers play with the Harbour Band.": "Band of Brothers|Harbour Band",                               // markup and the article are not the name
		"Orvel Cloud's Basic Plan allows 25 users.":                                                "Orvel Cloud's|Basic Plan",                                    // the owner's name ends at its 's
		"Mira Delane Okafor (Igbo: Mira Okafor) wrote Harbour Lights (Kestrel Press).":             "Mira Delane Okafor|Mira Okafor|Harbour Lights|Kestrel Press", // a bracket opens another name
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

// TestLinksByAVariantOfAName: a company named without its suffix, and a
// person by a short form of the first name, are one name; two people who
// share only a surname are not.
func TestLinksByAVariantOfAName(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"Quaytel bought Harbourcom's Kent operations in 1998.", "Harbourcom Corporation was a telecoms company based in Dover.", true},
		{"The film stars Pam Veasey as the mayor.", "Pamela Renea Veasey (born 1962) is a writer.", true},
		{"The film stars Ann Veasey as the mayor.", "Pamela Renea Veasey (born 1962) is a writer.", false},
	} {
		if got := Links(MentionsOf(tt.a), MentionsOf(tt.b)); got != tt.want {
			t.Errorf("Links(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestAnswerType: the kind a "which"/"what" question asks for, and the
// names a sentence gives as of that kind.
func TestAnswerType(t *testing.T) {
	for _, tt := range []struct {
		question string
		want     []string
	}{
		{"Which American animated television series created by Ann Lee features Quill?", []string{"televis", "sery"}},
		{"In which football game was Bo Chen named Most Valuable Player?", []string{"football", "gam"}},
		{"Which publishing company has published Harbour?", []string{"publish", "company"}},
		{"What type of species is the quay beetle?", nil},
		{"Which Ann Lee founded institution was controlled by the church?", []string{"found", "institut"}},
		{"Who founded Harbourco?", nil},
	} {
		if got := AnswerType(tt.question); !slices.Equal(got, tt.want) {
			t.Errorf("AnswerType(%q) = %q, want %q", tt.question, got, tt.want)
		}
	}
	retailer := AnswerType("What retailer is the second-largest in Kent?")
	for _, tt := range []struct {
		sentence string
		want     []string
	}{
		{"Quaymart is the second-largest discount store retailer in Kent, behind Harbourco.", []string{"Quaymart"}},
		{"Ann Lee appeared in commercials for the retailer Quaymart.", []string{"Quaymart"}},
		{"She played a retailer Quaymart had hired.", nil},
		{"It is the largest retailer in Kent.", nil},
		{"\"Done\" is an episode of the show about the retailer Quaymart.", []string{"Quaymart"}},
		{"The shop was opened by the retailer Ann T. Lee in 1990.", []string{"Ann T. Lee"}},
	} {
		if got := TypedNames(tt.sentence, retailer); !slices.Equal(got, tt.want) {
			t.Errorf("TypedNames(%q) = %q, want %q", tt.sentence, got, tt.want)
		}
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
