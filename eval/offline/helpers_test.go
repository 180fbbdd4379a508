package offline

import "strings"

// Support tests a statement against the contexts: it is supported when at
// least SupportThreshold of its content is found in one context sentence and
// neither the negation nor the number detector fires. The question, when
// given, discounts the content the statement merely repeats from it.
func Support(statement, question string, contexts []string) Evidence {
	sents := spansOf(contexts)
	var q *span
	if question != "" {
		q = analyze(question)
	}
	return support(analyze(statement), q, sents)
}

// spansOf are the analysed sentences of contexts, in order.
func spansOf(contexts []string) []*span {
	var sents []*span
	for _, c := range contexts {
		sents = append(sents, contextSpans(c)...)
	}
	return sents
}

// Faithfulness scores an answer the way the faithfulness metric does with
// this judge: supported statements over statements. ok is false when the
// answer has no statements (the metric's no_statements status).
func Faithfulness(question, answer string, contexts []string) (score float64, ok bool) {
	sents := spansOf(contexts)
	q := analyze(question)
	stmts := StatementsFor(question, answer)
	if len(stmts) == 0 {
		return 0, false
	}
	supported := 0
	for i, s := range stmts {
		supported += verdict(s, question, q, sents, answerTopic(stmts[:i]), strings.Join(stmts, "\n")).Verdict
	}
	return float64(supported) / float64(len(stmts)), true
}
