package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// The modes of factual correctness (--fc-mode).
const (
	FCModeF1        = "f1"
	FCModePrecision = "precision"
	FCModeRecall    = "recall"
)

// defaultFCMode is RAGAS's default mode of factual correctness.
const defaultFCMode = FCModeF1

// factualBeta is the β of factual correctness's F-score (RAGAS's default).
const factualBeta = 1.0

// ParseFCMode parses --fc-mode; "" is defaultFCMode.
func ParseFCMode(s string) (string, error) {
	return parseMode("fc-mode", "factual correctness", "f1, precision or recall", s, defaultFCMode, FCModePrecision, FCModeRecall)
}

// parseMode parses a metric's mode flag: one of modes, case and spaces
// aside; "" is the first.
func parseMode(flag, metric, choices, s string, modes ...string) (string, error) {
	m := strings.ToLower(strings.TrimSpace(s))
	if m == "" {
		return modes[0], nil
	}
	if slices.Contains(modes, m) {
		return m, nil
	}
	return "", fmt.Errorf("--%s: %q is not a mode of %s (choose %s)", flag, s, metric, choices)
}

// factualScore is factual correctness in a mode from its counts:
// precision TP/(TP+FP), recall TP/(TP+FN), f1 F_β(TP, FP, FN). It is 0
// whenever TP is 0, never a NaN; a side with no claims at all gets a status
// instead (runFactualCorrectness). Unlike RAGAS it keeps the exact value,
// unrounded and without epsilon guards.
func factualScore(mode string, tp, fp, fn int, beta float64) float64 {
	if tp == 0 {
		return 0
	}
	switch mode {
	case FCModePrecision:
		return float64(tp) / float64(tp+fp)
	case FCModeRecall:
		return float64(tp) / float64(tp+fn)
	}
	return fBetaScore(tp, fp, fn, beta)
}

// factualCounts counts an answer claim the reference entails a TP, else an
// FP, and a reference claim the answer does not entail an FN.
func factualCounts(answerClaims, referenceClaims []StatementVerdict) (tp, fp, fn int) {
	for _, v := range answerClaims {
		if v.Verdict == 1 {
			tp++
		} else {
			fp++
		}
	}
	for _, v := range referenceClaims {
		if v.Verdict != 1 {
			fn++
		}
	}
	return tp, fp, fn
}

// factual_correctness: the answer's claims each judged against the
// reference (TP or FP); in recall and f1 modes also the reference's claims
// against the answer (an FN when not entailed).
func runFactualCorrectness(ctx context.Context, j Judge, s *Sample, cfg *RunnerConfig, r *Result) {
	if r.lacks(FactualCorrectness, blank(s.Answer) || blank(s.Reference), "factual correctness needs both an answer and a reference") {
		return
	}
	mode, err := ParseFCMode(cfg.FCMode)
	if err != nil {
		r.set(FactualCorrectness, StatusJudgeError, nil, err.Error())
		return
	}
	recallSide := mode != FCModePrecision
	// The two extractions are independent, and so are the two judgements.
	ans, ref, err := statementsOfBoth(ctx, j, s, recallSide)
	if err != nil {
		r.fail(FactualCorrectness, err)
		return
	}
	tr := &FactualCorrectnessTrace{Mode: mode, Beta: factualBeta, AnswerClaims: []StatementVerdict{}, ReferenceClaims: []StatementVerdict{}}
	switch {
	case len(ans) == 0 && mode != FCModeRecall:
		r.FactualCorrectness = tr
		r.set(FactualCorrectness, StatusNoStatements, nil, "the judge extracted no claims from the answer, so there is nothing to check against the reference")
		return
	case len(ref) == 0 && mode == FCModeRecall:
		r.FactualCorrectness = tr
		r.set(FactualCorrectness, StatusNoStatements, nil, "the judge extracted no claims from the reference, so there is nothing the answer could recall")
		return
	}
	var byAns, byRef []StatementVerdict
	calls := []func() error{func() (err error) { byRef, err = entail(ctx, j, s, s.Reference, ans); return err }}
	if recallSide {
		calls = append(calls, func() (err error) { byAns, err = entail(ctx, j, s, s.Answer, ref); return err })
	}
	if err := together(calls...); err != nil {
		r.fail(FactualCorrectness, err)
		return
	}
	tr.AnswerClaims = orEmpty(byRef)
	tr.ReferenceClaims = orEmpty(byAns)
	tr.TP, tr.FP, tr.FN = factualCounts(tr.AnswerClaims, tr.ReferenceClaims)
	score := factualScore(mode, tr.TP, tr.FP, tr.FN, tr.Beta)
	r.FactualCorrectness = tr
	r.set(FactualCorrectness, StatusOK, &score, "")
}

// entail is Judge.Entailment held to its contract: one 0 or 1 verdict per
// statement, or a parse error. No statement makes no call.
func entail(ctx context.Context, j Judge, s *Sample, premise string, statements []string) ([]StatementVerdict, error) {
	if len(statements) == 0 {
		return []StatementVerdict{}, nil
	}
	vs, err := j.Entailment(ctx, s, premise, statements)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(statements) {
		return nil, NewStepError(StatusParseError, "the judge returned %d entailment verdicts for %d statements", len(vs), len(statements))
	}
	for i, v := range vs {
		if v.Verdict != 0 && v.Verdict != 1 {
			return nil, NewStepError(StatusParseError, "entailment verdict %d is %d, want 0 or 1", i+1, v.Verdict)
		}
	}
	return vs, nil
}
