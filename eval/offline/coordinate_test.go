package offline

import (
	"slices"
	"strings"
	"testing"
)

// A statement about two names ("A and B are both ...") says it of each;
// no one sentence need name both, and each name's own sentence must say
// it of that name.
func TestCoordinationIsSaidOfEachName(t *testing.T) {
	boats := []string{"Harbour Belle is a sailing ship built in Kent in 1921. Quay Star is a steam ship built in Leith in 1930."}
	bothQ := "Are Harbour Belle and Quay Star both ships?"
	cities := []string{"Harbourton is a port city in the south of Freedonia.", "Quayside is a market town in the north of Freedonia."}
	checkSupport(t, []supportCase{
		{"each ship in its own sentence", bothQ, "Yes: Harbour Belle and Quay Star both ships", boats, 1, "says it of each of two"},
		{"a predicate one of them lacks", bothQ, "Harbour Belle and Quay Star are both sailing ships.", boats, 0, ""},
		{"a verb after the names", "", "Harbourton and Quayside are in Freedonia.", cities, 1, "says it of each of two"},
		{"a place neither sentence gives", "", "Harbourton and Quayside are in Ruritania.", cities, 0, ""},
		// A collective predicate is said of the two together.
		{"the same year is no claim of each", "", "Harbour Belle and Quay Star were built in the same year.", boats, 0, ""},
		// Each conjunct is said of its own name: a sentence about the
		// other one does not support it.
		{"the other name's sentence", "Harbourton and Quayside, are located in which region?", "Harbourton and Quayside are located in the south.", cities, 0, ""},
	})
}

// "Both" with no names stands for the two the question coordinates:
// "Yes, both ships were built in Kent" is said of each.
func TestBothStandsForTheQuestionsTwo(t *testing.T) {
	q := "Were Harbour Belle and Quay Star both built in Kent?"
	ctx := []string{"Harbour Belle is a sailing ship built in Kent in 1921.", "Quay Star is a steam ship built in Leith in 1930."}
	kent := []string{"Harbour Belle is a sailing ship built in Kent in 1921.", "Quay Star is a steam ship built in Kent in 1930."}
	for _, tt := range []struct {
		answer string
		ctx    []string
		want   float64
	}{
		{"Yes, both ships were built in Kent.", ctx, 0},
		{"Yes, both were built in Kent.", ctx, 0},
		{"Yes, both of them were built in Kent.", ctx, 0},
		{"Yes, both ships were built in Kent.", kent, 1},
		{"Yes, both were built in Kent.", kent, 1},
	} {
		if got, _ := Faithfulness(q, tt.answer, tt.ctx); got != tt.want {
			t.Errorf("%q against %q: %v, want %v", tt.answer, tt.ctx[1], got, tt.want)
		}
	}
	// A name with a lowercase word and "and" in it ("Gin and tonic") is
	// one where a sentence writes it whole.
	drinks := []string{"A gin and tonic is a highball cocktail made with gin and tonic water.", "The paloma is a tequila-based cocktail."}
	if got, _ := Faithfulness("Are Gin and tonic and Paloma both cocktails based on tequila?", "Yes, both cocktails are tequila-based.", drinks); got != 0 {
		t.Errorf("both cocktails tequila-based scored %v, want 0: the gin and tonic is not", got)
	}
	if _, ok := ofPair("Both ships were built in Kent.", "Which ships were built in Kent?", nil, spansOf(ctx)); ok {
		t.Errorf("a question without two names decided the statement")
	}
	// A "both" that stands for the question's two is decided by each, even
	// where the question restated around one sentence's words would pass.
	authors := []string{"Mara Quill (born 1950) is an American author of spy novels.", "Tobias Fenn, known by his pen name Rook Vale, is a British author of thrillers."}
	for _, tt := range []struct {
		answer string
		want   float64
	}{
		{"Both are American authors.", 0},
		{"Both are authors.", 1},
	} {
		if got, _ := Faithfulness("Mara Quill and Rook Vale are what?", tt.answer, authors); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.answer, got, tt.want)
		}
	}
}

