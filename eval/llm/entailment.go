package llm

import (
	"context"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/prompts"
)

// Entailment implements eval.Judge (entailment_verdicts): each statement
// judged against the premise text alone. The prompt shows the premise and
// the statements, not the question, so the same check asked by factual
// correctness and by noise sensitivity (the answer's statements against
// the reference) is one request, paid for once through the cache.
//
// As with faithfulness_verdicts, a reply of the wrong length is re-asked
// once with the count spelled out, then ends as parse_error; a malformed
// reply (a missing key, a verdict not 0 or 1) is retried below the cache
// and never cached. No statement to judge makes no call.
func (j *Judge) Entailment(ctx context.Context, s *eval.Sample, premise string, statements []string) ([]eval.StatementVerdict, error) {
	if len(statements) == 0 {
		return []eval.StatementVerdict{}, nil
	}
	req, err := j.request(s, prompts.TaskEntailmentVerdicts, prompts.Data{Text: premise, Statements: statements})
	if err != nil {
		return nil, err
	}
	check := func(r *entailmentReply) error { return checkList("verdicts", r.Verdicts, "verdict", verdictOf) }
	out, err := sendCounted(ctx, j, s, req, check, len(statements), func(r *entailmentReply) int { return len(r.Verdicts) })
	if err != nil {
		return nil, err
	}
	verdicts := make([]eval.StatementVerdict, len(statements))
	for i, v := range out.Verdicts {
		// The statement sent is the one scored; the judge's echo may be paraphrased.
		verdicts[i] = eval.StatementVerdict{Statement: statements[i], Verdict: v.Verdict.n, Reason: strings.TrimSpace(v.Reason)}
	}
	return verdicts, nil
}
