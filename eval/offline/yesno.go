package offline

import (
	"fmt"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/phrase"
)

// denialParts returns the proposition a statement of StatementsFor
// denies, when it is the denial of question's proposition (a bare "no").
func denialParts(question, statement string) (string, bool) {
	aff, _, ok := norm.Proposition(question)
	if no := norm.PropositionStatements(question, false); !ok || len(no) == 0 || statement != no[0] {
		return "", false
	}
	return aff, true
}

// verdict is support, except for the denial of the question's proposition,
// supported when the context contradicts it.
func verdict(statement, question string, q *span, sents []*span, topic, answer string) Evidence {
	p, ok := denialParts(question, statement)
	if !ok {
		p, ok = phrase.NotBoth(statement)
	}
	if !ok {
		if ev, ok := ofPair(statement, question, q, sents); ok && !off("coordinated") {
			return ev
		}
		st := analyze(statement)
		if topic != "" || answer != "" {
			c := *st // the analysis is shared: a copy carries the answer
			c.topic, c.answer = topic, answer
			st = &c
		}
		return support(st, q, sents)
	}
	ev, ok := contradicted(p, nil, sents)
	if ok {
		ev.Verdict = 1
		ev.Reason = fmt.Sprintf("the context contradicts %q: %s", clip(p), ev.Reason)
		return ev
	}
	ev.Verdict, ev.Detector = 0, ""
	ev.Reason = fmt.Sprintf("no context sentence contradicts %q, which the answer denies; closest: %s", clip(p), ev.Reason)
	return ev
}