func TestCoordinationInChinese(t *testing.T) {
	ctx := []string{"甲公司的总部设在上海浦东。", "乙公司的总部设在上海闵行。"}
	// "两家机构…都" stands for the two the question names; each is named by
	// its name in its chunk, not by a pair of characters it shares (种子).
	banks := []string{"松溪种子信托由钱正安于1995年发起，总部设在雾川市。", "梅台传统种子库成立于2003年。它的种子仓库和办公室都设在鹤汀市。"}
	same := []string{"松溪种子信托的总部设在雾川市。", "梅台传统种子库成立于2003年，总部设在雾川市北郊。"}
	banksQ := "松溪种子信托和梅台传统种子库的总部在同一座城市吗？"
	for _, tt := range []struct {
		ctx  []string
		want float64
	}{{banks, 0}, {same, 1}} {
		if got, _ := Faithfulness(banksQ, "是的，两家机构的总部都设在雾川市。", tt.ctx); got != tt.want {
			t.Errorf("两家…都 against %q: %v, want %v", tt.ctx[1], got, tt.want)
		}
	}
	// Each is tested on the sentences about it: the other's closer wording
	// ("同样在市民会堂举行") does not decide for it.
	bands := []string{"清河少年乐团成立于1978年。乐团每年在市民会堂举办三场音乐会。", "素弦合奏团由聂远舟创办。它的大部分音乐会同样在市民会堂举行。"}
	if got, _ := Faithfulness("清河少年乐团与素弦合奏团有什么共同点？", "两个乐团的音乐会大多都在市民会堂举行。", bands); got != 1 {
		t.Errorf("两个乐团…都 said of each in its own sentence scored %v, want 1", got)
	}
	checkSupport(t, []supportCase{
		{"都 distributes", "", "甲公司和乙公司的总部都设在上海。", ctx, 1, "says it of each of two"},
		{"one of them elsewhere", "", "甲公司和乙公司的总部都设在北京。", ctx, 0, ""},
		{"相同 is collective", "", "甲公司和乙公司的总部都设在相同的城市。", ctx, 0, ""},
	})
}

// The denial of a coordinated proposition is supported when the context
// contradicts one of its conjuncts.
func TestDenialOfACoordination(t *testing.T) {
	q := "Are Harbour Belle and Quay Star both sailing ships?"
	ctx := []string{"Harbour Belle is a sailing ship built in Kent in 1921. Quay Star is not a sailing ship: it is a steam ship built in Leith."}
	if got, _ := Faithfulness(q, "No.", ctx); got != 1 {
		t.Errorf("a denial the context backs for one name scored %v, want 1", got)
	}
	silent := []string{"Harbour Belle is a sailing ship built in Kent in 1921. Quay Star was built in Leith in 1930."}
	if got, _ := Faithfulness(q, "No.", silent); got != 0 {
		t.Errorf("a denial the context is silent on scored %v, want 0", got)
	}
}

// "Only A" to a question of two says the other is not so: it holds when the
// context contradicts that, not when it is silent on the other.
func TestOnlyOneOfTwo(t *testing.T) {
	q := "Are Harbour Belle and Quay Star both sailing ships?"
	for _, tt := range []struct {
		answer string
		ctx    string
		want   float64
	}{
		{"No, only Harbour Belle is a sailing ship.", "Harbour Belle is a sailing ship built in Kent. Quay Star is not a sailing ship: it is a steam ship.", 1},
		{"No, only the Harbour Belle is a sailing ship.", "Harbour Belle is a sailing ship built in Kent. Quay Star is a cargo vessel built in Leith.", 0},
		{"No, only Quay Star is a sailing ship.", "Harbour Belle is a sailing ship built in Kent. Quay Star is not a sailing ship: it is a steam ship.", 0},
		{"The answer is no, only Harbour Belle is a sailing ship.", "Harbour Belle is a sailing ship built in Kent. Quay Star is a cargo vessel built in Leith.", 0},
	} {
		if got, _ := Faithfulness(q, tt.answer, []string{tt.ctx}); got != tt.want {
			t.Errorf("%q against %q: %v, want %v", tt.answer, tt.ctx, got, tt.want)
		}
	}
	// A question's opening auxiliary is no word of its first name, and a
	// name takes in the lowercase words a sentence writes with it.
	drinks := spansOf([]string{"A grasshopper is an after-dinner drink. The sake bomb is a beer cocktail."})
	var names []string
	for _, c := range conjuncts("Are Grasshopper and Sake bomb both drinks?", drinks) {
		names = append(names, c.Name)
	}
	if want := []string{"Grasshopper", "Sake bomb"}; !slices.Equal(names, want) {
		t.Errorf("the question's two names = %q, want %q", names, want)
	}
}

