package offline

import (
	"context"

	"github.com/ragscope/ragscope/eval"
)

// Entailment tests each statement against the premise with the support
// test, the premise standing in for the retrieved context: the test
// CorrectnessClassify uses both ways. The reason says what was found in
// the premise (the matching sentence and its coverage) or what was not.
// The question discounts the content a statement merely repeats from it,
// as in faithfulness.
func (j *Judge) Entailment(ctx context.Context, s *eval.Sample, premise string, statements []string) ([]eval.StatementVerdict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]eval.StatementVerdict, len(statements))
	if len(statements) == 0 {
		return out, nil
	}
	evs, hasText := j.against(analyze(s.Question), premise, statements)
	for i, ev := range evs {
		// The support test speaks of "context"; here that is the premise.
		reason := "against the premise: " + ev.Reason
		if !hasText {
			reason = "the premise has no text to check the statement against"
		}
		out[i] = eval.StatementVerdict{Statement: statements[i], Verdict: ev.Verdict, Reason: reason}
	}
	return out, nil
}

// against is the support test of each statement with one text (a premise,
// the reference, the answer) as the only context; hasText is false when
// the text has no sentence to check against.
func (j *Judge) against(q *span, text string, statements []string) (evs []Evidence, hasText bool) {
	sents := j.contextSentences([]string{j.read(text)})
	evs = make([]Evidence, len(statements))
	for i, st := range statements {
		evs[i] = support(analyze(j.read(st)), q, sents)
	}
	return evs, len(sents) > 0
}

// NoiseSensitivityUnsupported is why the offline judge does not compute
// noise sensitivity.
const NoiseSensitivityUnsupported = "noise sensitivity needs an entailment judgement of every statement against every chunk; " +
	"the lexical judge's shared-word test would attribute noise to any chunk that shares words — run with an LLM judge"

// Unsupported implements eval.MetricSupporter: the offline judge computes
// every metric but noise sensitivity, whose score would be an artefact of
// word overlap rather than a judgement.
func (j *Judge) Unsupported(m eval.Metric) string {
	if m == eval.NoiseSensitivity {
		return NoiseSensitivityUnsupported
	}
	return ""
}

var _ eval.MetricSupporter = (*Judge)(nil)
