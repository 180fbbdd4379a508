package offline

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// One test per failure class of issue 16, each on an example written in
// the shape of the public data where the class was found.

func TestFramedAndShortAnswers(t *testing.T) {
	zh := []string{"澳大利亚的首都是堪培拉，而不是悉尼。英格兰是英国的一个构成国。"}
	en := []string{"Canberra is the capital of Australia."}
	tests := []struct {
		name, q, answer string
		ctx             []string
		want            int
	}{
		{"zh framed", "澳大利亚的首都在哪", "答案是堪培拉。", zh, 1},
		{"zh framed 答案为", "澳大利亚的首都在哪", "答案为堪培拉", zh, 1},
		{"zh framed 是X", "澳大利亚的首都在哪", "是堪培拉。", zh, 1},
		{"en framed", "What is the capital of Australia?", "The answer is Canberra.", en, 1},
		{"en framed wrong", "What is the capital of Australia?", "The answer is Sydney.", en, 0},
		{"zh bare", "澳大利亚的首都在哪", "堪培拉", zh, 1},
		// 英 and 国 are both in the context, but not the word 英国 as the
		// answer means it: only in 英格兰 and 构成国.
		{"zh short loose characters", "英格兰是哪里的构成国", "法国", zh, 0},
		{"zh short contiguous", "英格兰是哪里的构成国", "英国", zh, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := Faithfulness(tt.q, tt.answer, tt.ctx)
			if !ok || int(s) != tt.want {
				t.Errorf("Faithfulness(%q) = %v, %v; want %d", tt.answer, s, ok, tt.want)
			}
		})
	}
	if s, _ := Faithfulness("哪个国家", "英国", []string{"英格兰队赢了。这个国家很小。"}); s != 0 {
		t.Errorf("英国 against 英格兰 + 国家 in two sentences: %v, want 0", s)
	}
	if s, _ := Faithfulness("哪个国家", "英国", []string{"英格兰是一个国家。"}); s != 0 {
		t.Errorf("英国 against 英格兰 + 国家 in one sentence: %v, want 0", s)
	}
}

func TestBareYesNoAssertsTheQuestion(t *testing.T) {
	q := "Are both the Harbour Line and the Quay Line electric railways?"
	ctx := []string{"The Harbour Line and the Quay Line are both electric railways run by the port."}
	for _, tt := range []struct {
		answer string
		want   []string
		score  float64
	}{
		{"yes", []string{"Yes: the Harbour Line is electric railways", "Yes: the Quay Line is electric railways"}, 1},
		{"Yes.", []string{"Yes: the Harbour Line is electric railways", "Yes: the Quay Line is electric railways"}, 1},
		{"no", []string{"No, not both the Harbour Line and the Quay Line electric railways"}, 0},
		{"The answer is no.", []string{"No, not both the Harbour Line and the Quay Line electric railways"}, 0},
	} {
		got := StatementsFor(q, tt.answer)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("StatementsFor(%q) = %q, want %q", tt.answer, got, tt.want)
		}
		if s, ok := Faithfulness(q, tt.answer, ctx); !ok || s != tt.score {
			t.Errorf("Faithfulness(%q) = %v, %v; want %v", tt.answer, s, ok, tt.score)
		}
	}
	if got := StatementsFor("Is the Quay Line electric?", "yes"); !reflect.DeepEqual(got, []string{"Yes: the Quay Line electric"}) {
		t.Errorf("StatementsFor(yes about one thing) = %q", got)
	}
	if got := StatementsFor("示例大桥是否已经通车？", "是的"); len(got) != 1 || got[0] != "是的，示例大桥已经通车" {
		t.Errorf("StatementsFor(zh yes) = %q", got)
	}
	if got := StatementsFor(q, "The Quay Line is electric."); len(got) != 1 || got[0] != "The Quay Line is electric." {
		t.Errorf("an answer with content keeps its own statements: %q", got)
	}
}

