package offline

import "strings"

// The question's part in a statement. RAGAS's statement step reads the
// answer with the question in hand; so does the support test, in three
// ways:
//
//   - content the statement repeats from the question is weighted
//     QuestionEchoWeight (an echo proves nothing), except comparisons
//     (comparativeFeats), which are the claim even when the question
//     asks them;
//   - a statement that restates a wh-question around its answer takes the
//     question's names as given (restates, missingName);
//   - a yes or a no is the question's proposition affirmed or denied
//     (yesno.go).

// RestateShare is the least share of the question's content a statement
// must repeat to be a restatement of it ("Who is the CEO of Facebook in
// 2021?" -> "The CEO of Facebook in 2021 is Mark Zuckerberg."). Measured
// with `ragscope calibrate`: 0.5-0.8 give RGB 0.970-0.975 (zh) and 0.950
// (en); below 0.7 HaluEval's given answers lose pairs (0.928 at 0.5) to
// hallucinated answers that repeat part of the question around a wrong
// name, and 0.8 costs its declarative construction a little (0.614).
const RestateShare = 0.7

// restates reports whether the statement restates the question around an
// answer of its own, for a question that presupposes its content (see
// presupposes).
func restates(st, q *span) bool {
	if q == nil || !presupposes(q.text) {
		return false
	}
	n, in := 0, 0
	for f := range q.feats {
		n++
		if st.feats[f] {
			in++
		}
	}
	return n > 0 && float64(in) >= RestateShare*float64(n)
}

// presupposes reports whether a question takes its content as given: a
// wh-question ("Who won the 2010 World Cup?" presupposes that someone
// won it). A yes/no question asks its content, and an alternative
// question ("X or Y?") offers its names as candidates, not as facts: an
// answer that repeats one of them claims it.
func presupposes(question string) bool {
	q := strings.ToLower(strings.TrimSpace(stripControls(question)))
	if q == "" {
		return false
	}
	if containsHan(q) {
		return !strings.Contains(q, "还是") && !strings.Contains(q, "是否") && !strings.Contains(q, "是不是") &&
			!strings.HasSuffix(strings.TrimRight(q, "？?。 "), "吗")
	}
	w := strings.Fields(q)
	if englishQuestionAux[strings.Trim(w[0], ",")] {
		return false
	}
	for _, x := range w {
		if strings.Trim(x, ",") == "or" {
			return false
		}
	}
	return true
}

// comparativeFeats are the features of comparisons (born first, closer,
// has more species, younger). Repeated from the question they are still
// the claim: "Who was born first, X or Y?" asks for the comparison, and
// "Y was born first" asserts it, which only a sentence that says so
// about Y supports. They are never discounted as an echo.
var comparativeFeats = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"first", "last", "earlier", "earliest", "later", "latest", "older", "oldest", "younger", "youngest",
		"more", "most", "fewer", "fewest", "less", "least", "larger", "largest", "bigger", "biggest", "smaller", "smallest",
		"longer", "longest", "shorter", "shortest", "taller", "tallest", "closer", "closest", "farther", "further",
		"higher", "highest", "lower", "lowest", "before", "sooner"} {
		if !englishStop[w] {
			m["w:"+stem(w)] = true
		}
	}
	return m
}()
