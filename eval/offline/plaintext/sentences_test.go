package plaintext

import (
	"reflect"
	"testing"
)

// sentencesOf is the sentences of Sentences.
func sentencesOf(text string) []string {
	out, _ := Sentences(text)
	return out
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

func TestContextSentencesUnglued(t *testing.T) {
	// Glued passages ("century.First") must still split for the support test.
	got := sentencesOf("It ran in the 19th century.First for Women is a magazine.")
	if len(got) != 2 {
		t.Fatalf("sentencesOf = %q, want 2 sentences", got)
	}
}

// TestInlineListNumbers: an inline list's number opens the item after it
// ("以下文件：1. 出厂检验报告；2. …"), not a sentence of its own; a clock's
// minutes before a period still end one.
func TestInlineListNumbers(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"须随附以下文件：1. 出厂检验报告；2. 材质证明书；3. 装箱清单。缺少任一文件的，买方有权拒收。",
			[]string{"须随附以下文件：1. 出厂检验报告", "2. 材质证明书", "3. 装箱清单。", "缺少任一文件的，买方有权拒收。"}},
		{"Bring: 1. a form; 2. a photo ID.", []string{"Bring: 1. a form", "2. a photo ID."}},
		{"The train left at 15:21. It arrived late.", []string{"The train left at 15:21.", "It arrived late."}},
	} {
		if got := sentencesOf(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("sentencesOf(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