func TestAbbreviationsDoNotSplitSentences(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Mr. Smith moved to St. Louis in 1990. He opened a bakery.", []string{"Mr. Smith moved to St. Louis in 1990.", "He opened a bakery."}},
		{"The case Roe v. Wade was decided in 1973. It was overturned later.", []string{"The case Roe v. Wade was decided in 1973.", "It was overturned later."}},
		{"The song reached No. 1 on the chart. See p. 4 for details.", []string{"The song reached No. 1 on the chart.", "See p. 4 for details."}},
		{"Dr. Ann Lee leads the lab.", []string{"Dr. Ann Lee leads the lab."}},
		// A ! or ? in a title does not end the sentence when the next
		// word is in lower case; one that ends a sentence still does.
		// A semicolon inside a parenthesis that closes does not cut the
		// sentence; one after a parenthesis that never closes does.
		{"Ann Lee (painter; born 4 May 1950) is a painter from Leeds; she lives in Hull.",
			[]string{"Ann Lee (painter; born 4 May 1950) is a painter from Leeds", "she lives in Hull."}},
		{"Bo Chen ( ; a poet; lives in Hull.", []string{"Bo Chen (", "a poet", "lives in Hull."}},
		{`He hosted "Game On", "You Bet!" and "Stars in Their Eyes". Jeopardy! is a quiz show. Is it? Yes, it is!`,
			[]string{`He hosted "Game On", "You Bet!" and "Stars in Their Eyes".`, "Jeopardy! is a quiz show.", "Is it?", "Yes, it is!"}},
	}
	for _, tt := range tests {
		if got := sentencesOf(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("sentencesOf(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestWordsThatLookNegatedAreNot(t *testing.T) {
	for _, tt := range []struct {
		text string
		negs int
	}{
		{"The single reached No. 1 on the Billboard chart.", 0},
		{"It reached no 1 in May.", 0},
		{"The Harbour Trust is a not-for-profit organisation.", 0},
		{"It is a no-fly zone.", 0},
		{"The trust does not make a profit.", 1},
		{"There is no charge - entry is free.", 1},
	} {
		n := 0
		for _, c := range analyze(tt.text).clauses {
			n += len(c.negs)
		}
		if n != tt.negs {
			t.Errorf("analyze(%q): %d negations, want %d", tt.text, n, tt.negs)
		}
	}
	ev := Support("The Harbour Trust is a not-for-profit organisation that runs the museum.", "Who runs the museum?",
		[]string{"The museum is run by the Harbour Trust, a not-for-profit organisation founded in 1901."})
	if ev.Detector == DetectorNegation {
		t.Errorf("not-for-profit on both sides fired the negation detector: %+v", ev)
	}
}

// A name the question gives, referred to by a pronoun in the sentence
// that supports the answer, is found in the sentence before.
func TestQuestionNameInNeighbouringSentence(t *testing.T) {
	ctx := []string{"Ewan Harlow was a folk singer from Salford. He was married to Peggy Rowe, an American folksinger."}
	q := "What nationality was Ewan Harlow's wife?"
	if ev := Support("Ewan Harlow's wife was American.", q, ctx); ev.Verdict != 1 {
		t.Errorf("Support = %+v, want supported: the wife's sentence opens with He, the name is the sentence before", ev)
	}
	if ev := Support("Ewan Harlow's wife was Scottish.", q, ctx); ev.Verdict != 0 {
		t.Errorf("Support = %+v, want unsupported", ev)
	}
	// Without a pronoun the sentence is about someone else: the name
	// must be in it.
	ctx2 := []string{"Ewan Harlow was a folk singer from Salford. Peggy Rowe is an American folksinger."}
	if ev := Support("Ewan Harlow's wife was American.", q, ctx2); ev.Verdict != 0 {
		t.Errorf("Support = %+v, want unsupported: nothing says Peggy Rowe is his wife", ev)
	}
}

func TestMarkupIsNotContent(t *testing.T) {
	sp := analyze("*   **Fare:** 480 Taka [Source: routes.pdf, p. 1]")
	var vals []string
	for _, q := range sp.quants {
		vals = append(vals, q.value)
	}
	if !reflect.DeepEqual(vals, []string{"480"}) || sp.feats["w:source"] || sp.feats["w:pdf"] {
		t.Errorf("quantities %q, features %v: the citation was analysed as content", vals, sp.feats)
	}
	if sp.text != "*   **Fare:** 480 Taka [Source: routes.pdf, p. 1]" {
		t.Errorf("span text %q: the text shown must keep its markup", sp.text)
	}
	ev := Support("**Fare:** 480 Taka [Source: routes.pdf, p. 1]", "", []string{"Fare: 480 Taka; Departure: 07:00"})
	if ev.Verdict != 1 {
		t.Errorf("Support = %+v, want supported", ev)
	}
}

// A yes to a question about two things is two statements, each checked
// where the context speaks of it: HaluEval's "Are X and Y both American?"
// has X and Y in two paragraphs, and one statement naming both was never
// supported. A no is supported when the context contradicts one of them,
// not when it is silent.
func TestYesNoAboutTwoThings(t *testing.T) {
	q := "Are both the Harbour Band and the Quay Players American rock bands?"
	ctx := []string{"The Harbour Band is a Canadian rock band formed in 1997 in Halifax. The Quay Players is an American rock band from Ohio."}
	for _, tt := range []struct {
		answer string
		want   float64
	}{
		{"yes", 0.5}, // the Harbour Band is Canadian
		{"no", 1},    // which the context says
	} {
		if s, ok := Faithfulness(q, tt.answer, ctx); !ok || s != tt.want {
			t.Errorf("Faithfulness(%q) = %v, %v; want %v", tt.answer, s, ok, tt.want)
		}
	}
	both := []string{"The Harbour Band is an American rock band formed in 1997. The Quay Players is an American rock band from Ohio."}
	if s, _ := Faithfulness(q, "yes", both); s != 1 {
		t.Errorf("yes, each band in its own sentence: %v, want 1", s)
	}
	if s, _ := Faithfulness(q, "no", both); s != 0 {
		t.Errorf("no against a context that affirms both: %v, want 0", s)
	}
	if s, _ := Faithfulness(q, "no", []string{"The Harbour Band formed in 1997. The Quay Players toured Ohio."}); s != 0 {
		t.Errorf("no against a context that is silent: %v, want 0 (silence does not support a denial)", s)
	}
	// "types of drinks" asks whether they are drinks: the class noun is
	// no content the context must repeat.
	drinks := []string{"A fizzwell is a sweet, mint-flavoured after-dinner drink. The sourbay is a beer cocktail made with rum."}
	if s, _ := Faithfulness("Are Fizzwell and Sourbay both types of drinks?", "yes", drinks); s != 0.5 {
		t.Errorf("yes to both types of drinks: %v, want 0.5 (the fizz is a drink; the sour is said to be a cocktail)", s)
	}
	// A nationality asked of two, without "both", and with the
	// auxiliary after the subject: a "no" is supported by a sentence that
	// gives one of them another nationality only.
	nq := "Ann Lee and Bo Chen, are Chilean?"
	if got := StatementsFor(nq, "no"); len(got) != 1 || got[0] != "No, not Ann Lee and Bo Chen Chilean" {
		t.Errorf("StatementsFor(%q, no) = %q", nq, got)
	}
	for _, tt := range []struct {
		name string
		ctx  []string
		want float64
	}{
		{"another nationality", []string{"Ann Lee (李安; 1925 – 1970) was a Japanese author and poet. Bo Chen was a Chilean novelist."}, 1},
		{"the claimed one too", []string{"Ann Lee was a Chilean-Japanese author. Bo Chen was a Chilean novelist."}, 0},
		{"a language label is no nationality", []string{"Ann Lee (Japanese: 李安) was an author. Bo Chen was a Chilean novelist."}, 0},
		{"English is not Chilean", []string{"Ann Lee was an English author. Bo Chen was a Chilean novelist."}, 1},
	} {
		if s, _ := Faithfulness(nq, "no", tt.ctx); s != tt.want {
			t.Errorf("%s: Faithfulness(no) = %v, want %v", tt.name, s, tt.want)
		}
	}
	if s, _ := Faithfulness("Ann Lee and Bo Chen, are British?", "no", []string{"Ann Lee was an English author. Bo Chen was a Welsh novelist."}); s != 0 {
		t.Errorf("English and Welsh are British: Faithfulness(no) = %v, want 0", s)
	}
	// An opening phrase before the comma is no subject.
	if aff, _, _ := proposition("In Paris, was Ann Lee the winner?"); aff != "In Paris, was Ann Lee the winner" {
		t.Errorf("proposition after an opening phrase = %q, want the question's words kept", aff)
	}
	if _, ok := conjuncts("Ann Lee and Bo Chen related"); ok {
		t.Error(`conjuncts split "Ann Lee and Bo Chen related": a relation is asked of the two together`)
	}
	for _, tt := range []struct{ q, want0, want1 string }{
		{"Ann Lee and Bo Chen Chilean", "Ann Lee Chilean", "Bo Chen Chilean"},
		{"Are Ann Lee and Bo Chen both painters?", "Ann Lee painters", "Bo Chen painters"},
		{"Were both Joseph Rowe and Cid Gorman authors?", "Joseph Rowe authors", "Cid Gorman authors"},
		{"Are Gin and tonic and Paloma both cocktails?", "Gin and tonic cocktails", "Paloma cocktails"},
		{"Are both Kings of Leon and The Vipers American bands?", "Kings of Leon American bands", "The Vipers American bands"},
	} {
		aff, _, _ := proposition(tt.q)
		got, ok := conjuncts(aff)
		if !ok || got[0] != tt.want0 || got[1] != tt.want1 {
			t.Errorf("conjuncts(%q) = %q, %v; want %q, %q", tt.q, got, ok, tt.want0, tt.want1)
		}
	}
	j := New()
	smp := &eval.Sample{Question: q, Answer: "no", Contexts: ctx}
	st, _ := j.Statements(context.Background(), smp)
	vs, err := j.Verdicts(context.Background(), smp, st)
	if err != nil || len(vs) != 1 || vs[0].Verdict != 1 || !strings.Contains(vs[0].Reason, "the context contradicts") {
		t.Errorf("the judge's verdict on no = %+v, %v; want supported, with the contradiction as its reason", vs, err)
	}
}

// A statement that restates a wh-question around its answer takes the
// question's names as given (RGB's "Tesla's revenue in Q2 2020 was ..."
// against a report that says July 2020 and never Q2). A name the contexts
// give about something else is still missing, and yes/no and alternative
// questions presuppose nothing.
func TestRestatedQuestionTakesItsNamesAsGiven(t *testing.T) {
	ctx := []string{"Oct 20, 2021 ... Harbour Rail reported third-quarter revenue of $4.2 million, above estimates."}
	q := "What was Harbour Rail's revenue in Q3 2021?"
	if ev := Support("Harbour Rail's revenue in Q3 2021 was $4.2 million.", q, ctx); ev.Verdict != 1 {
		t.Errorf("Support = %+v, want supported: Q3 is the question's, and the context never names a quarter so", ev)
	}
	if ev := Support("Harbour Rail's revenue in Q3 2021 was $1.2 million.", q, ctx); ev.Verdict != 0 {
		t.Errorf("Support = %+v, want unsupported", ev)
	}
	// Trust is in the contexts, in a sentence about the trust: the chair
	// of the Harbour Board is not thereby the chair of the Quay Trust.
	ctx2 := []string{"Ann Lee chairs the Harbour Board. The Quay Trust was founded in 1901."}
	if ev := Support("The chair of the Quay Trust is Ann Lee.", "Who is the chair of the Quay Trust?", ctx2); ev.Verdict != 0 {
		t.Errorf("Support = %+v, want unsupported: nothing says Ann Lee chairs the Quay Trust", ev)
	}
	// "Or" offers the names: the answer that repeats one claims it.
	if presupposes("Which line is electric, the Harbour Line or the Quay Line?") || presupposes("Is the Quay Line electric?") {
		t.Error("a yes/no or an alternative question presupposes its names")
	}
	if !presupposes("Who won the 2010 Harbour Cup?") || !presupposes("示例公司的总部在哪里") || presupposes("示例大桥是否已经通车") {
		t.Error("presupposes: wrong on a wh-question or a Chinese one")
	}
}

// "Who was born first, X or Y?": first is the claim, not an echo of the
// question. Repeated from it, it was weighted as an echo and "Y was born
// first" was supported by any sentence about Y's birth.
func TestComparisonIsTheClaim(t *testing.T) {
	q := "Who was born first, Ann Lee or Bo Chen?"
	ctx := []string{"Ann Lee (born 4 May 1950) is a painter from Leeds. Bo Chen (born 2 June 1960) is a poet from Hull."}
	good, _ := Faithfulness(q, "Ann Lee", ctx)
	bad, _ := Faithfulness(q, "Bo Chen was born first.", ctx)
	if good != 1 || bad != 0 {
		t.Errorf("Faithfulness: bare Ann Lee %v (want 1), \"Bo Chen was born first.\" %v (want 0)", good, bad)
	}
	if ev := Support("Bo Chen was born first.", q, []string{"Bo Chen was born first, in 1940, and Ann Lee in 1950."}); ev.Verdict != 1 {
		t.Errorf("Support = %+v, want supported where the context says it", ev)
	}
}

// A statement that restates a multi-hop question has the question's
// words in one paragraph and its answer in another (HaluEval's knowledge
// joins two): the two sentences support it together when a name bridges
// them, the answer sentence says on its own what the statement adds,
// and each of the question's things says it when the answer sentence
// names one of them.
func TestRestatedMultiHopQuestionIsBridged(t *testing.T) {
	q := "Who represents the district that Elmfield is in?"
	ctx := []string{"Elmfield is an electoral ward in the non-metropolitan district of Carrow in Westshire." +
		"Carrow is a constituency centred on the town of Carrow, which has been represented in Parliament since 2015 by Mara Quill of the Harbour Party."}
	unbridged := []string{"Elmfield is an electoral ward in the non-metropolitan district of Carrow in Westshire." +
		"Dunmore is a constituency centred on the town of Dunmore, which has been represented in Parliament since 2015 by Mara Quill of the Harbour Party."}
	premiseQ := "Who represents the district whose ward Elmfield was created by the Westshire Council?"
	premiseCtx := []string{"Elmfield is an electoral ward in the district of Carrow. It was created by the Westshire Council in 1974." +
		"Carrow is a constituency centred on the town of Carrow, which has been represented in Parliament since 2015 by Mara Quill of the Harbour Party."}
	two := "Harbour Airport and Quay Air are based out of what country?"
	twoCtx := []string{"Harbour Airport serves Port Wren, Canada, across the strait from Greenland.Quay Air is an airline headquartered in Calgary, Canada."}
	for _, tt := range []struct {
		name, q, statement string
		ctx                []string
		want               int
	}{
		{"bridged by Carrow", q, "Mara Quill represents the district that Elmfield is in.", ctx, 1},
		{"no name joins the hops", q, "Mara Quill represents the district that Elmfield is in.", unbridged, 0},
		{"a premise of the question in a third sentence", premiseQ, "Mara Quill represents the district whose ward Elmfield was created by the Westshire Council.", premiseCtx, 1},
		{"a name the statement adds must be in the pair", q, "Mara Quill of the Harbour Party from Dunmore represents the district that Elmfield is in.",
			[]string{ctx[0] + " Dunmore is a town in Westshire."}, 0},
		{"a wrong number in the answer sentence", q, "Mara Quill represents the district that Elmfield is in since 2019.", ctx, 0},
		{"each thing's sentence says it", two, "Harbour Airport and Quay Air are based out of Canada.", twoCtx, 1},
		{"only one thing's sentence says it", two, "Harbour Airport and Quay Air are based out of Greenland.", twoCtx, 0},
		{"not a restatement", q, "Mara Quill is a member of the Harbour Party representing Elmfield.", ctx, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev := Support(tt.statement, tt.q, tt.ctx)
			if ev.Verdict != tt.want {
				t.Errorf("Support(%q) = %+v, want verdict %d", tt.statement, ev, tt.want)
			}
			if tt.want == 1 && !strings.Contains(ev.Reason, "bridged to the question by") {
				t.Errorf("reason %q does not name the bridging sentence", ev.Reason)
			}
		})
	}
}

// A comparison is checked on the values the context gives each of its two
// things, each in a sentence that names it: one sentence rarely states
// the order itself. A missing or ambiguous value, or a claimed difference
// the order does not check, leaves the statement to the support test.
func TestComparisonByValues(t *testing.T) {
	born := "Who was born first, Ann Lee or Bo Chen?"
	people := []string{"Ann Lee (born 4 May 1950) is a painter from Leeds. Bo Chen (poet; 2 June 1960 – 3 March 2020) was a poet from Hull."}
	films := []string{"Harbour Lights is a 1996 drama film set in Wren. Quay Days is a 1942 comedy film released by Tidewater Pictures."}
	firms := []string{"Northwind Freight has 1,200 employees in four depots. Southgate Haulage has 800 employees."}
	plans := []string{"The Gold plan costs $30 a month. The Silver plan costs $45 a month."}
	oneDate := []string{"Ann Lee (born 4 May 1950) is a painter from Leeds. Bo Chen is a poet from Hull."}
	twoDates := []string{"Ann Lee (born 4 May 1950) is a painter from Leeds. Bo Chen (born 2 June 1960) is a poet from Hull. Bo Chen was born in 1940, says another source."}
	for _, tt := range []struct {
		name, q, statement string
		ctx                []string
		want               int
		detector, reason   string // detector wanted; a part of the reason
		quote              string // the start of the quote wanted
	}{
		{"bare answer", born, "Ann Lee", people, 1, "", "Ann Lee was first", "Ann Lee (born"},
		{"restated around the answer", born, "Born first, Ann Lee or Bo Chen was Ann Lee.", people, 1, "", "context gives Ann Lee 1950-05-04 and Bo Chen 1960-06-02", "Ann Lee (born"},
		{"than, the range's first date", "", "Bo Chen is younger than Ann Lee.", people, 1, "", "Bo Chen was younger", "Bo Chen (poet"},
		{"contradicted", born, "Bo Chen was born first.", people, 0, DetectorComparison,
			"context gives Bo Chen 1960-06-02 and Ann Lee 1950-05-04: Ann Lee was first, not Bo Chen (comparison conflict)", "Bo Chen (poet"},
		{"the other from the question", born, "Bo Chen", people, 0, DetectorComparison, "Ann Lee was first, not Bo Chen", "Bo Chen (poet"},
		{"second of two is the later", "Which was released second, Harbour Lights or Quay Days?", "Harbour Lights was released second.", films, 1, "", "context gives Harbour Lights 1996 and Quay Days 1942: Harbour Lights was second", "Harbour Lights is"},
		{"second of two, contradicted", "Which was released second, Harbour Lights or Quay Days?", "Quay Days was released second.", films, 0, DetectorComparison, "Harbour Lights was second, not Quay Days", "Quay Days is"},
		{"an ordinal before a noun compares nothing", "Which was released second, Harbour Lights or Quay Days?", "Quay Days is the second film of Tidewater Pictures.", films, 1, "", "context says", "Quay Days is"},
		{"a candidate set off by an apposition", "Which band was formed first, Harbour, the rock band that Ann Lee fronted, or The Quay?", "The Quay was formed first.",
			[]string{"Ann Lee (born 1964) is a singer. She rose to fame as the frontwoman of the rock band Harbour, which she formed in 1989.", "The Quay are a pop band formed in Romford, UK in 1985."},
			1, "", "context gives Quay 1985 and Harbour 1989: Quay was first", "The Quay are"},
		{"before, a 1996 film", "", "Quay Days was released before Harbour Lights.", films, 1, "", "context gives Quay Days 1942 and Harbour Lights 1996", "Quay Days is"},
		{"before, contradicted", "", "Harbour Lights was released before Quay Days.", films, 0, DetectorComparison, "Quay Days was before, not Harbour Lights", "Harbour Lights is"},
		{"more with the unit", "Which firm has more employees, Northwind Freight or Southgate Haulage?", "Northwind Freight has more employees.", firms, 1, "", "context gives Northwind Freight 1,200 employees and Southgate Haulage 800 employees", "Northwind"},
		{"more, contradicted", "", "Southgate Haulage has more employees than Northwind Freight.", firms, 0, DetectorComparison, "Northwind Freight has more, not Southgate Haulage", "Southgate"},
		{"cheaper by the price", "", "The Gold plan is cheaper than the Silver plan.", plans, 1, "", "Gold $30 and Silver $45", "The Gold plan"},
		{"cheaper, contradicted", "", "The Silver plan is cheaper than the Gold plan.", plans, 0, DetectorComparison, "Gold is cheaper, not Silver", "The Silver plan"},
		{"a range whose dash the text lost", born, "Bo Chen was born first.",
			[]string{"Ann Lee ( ; 4 May 195012 June 2001) was a painter. Bo Chen (born 2 June 1960) is a poet from Hull."},
			0, DetectorComparison, "context gives Bo Chen 1960-06-02 and Ann Lee 1950-05-04", "Bo Chen (born"},
		{"more often by the frequency word", "Which is published more often, Harbour Weekly or Quay Review?", "Quay Review is published more often.",
			[]string{"Harbour Weekly is a bimonthly magazine about boats. Quay Review is a monthly publication for sailors."},
			1, "", "context gives Quay Review monthly and Harbour Weekly bimonthly: Quay Review is more frequent", "Quay Review is"},
		{"more often, contradicted", "Which is published more often, Harbour Weekly or Quay Review?", "Harbour Weekly is published more often.",
			[]string{"Harbour Weekly is a bi-monthly magazine about boats. Quay Review is a weekly publication for sailors."},
			0, DetectorComparison, "context gives Harbour Weekly bimonthly and Quay Review weekly: Quay Review is more frequent, not Harbour Weekly", "Harbour Weekly is"},
		{"bi-monthly against quarterly", "Which is published more often, Harbour Weekly or Quay Review?", "Harbour Weekly is published more often.",
			[]string{"Harbour Weekly is a bi-monthly magazine about boats. Quay Review is a quarterly publication for sailors."},
			1, "", "Harbour Weekly is more frequent", "Harbour Weekly is"},
		{"members listed by name, through the band's description", "Which band has more members, Harbour or The Quays?", "The Quays has more members.",
			[]string{"Harbour are an English rock band from Hull. The band consists of Ann Lee (vocals, guitar), Bo Chen (bass) and Cy Dunn (drums).",
				"The Quays is an American supergroup featuring four musicians: Di Eng, Ed Fox, Flo Gray and Gus Hay."},
			1, "", "context gives Quays four musicians and Harbour 3 listed: Quays has more", "The Quays is"},
		{"members by the group's word, contradicted", "Which band has more members, Harbour or The Quays?", "Harbour has more members.",
			[]string{"Harbour is a folk duo from Hull.", "The Quays are a rock band. The band consisted of Di Eng, Ed Fox and Flo Gray."},
			0, DetectorComparison, "context gives Harbour duo and Quays 3 listed: Quays has more, not Harbour", "Harbour is"},
		// Bo Chen's date is missing: today's test, and no sentence says it.
		{"missing value", born, "Ann Lee was born first.", oneDate, 0, "", "covers", ""},
		// Two dates for Bo Chen: no order is known.
		{"two values for one thing", born, "Bo Chen was born first.", twoDates, 0, "", "covers", ""},
		{"a claimed difference", "", "Bo Chen was born two years after Ann Lee.", people, 0, "", "covers", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev := Support(tt.statement, tt.q, tt.ctx)
			if ev.Verdict != tt.want || ev.Detector != tt.detector || !strings.Contains(ev.Reason, tt.reason) {
				t.Errorf("Support(%q) = %+v, want verdict %d, detector %q, reason with %q", tt.statement, ev, tt.want, tt.detector, tt.reason)
			}
			if !strings.HasPrefix(ev.Quote, tt.quote) {
				t.Errorf("quote %q, want the sentence of the thing the statement is about (%q...)", ev.Quote, tt.quote)
			}
		})
	}
	// Through the judge, the contradiction cites the chunk of the thing
	// the statement is about.
	s := &eval.Sample{ID: "cmp", Question: born, Answer: "Bo Chen was born first.",
		Contexts: []string{"Ann Lee (born 4 May 1950) is a painter from Leeds.", "Bo Chen (born 2 June 1960) is a poet from Hull."}}
	vs, err := New().Verdicts(context.Background(), s, []string{s.Answer})
	if err != nil || len(vs) != 1 || vs[0].Verdict != 0 || !strings.HasSuffix(vs[0].Reason, "("+DetectorComparison+")") ||
		vs[0].Evidence == nil || vs[0].Evidence.Chunk != 2 || !strings.HasPrefix(vs[0].Evidence.Quote, "Bo Chen (born") {
		t.Errorf("Verdicts = %+v, %v; want a comparison conflict citing chunk 2", vs, err)
	}
	// A bare "no" to a yes/no comparison is supported when the values
	// order the other way.
	q := "Is Bo Chen older than Ann Lee?"
	if s, ok := Faithfulness(q, "No.", people); !ok || s != 1 {
		t.Errorf("Faithfulness(no) = %v, %v; want 1", s, ok)
	}
	if s, ok := Faithfulness(q, "Yes.", people); !ok || s != 0 {
		t.Errorf("Faithfulness(yes) = %v, %v; want 0", s, ok)
	}
}

