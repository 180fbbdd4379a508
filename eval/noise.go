package eval

import (
	"context"
	"slices"
	"strings"
)

// The modes of noise sensitivity (--ns-mode).
const (
	NSModeRelevant   = "relevant"
	NSModeIrrelevant = "irrelevant"
)

// DefaultNSMode is RAGAS's default mode of noise sensitivity.
const DefaultNSMode = NSModeRelevant

// ParseNSMode parses --ns-mode; "" is DefaultNSMode.
func ParseNSMode(s string) (string, error) {
	return parseMode("ns-mode", "noise sensitivity", "relevant or irrelevant", s, DefaultNSMode, NSModeIrrelevant)
}

// noiseStatements is the one formula of noise sensitivity, as in RAGAS: a
// chunk is relevant when it entails some reference statement; an answer
// statement is correct when the reference entails it (byReference); its
// noise is "relevant" when it is incorrect and a relevant chunk entails it,
// "irrelevant" when only irrelevant chunks do. relevant and irrelevant
// count each noise (the score of a mode is its count over the answer
// statements); the chunks' Relevant flags are set here.
func noiseStatements(chunks []NoiseChunk, byReference []StatementVerdict) (stmts []NoiseStatement, relevant, irrelevant int) {
	for k := range chunks {
		chunks[k].Relevant = slices.ContainsFunc(chunks[k].Reference, func(v StatementVerdict) bool { return v.Verdict == 1 })
	}
	stmts = make([]NoiseStatement, len(byReference))
	for i, v := range byReference {
		st := NoiseStatement{Statement: v.Statement, Correct: v.Verdict == 1, Relevant: []int{}, Irrelevant: []int{}}
		for _, c := range chunks {
			if i >= len(c.Answer) || c.Answer[i].Verdict != 1 {
				continue
			}
			if c.Relevant {
				st.Relevant = append(st.Relevant, c.Rank)
			} else {
				st.Irrelevant = append(st.Irrelevant, c.Rank)
			}
		}
		switch {
		case st.Correct:
		case len(st.Relevant) > 0:
			st.Noise = NSModeRelevant
			relevant++
		case len(st.Irrelevant) > 0:
			st.Noise = NSModeIrrelevant
			irrelevant++
		}
		stmts[i] = st
	}
	return stmts, relevant, irrelevant
}

// noiseScore is noise sensitivity in a mode: the share of the answer's
// statements whose noise is that mode (0 for none). Lower is better.
func noiseScore(mode string, statements, relevant, irrelevant int) float64 {
	if statements == 0 {
		return 0
	}
	if mode == NSModeIrrelevant {
		return float64(irrelevant) / float64(statements)
	}
	return float64(relevant) / float64(statements)
}

// noise_sensitivity: the statements of the reference and of the answer;
// for every chunk, which of each it entails; which of the answer's the
// reference entails. Those calls are independent, so they are asked at
// once; the endpoint client bounds the requests in flight.
func runNoiseSensitivity(ctx context.Context, j Judge, s *Sample, cfg *RunnerConfig, r *Result) {
	if r.lacks(NoiseSensitivity, blank(s.Answer), "noise sensitivity needs an answer") ||
		r.lacks(NoiseSensitivity, blank(s.Reference), "noise sensitivity needs a reference answer") ||
		r.lacks(NoiseSensitivity, noContexts(s), "there are no retrieved contexts to judge for noise") {
		return
	}
	mode, err := ParseNSMode(cfg.NSMode)
	if err != nil {
		r.set(NoiseSensitivity, StatusJudgeError, nil, err.Error())
		return
	}
	ans, ref, err := statementsOfBoth(ctx, j, s, true)
	if err != nil {
		r.fail(NoiseSensitivity, err)
		return
	}
	tr := &NoiseSensitivityTrace{Mode: mode, ReferenceStatements: orEmpty(ref), ByReference: []StatementVerdict{},
		Chunks: []NoiseChunk{}, Statements: []NoiseStatement{}}
	switch {
	case len(ans) == 0:
		r.NoiseSensitivity = tr
		r.set(NoiseSensitivity, StatusNoStatements, nil, "the judge extracted no statements from the answer")
		return
	case len(ref) == 0:
		r.NoiseSensitivity = tr
		r.set(NoiseSensitivity, StatusNoStatements, nil,
			"the judge extracted no statements from the reference, so no chunk can be relevant (a chunk is relevant when it entails a reference statement)")
		return
	}
	chunks := make([]NoiseChunk, len(s.Contexts))
	var byRef []StatementVerdict
	calls := []func() error{func() (err error) { byRef, err = entail(ctx, j, s, s.Reference, ans); return err }}
	for k, c := range s.Contexts {
		chunks[k].Rank = k + 1
		if strings.TrimSpace(c) == "" {
			// An empty chunk entails nothing: no call is worth making.
			chunks[k].Reference = unentailed(ref, "the chunk is empty")
			chunks[k].Answer = unentailed(ans, "the chunk is empty")
			continue
		}
		calls = append(calls, func() (err error) { chunks[k].Reference, err = entail(ctx, j, s, c, ref); return err },
			func() (err error) { chunks[k].Answer, err = entail(ctx, j, s, c, ans); return err })
	}
	if err := together(calls...); err != nil {
		r.fail(NoiseSensitivity, err)
		return
	}
	tr.ByReference = byRef
	tr.Chunks = chunks
	tr.Statements, tr.Relevant, tr.Irrelevant = noiseStatements(chunks, byRef)
	score := noiseScore(mode, len(tr.Statements), tr.Relevant, tr.Irrelevant)
	r.NoiseSensitivity = tr
	r.set(NoiseSensitivity, StatusOK, &score, "")
}

func unentailed(statements []string, reason string) []StatementVerdict {
	out := make([]StatementVerdict, len(statements))
	for i, st := range statements {
		out[i] = StatementVerdict{Statement: st, Verdict: 0, Reason: reason}
	}
	return out
}
