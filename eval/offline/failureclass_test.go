package offline

import (
	"reflect"
	"testing"

	"github.com/ragscope/ragscope/eval/offline/norm"
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
		{"yes", []string{"Yes: both the Harbour Line and the Quay Line electric railways"}, 1},
		{"Yes.", []string{"Yes: both the Harbour Line and the Quay Line electric railways"}, 1},
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

// A no is supported when the context contradicts the question's
// proposition, not when it is silent or affirms it.
func TestDenialNeedsAContradiction(t *testing.T) {
	q := "Are both the Harbour Band and the Quay Players American rock bands?"
	both := []string{"The Harbour Band is an American rock band formed in 1997. The Quay Players is an American rock band from Ohio."}
	if s, _ := Faithfulness(q, "no", both); s != 0 {
		t.Errorf("no against a context that affirms both: %v, want 0", s)
	}
	if s, _ := Faithfulness(q, "no", []string{"The Harbour Band formed in 1997. The Quay Players toured Ohio."}); s != 0 {
		t.Errorf("no against a context that is silent: %v, want 0 (silence does not support a denial)", s)
	}
	// An opening phrase before the comma is no subject.
	if aff, _, _ := norm.Proposition("In Paris, was Ann Lee the winner?"); aff != "In Paris, was Ann Lee the winner" {
		t.Errorf("proposition after an opening phrase = %q, want the question's words kept", aff)
	}
}

// A statement that restates a wh-question around its answer takes the
// question's names as given (RGB's "Tesla's revenue in Q2 2020 was ..."
// against a report that says July 2020 and never Q2). A name the contexts
// give about something else is still missing, and a yes/no question
// presupposes nothing.
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

// A word of the question next to the statement's own content is what ties
// that content to the question: the sentence that supports the statement
// must have it, as repeating the question elsewhere proves nothing.
func TestWordsThatTieTheAnswerToTheQuestion(t *testing.T) {
	ceremony := []string{"The ceremony was chaired by Isabelle Mergault. The winning film starred François Cluzet and was written by Guillaume Canet."}
	tapes := []string{"Backup tapes are stored at the Suzhou data centre. The Shanghai office handles tape rotation."}
	checkSupport(t, []supportCase{
		{"chaired by the right one", "Who chaired the ceremony at which the film written by Guillaume Canet won Best Film?", "The ceremony was chaired by Isabelle Mergault.", ceremony, 1, "context says"},
		{"chaired by another name of the context", "Who chaired the ceremony at which the film written by Guillaume Canet won Best Film?", "The ceremony was chaired by François Cluzet.", ceremony, 0, "not in it: chair"},
		{"stored where the context says", "Where are the backup tapes of the finance servers stored?", "Backup tapes are stored at the Suzhou data centre.", tapes, 1, "context says"},
		{"stored at a place the context gives another part", "Where are the backup tapes of the finance servers stored?", "Backup tapes are stored at the Shanghai office.", tapes, 0, `statement ties Shanghai by "stored"; context ties Suzhou`},
	})
}

func TestStemsOfOneVerbAgree(t *testing.T) {
	for _, ws := range [][]string{{"play", "plays", "played", "playing", "player"}, {"study", "studies", "studied", "studying"}, {"pay", "pays", "paid"}, {"deliver", "delivers", "delivered", "delivering", "delivery"}, {"order", "orders", "ordered", "ordering"}, {"produce", "produced", "producer", "production"}, {"reduce", "reduced", "reduction"}} {
		for _, w := range ws[1:] {
			if norm.Stem(w) != norm.Stem(ws[0]) {
				t.Errorf("Stem(%q) = %q, Stem(%q) = %q: one verb", w, norm.Stem(w), ws[0], norm.Stem(ws[0]))
			}
		}
	}
}

// TestOpeningYesAffirmsTheQuestion: a "yes" that opens a longer answer
// affirms the question's proposition, a statement the context must support
// like the rest; a question whether two things share something is answered
// by the value the rest of the answer gives them.
func TestOpeningYesAffirmsTheQuestion(t *testing.T) {
	q := "试用期员工能享受公司的免费体检吗？"
	ctx := []string{"体检福利说明：公司每年为正式员工提供一次免费体检，套餐含血常规、肝功能、胸部CT。"}
	got := StatementsFor(q, "能，公司每年为员工提供一次免费体检。")
	if len(got) != 2 || got[0] != "是的，试用期员工能享受公司的免费体检" {
		t.Fatalf("StatementsFor = %q, want the proposition first", got)
	}
	if s, ok := Faithfulness(q, "能，公司每年为员工提供一次免费体检。", ctx); !ok || s != 0.5 {
		t.Errorf("a yes the context does not support: faithfulness %v, %v; want 0.5", s, ok)
	}
	if got := StatementsFor("Are both bands sponsored by the same company?", "Yes, both bands have Bramwick Building Society as their sponsor."); len(got) != 1 {
		t.Errorf("a comparison's yes: %q, want the answer's own statement only", got)
	}
	if got := StatementsFor("What does the plan cover?", "Yes, it covers parts."); len(got) != 1 {
		t.Errorf("a yes to no yes/no question: %q", got)
	}
}
