package eval

import (
	"cmp"
	"fmt"

	"github.com/ragscope/ragscope/internal/sanitize"
)

// noiseSensitivityDef: the share of the answer's statements that are
// incorrect and backed by a relevant chunk (or only irrelevant ones, by
// --ns-mode); lower is better (runNoiseSensitivity).
var noiseSensitivityDef = traced(MetricDef{
	Name: NoiseSensitivity, Abbrev: "NS", Aliases: []string{"noise"}, LowerIsBetter: true,
	Run: runNoiseSensitivity,
}, func(r *Result) **NoiseSensitivityTrace { return &r.NoiseSensitivity }, (*NoiseSensitivityTrace).formula, func(t *NoiseSensitivityTrace) []string {
	return lines(t.Statements, func(s NoiseStatement) bool { return s.Noise != "" && s.Noise == t.Mode }, func(s NoiseStatement) string {
		backed := s.Relevant
		if s.Noise == "irrelevant" {
			backed = s.Irrelevant
		}
		return fmt.Sprintf("incorrect, backed by %s chunk %s: %q", s.Noise, ranks(backed), s.Statement)
	})
}, func(a, b *NoiseSensitivityTrace) []JudgementChange {
	out := listChanges(NoiseSensitivity, "answer statement", a.Statements, b.Statements, func(v NoiseStatement) (string, string) {
		return v.Statement, noiseJudgement(v)
	})
	return append(out, listChanges(NoiseSensitivity, "chunk", a.Chunks, b.Chunks, func(c NoiseChunk) (string, string) {
		if c.Relevant {
			return "", "relevant (entails a reference statement)"
		}
		return "", "irrelevant"
	})...)
})

// formula is the score's share of the answer's statements in the run's
// mode, and the other mode's beside it.
func (t *NoiseSensitivityTrace) formula(r *Result) []string {
	if r.Status[NoiseSensitivity] != StatusOK || len(t.Statements) == 0 {
		return nil
	}
	mode := cmp.Or(t.Mode, NSModeRelevant)
	n, other, otherMode := t.Relevant, t.Irrelevant, NSModeIrrelevant
	if mode == NSModeIrrelevant {
		n, other, otherMode = t.Irrelevant, t.Relevant, NSModeRelevant
	}
	total := len(t.Statements)
	return []string{
		fmt.Sprintf("noise sensitivity (%s) = %d/%d = %.3f (lower is better)", sanitize.Line(mode), n, total, float64(n)/float64(total)),
		fmt.Sprintf("(%s mode: %d/%d = %.3f)", otherMode, other, total, float64(other)/float64(total)),
	}
}