// A sentence that names what the statement names but has none of what it
// says of it does not support it, however long the names are: the claim
// is the rest ("R Adams Cowley was also an astronaut." against a sentence
// about the surgeon R Adams Cowley).
func TestNamesAloneSupportNothing(t *testing.T) {
	ctx := []string{"Ann B Lee Harbourne (1917 – 1991) was an American surgeon from Kent."}
	checkSupport(t, []supportCase{
		{"an astronaut", "", "Ann B Lee Harbourne was also an astronaut.", ctx, 0, "says none of what it claims"},
		{"a surgeon", "", "Ann B Lee Harbourne was a surgeon.", ctx, 1, "context says"},
		{"from Kent", "", "Ann B Lee Harbourne was from Kent.", ctx, 1, "context says"},
	})
}

// A sentence that binds several names to several verbs ("directed by A
// and written by B") contradicts a statement that swaps them.
func TestRolesAreNotSwapped(t *testing.T) {
	ctx := []string{"Night Shift is a 2004 film directed by Ann Lee and written by Bo Chen and Cy Dunn.",
		"Quay Days is a 2011 comedy film produced by Harbour Studios and distributed by Tide Pictures."}
	for _, tt := range []struct {
		statement string
		want      int
		detector  string
		reason    string
	}{
		{"Night Shift was directed by Bo Chen.", 0, DetectorRole, `statement says "directed by Bo Chen" where the context says "directed by Ann Lee" and "written by Bo Chen, Cy Dunn"`},
		{"Night Shift was directed by Ann Lee.", 1, "", "context says"},
		{"Night Shift was written by Cy Dunn.", 1, "", "context says"},
		{"Tide Pictures produced the comedy film Quay Days.", 0, DetectorRole, `"Tide Pictures produced" where the context says "produced by Harbour Studios" and "distributed by Tide Pictures"`},
		{"Harbour Studios produced the comedy film Quay Days.", 1, "", "context says"},
	} {
		ev := Support(tt.statement, "", ctx)
		if ev.Verdict != tt.want || ev.Detector != tt.detector || !strings.Contains(ev.Reason, tt.reason) {
			t.Errorf("Support(%q) = %+v, want %d, detector %q, reason with %q", tt.statement, ev, tt.want, tt.detector, tt.reason)
		}
	}
	// One name in two roles is no swap.
	both := []string{"The film was directed by Ann Lee and written by Ann Lee and Bo Chen."}
	if ev := Support("The film was written by Ann Lee.", "", both); ev.Verdict != 1 {
		t.Errorf("a name in two roles: %+v, want supported", ev)
	}
	// A verb the sentence binds to the name as well as to another.
	twice := []string{"The film was produced by Quay Films and directed by Ann Lee, and its sequel was produced by Ann Lee."}
	if ev := Support("The sequel was produced by Ann Lee.", "", twice); ev.Detector == DetectorRole {
		t.Errorf("a verb bound to the name too: %+v, want no role conflict", ev)
	}
}
