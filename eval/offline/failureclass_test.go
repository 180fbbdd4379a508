package offline

import (
	"reflect"
	"testing"
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
