package offline

import (
	"fmt"
	"strings"

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
		text, both := bothOf(statement, question, sents)
		st := analyze(text)
		if both {
			if cev, ok := coordinated(st, q, sents); ok {
				return cev
			}
		}
		if topic != "" || answer != "" {
			c := *st // the analysis is shared: a copy carries the answer
			c.topic, c.answer = topic, answer
			st = &c
		}
		return support(st, q, sents)
	}
	ev := support(analyze(p), q, sents)
	cev, ok := ev, ev.Detector != "" && ev.Coverage >= SupportThreshold
	if !ok {
		cev, ok = contradictedConjunct(analyze(p), q, sents)
	}
	if ok {
		cev.Verdict = 1
		cev.Reason = fmt.Sprintf("the context contradicts %q: %s", clip(p), cev.Reason)
		return cev
	}
	ev.Verdict, ev.Detector = 0, ""
	ev.Reason = fmt.Sprintf("no context sentence contradicts %q, which the answer denies; closest: %s", clip(p), ev.Reason)
	return ev
}

// bothOf is the statement with its "both" ("Yes, both cocktails are
// tequila-based", "Both were born in ...") read as the two names the
// question coordinates, when it names neither: said of the two, it is
// tested on each and supported only when each is; ok reports that.
func bothOf(statement, question string, sents []*span) (string, bool) {
	// Most statements have no "both": they cost no reading of the sentences.
	if !strings.Contains(strings.ToLower(statement), "both") || len(conjuncts(statement, sents)) > 0 {
		return statement, false
	}
	cs := conjuncts(question, sents)
	if len(cs) != 2 || strings.Contains(statement, cs[0].Name) || strings.Contains(statement, cs[1].Name) {
		return statement, false
	}
	text := phrase.BothAs(statement, cs[0].Name, cs[1].Name)
	return text, text != statement
}
