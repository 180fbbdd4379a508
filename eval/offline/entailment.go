package offline

import (
	"context"

	"github.com/ragscope/ragscope/eval"
)

// Entailment tests each statement with the support test, the premise
// standing in for the retrieved context.
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
		reason := "against the premise: " + ev.Reason
		if !hasText {
			reason = "the premise has no text to check the statement against"
		}
		out[i] = eval.StatementVerdict{Statement: statements[i], Verdict: ev.Verdict, Reason: reason}
	}
	return out, nil
}

// against is the support test of each statement with text as the only
// context; hasText is false when it has no sentence.
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

// Unsupported implements eval.MetricSupporter: every metric but noise
// sensitivity.
func (j *Judge) Unsupported(m eval.Metric) string {
	if m == eval.NoiseSensitivity {
		return NoiseSensitivityUnsupported
	}
	return ""
}

var _ eval.MetricSupporter = (*Judge)(nil)
