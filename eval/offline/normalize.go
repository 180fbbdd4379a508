package offline

import (
	"strings"
	"unicode"

	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/eval/offline/words"
)

// answerFrames open an answer without saying anything the context could
// contain ("答案是X。", "The answer is X."); the judge reads X.
var answerFrames = words.List("answer_frames")

// stripFrame removes an answer frame at the start of a text.
func stripFrame(s string) string {
	t := strings.TrimLeft(s, " \t")
	if t == "" || t[0] < 0x80 {
		return s
	}
	for _, f := range answerFrames {
		if strings.HasPrefix(t, f) {
			return strings.TrimLeft(t[len(f):], " ：:，,")
		}
	}
	return s
}

// Bare yes/no answers. They have no content of their own, yet they assert
// or deny the question's proposition; the statement is that proposition,
// read off the question, as RAGAS's statement step does with the question
// in hand.
var (
	yesWords = words.Set("yes")
	noWords  = words.Set("no")
	// englishQuestionAux open a yes/no question; they are dropped from
	// the proposition ("Are both X and Y American?" -> "both X and Y
	// American").
	englishQuestionAux = words.Set("english_question_aux")
)

// yesNo reports whether an answer is only yes or only no (with
// punctuation), and which.
func yesNo(answer string) (yes, ok bool) {
	a := strings.ToLower(strings.TrimFunc(stripFrame(plaintext.StripControls(answer)), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r)
	}))
	a = strings.TrimPrefix(a, "the answer is ")
	switch {
	case yesWords[a]:
		return true, true
	case noWords[a]:
		return false, true
	}
	return false, false
}

// proposition is the claim a yes/no question asks about, and the same
// claim denied: "Are both X and Y American?" -> "both X and Y American",
// "not both X and Y American"; "他是否参加了比赛？" -> "他参加了比赛",
// "他没有参加了比赛". ok is false for a question without content.
func proposition(question string) (affirmed, denied string, ok bool) {
	q := strings.TrimSpace(plaintext.StripControls(question))
	q = strings.TrimRight(q, "?？。.! ")
	if q == "" {
		return "", "", false
	}
	if containsHan(q) {
		q = strings.TrimSuffix(strings.TrimSuffix(q, "吗"), "么")
		q = strings.Replace(q, "是否", "", 1)
		q = strings.Replace(q, "是不是", "是", 1)
		return q, "并非" + q, hasContent(q)
	}
	w := strings.Fields(q)
	if len(w) > 1 && englishQuestionAux[strings.ToLower(w[0])] {
		w = w[1:]
	}
	p := strings.Join(w, " ")
	return p, "not " + p, hasContent(p)
}

// StatementsFor are the statements of an answer to question: those of
// SplitStatements, or, for a bare yes or no, the question's proposition
// affirmed or denied ("Yes: both X and Y American", "No, not both X and Y American").
func StatementsFor(question, answer string) []string {
	stmts := SplitStatements(answer)
	if len(stmts) > 0 {
		return stmts
	}
	yes, ok := yesNo(answer)
	if !ok {
		return stmts
	}
	if _, _, ok := proposition(question); !ok {
		return stmts
	}
	return propositionStatements(question, yes)
}

// propositionStatements are the statements of a yes or a no to question:
// its proposition affirmed or denied.
func propositionStatements(question string, yes bool) []string {
	aff, den, ok := proposition(question)
	switch {
	case !ok:
		return nil
	case containsHan(question) && yes:
		return []string{"是的，" + aff}
	case containsHan(question):
		return []string{"不，" + den}
	case yes:
		return []string{"Yes: " + aff}
	}
	return []string{"No, " + den}
}
