package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// A yes or a no to "Do X and Y have the same nationality?" (state,
// country, year, family) is checked on the value the contexts give each
// thing in a sentence of its own; a context that gives one of them none,
// or speaks of both in one sentence, leaves it to the support test.
func TestSameAttributeByValues(t *testing.T) {
	natQ := "Do musicians Ann Lee and Bo Chen have the same nationality?"
	differ := []string{"Ann Lee (born March 11, 1953) is an American musician and record producer.",
		"Robert Swan (born 28 April 1956), better known as Bo Chen, is a Scottish-Australian rock singer."}
	agree := []string{"Ann Lee (born March 11, 1953) is an American musician.", "Bo Chen is an American film producer and writer."}
	silent := []string{"Ann Lee (born March 11, 1953) is an American musician.", "Bo Chen is a rock singer and songwriter."}
	together := []string{"Ann Lee and Bo Chen are American musicians."}
	surname := []string{"Annabel Jane Lee (born 1956) is an American producer.", "Bo Chen (born 1957) was a Dutch film director."}
	yearQ := "Were Harbour Days and The Quay Gesture released in the same year?"
	years := []string{"Harbour Days is a 2009 American computer-animated film.", "\"The Quay Gesture (Welsh: Ystum)\" is a 2009 Welsh animated film."}
	stateQ := "Were Quay Pizza and Harbour Pie founded in the same state?"
	states := []string{"Quay Pizza was a buffet-style restaurant chain founded in Arizona in 1997.",
		"Harbour Pie is an American pizza concept, that was started in Athens, Georgia in 2008."}
	countryQ := "Are Quay Cola and Harbour Foods based in the same country?"
	countries := []string{"As of 2012, Quay Cola is the leader in the cola segment in India.", "Harbour Foods is an American company that makes apple juice."}
	familyQ := "Is Quaya and Harbouria in the same family?"
	families := []string{"Quaya is a genus in the family Araceae.", "Harbouria ( ), (whiteweed in the USA), is a genus of 40 flowering annuals from the family Asteraceae, tribe Eupatorieae."}
	for _, tt := range []struct {
		name, q, answer string
		ctx             []string
		want            float64
		reason          string
	}{
		{"different nationalities, no", natQ, "no", differ, 1, "context gives Ann Lee american"},
		{"different nationalities, yes", natQ, "yes", differ, 0, "not the same nationality (comparison conflict)"},
		{"the same nationality, yes", natQ, "yes", agree, 1, "the same nationality"},
		{"the same nationality, no", natQ, "No, they do not have the same nationality.", agree, 0, "which the answer denies (comparison conflict)"},
		{"one nationality missing", natQ, "no", silent, 0, "no context sentence contradicts"},
		{"both in one sentence", natQ, "no", together, 0, "no context sentence contradicts"},
		{"a name written in full", natQ, "no", surname, 1, "Lee american"},
		{"the same year", yearQ, "yes", years, 1, "2009"},
		{"different states", stateQ, "no", states, 1, "not the same state"},
		{"a country by its demonym", countryQ, "no", countries, 1, "Harbour Foods united states"},
		{"different families", familyQ, "no", families, 1, "araceae"},
		{"different families, yes", familyQ, "yes", families, 0, "comparison conflict"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if s, ok := Faithfulness(tt.q, tt.answer, tt.ctx); !ok || s != tt.want {
				t.Fatalf("Faithfulness(%q) = %v, %v; want %v", tt.answer, s, ok, tt.want)
			}
			j := New()
			smp := &eval.Sample{Question: tt.q, Answer: tt.answer, Contexts: tt.ctx}
			st, _ := j.Statements(context.Background(), smp)
			vs, err := j.Verdicts(context.Background(), smp, st)
			if err != nil || len(vs) != 1 || !strings.Contains(vs[0].Reason, tt.reason) {
				t.Errorf("verdicts %+v, %v; want one whose reason has %q", vs, err, tt.reason)
			}
		})
	}
	for _, tt := range []struct{ q, x, y, attr string }{
		{natQ, "Ann Lee", "Bo Chen", "nationality"},
		{"Are Randal Kleiser and Kyle Schickner of the same nationality?", "Randal Kleiser", "Kyle Schickner", "nationality"},
		{"Are Thums Up and Mott's based in the same country?", "Thums Up", "Mott's", "country"},
		{"Were Up and The Watercolor released in the same year?", "Up", "The Watercolor", "year"},
		{"Do filmmakers Chris Carter and Theo van Gogh share the same nationality?", "Chris Carter", "Theo van Gogh", "nationality"},
		{"Are Ann Lee and Bo Chen both American?", "", "", ""},
		{"Were Ann Lee and Bo Chen known for the same type of work?", "", "", ""},
		{"Which band has the same name as Bo Chen?", "", "", ""},
	} {
		x, y, attr, ok := sameQuestion(tt.q)
		if ok != (tt.attr != "") || x != tt.x || y != tt.y || attr != tt.attr {
			t.Errorf("sameQuestion(%q) = %q, %q, %q, %v; want %q, %q, %q", tt.q, x, y, attr, ok, tt.x, tt.y, tt.attr)
		}
	}
}

// A statement that puts its subject in one family is contradicted by a
// context sentence that names the subject and gives it another; a bare
// no to "Do both X and Y belong to the family F?" is supported by that.
func TestFamilyValueConflict(t *testing.T) {
	ctx := []string{"Quayberries are plants in the genus Quaya of the cypress family Cupressaceae.",
		"Harbouria is a large genus of over 750 species of flowering plants belonging to the family Fabaceae."}
	for _, tt := range []struct {
		statement string
		want      int
		detector  string
	}{
		{"Harbouria belongs to the family Cupressaceae.", 0, DetectorValue},
		{"Harbouria belongs to the family Fabaceae.", 1, ""},
		{"Harbouria is a genus of flowering plants.", 1, ""},
	} {
		ev := Support(tt.statement, "", ctx)
		if ev.Verdict != tt.want || ev.Detector != tt.detector {
			t.Errorf("Support(%q) = %+v, want verdict %d, detector %q", tt.statement, ev, tt.want, tt.detector)
		}
	}
	q := "Do both Quayberry and Harbouria belong to the cypress family Cupressaceae?"
	if s, ok := Faithfulness(q, "no", ctx); !ok || s != 1 {
		t.Errorf("no: %v, %v; want 1 (the context gives Harbouria another family)", s, ok)
	}
	if s, _ := Faithfulness(q, "yes", ctx); s == 1 {
		t.Errorf("yes: %v; want less than 1", s)
	}
}