func TestConjuncts(t *testing.T) {
	sents := spansOf([]string{"Quay Players is an American rock band."})
	tests := []struct {
		text string
		want []string
	}{
		{"Yes: both The Harbour Lights and Quay Players American rock bands", []string{"Yes: The Harbour Lights American rock bands", "Yes: Quay Players American rock bands"}},
		{"Both Ann Lee and Bo Chen are painters.", []string{"Ann Lee are painters.", "Bo Chen are painters."}},
		{"Ann Lee met Bo Chen and Cy Dunn.", nil},
		{"Ann Lee and Bo Chen are married.", nil},
		{"是的，甲和乙都是上市公司", []string{"是的，甲是上市公司", "是的，乙是上市公司"}},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range conjuncts(tt.text, sents) {
			got = append(got, c.Text)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("conjuncts(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestDenialOfBothNeedsAContradiction: a "no" to "both A and B" holds when
// the context contradicts it of one; a context about A alone, silent about
// B, contradicts nothing.
func TestDenialOfBothNeedsAContradiction(t *testing.T) {
	q := "Do both Quaymark and Tidewell include single sign-on?"
	for _, tt := range []struct {
		name string
		ctx  []string
		want float64
	}{
		{"silent about one", []string{"Quaymark includes single sign-on and audit logs."}, 0},
		{"contradicted of one", []string{"Quaymark includes single sign-on and audit logs.", "Tidewell does not include single sign-on."}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := Faithfulness(q, "No.", tt.ctx); got != tt.want {
				t.Errorf("Faithfulness = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDenialByAnotherDemonym: a "no" to a nationality asked of two holds
// when the context gives one of them another (its own demonym is the value,
// not a premise of the question); a nationality the context does not give
// contradicts nothing.
func TestDenialByAnotherDemonym(t *testing.T) {
	q := "Ada Brook and Cy Dunn, are Chilean?"
	for _, tt := range []struct {
		name string
		ctx  []string
		want float64
	}{
		{"another demonym", []string{"Ada Brook (born 1961) is a Japanese painter and poet.", "Cy Dunn is a Chilean sculptor."}, 1},
		{"both as asked", []string{"Ada Brook (born 1961) is a Chilean painter and poet.", "Cy Dunn is a Chilean sculptor."}, 0},
		{"silent about one", []string{"Ada Brook (born 1961) is a painter and poet.", "Cy Dunn is a Chilean sculptor."}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := Faithfulness(q, "No.", tt.ctx); got != tt.want {
				t.Errorf("Faithfulness = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestNotBoth: "A and B are not both X" denies that both are, and holds
// when the context contradicts it of one; it is not "not X" said of each
// (which a context that gives B as X would refute, and one silent about A's
// being X would not support).
func TestNotBoth(t *testing.T) {
	bands := []string{"Harbour Belle is a Canadian indie rock band formed in 1997.", "Quay Star is an American rock band formed in Nashville in 1999."}
	people := []string{"Ada Brook (born 1975) is an American filmmaker.", "Cy Dunn was an American film and television actor."}
	for _, tt := range []struct {
		question, answer string
		ctx              []string
		want             float64
	}{
		{"Are Harbour Belle and Quay Star both American rock bands?", "No, Harbour Belle and Quay Star are not both American rock bands.", bands, 1},
		{"Are Harbour Belle and Quay Star both American rock bands?", "Harbour Belle and Quay Star aren't both American rock bands.", bands, 1},
		{"Are Ada Brook and Cy Dunn both actors?", "No, Ada Brook and Cy Dunn are not both actors.", people, 0},
	} {
		if got, _ := Faithfulness(tt.question, tt.answer, tt.ctx); got != tt.want {
			t.Errorf("%q: faithfulness %v, want %v", tt.answer, got, tt.want)
		}
	}
}

// TestDemonymConflict: a demonym is a value, as a weekday is: another
// one where the statement's should be is a conflict; one of a compound is
// the context's own.
func TestDemonymConflict(t *testing.T) {
	ctx := []string{"Cy Dunn is a Scottish-Australian sculptor based in Perth."}
	for _, tt := range []struct {
		statement string
		want      int
		reason    string
	}{
		{"Cy Dunn is an Australian sculptor.", 1, ""},
		{"Cy Dunn is a Canadian sculptor.", 0, "says Canadian where the context gives Scottish"},
	} {
		ev := Support(tt.statement, "", ctx)
		if ev.Verdict != tt.want || !strings.Contains(ev.Reason, tt.reason) {
			t.Errorf("%q: verdict %d, want %d: %s", tt.statement, ev.Verdict, tt.want, ev.Reason)
		}
	}
}

// TestDenialBySameValues: a "no" to "the same country" is contradicted by
// two sentences of one chunk that give each its own.
func TestDenialBySameValues(t *testing.T) {
	ctx := []string{"Quaymark is a software company founded in Norway in 1997. Tidewell is a software company founded in Chile in 2004."}
	if got, _ := Faithfulness("Were Quaymark and Tidewell founded in the same country?", "No.", ctx); got != 1 {
		t.Errorf("Faithfulness = %v, want 1", got)
	}
}

// TestNestedClaim: a statement whose subject carries a claim of its own
// (a relative clause, an apposition) is supported when both claims are,
// each by its own sentence; a wrong aside or a wrong main claim is not. A
// sentence names a person by the surname its chunk writes whole before
// ("Venn had studied …").
func TestNestedClaim(t *testing.T) {
	ctx := []string{"Harrowmere Clockworks was founded by Edwin Calloway in 1862. Calloway's successor as master of the workshop was his nephew, Arthur Venn, who took over in 1899. Venn had studied mechanical drawing at the Dunmore Institute and introduced the firm's first tower clocks."}
	q := "Where did the man who succeeded the founder of Harrowmere Clockworks study mechanical drawing?"
	checkSupport(t, []supportCase{
		{"both claims", q, "Arthur Venn, who took over from Edwin Calloway in 1899, studied mechanical drawing at the Dunmore Institute.", ctx, 1, "says two things"},
		{"the main claim wrong", q, "Arthur Venn, who took over from Edwin Calloway in 1899, studied mechanical drawing in Lenholt.", ctx, 0, ""},
		{"the aside wrong", q, "Arthur Venn, who took over from Edwin Calloway in 1911, studied mechanical drawing at the Dunmore Institute.", ctx, 0, ""},
	})
}
