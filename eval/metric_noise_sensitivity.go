package eval

import (
	"context"
	"fmt"
)

// noiseSensitivityDef: the share of the answer's statements that are
// incorrect and backed by a relevant chunk (or only irrelevant ones, by
// --ns-mode); lower is better (runNoiseSensitivity).
var noiseSensitivityDef = MetricDef{
	Name: NoiseSensitivity, Abbrev: "NS", Aliases: []string{"noise"}, LowerIsBetter: true,
	Run: func(ctx context.Context, j Judge, s *Sample, cfg *RunnerConfig, part *Result) {
		runNoiseSensitivity(ctx, j, s, cfg.NSMode, part)
	},
	CopyTrace: func(dst, src *Result) { dst.NoiseSensitivity = src.NoiseSensitivity },
	Evidence: func(r *Result) []string {
		t := r.NoiseSensitivity
		if t == nil {
			return nil
		}
		return lines(t.Statements, func(s NoiseStatement) bool { return s.Noise != "" && s.Noise == t.Mode }, func(s NoiseStatement) string {
			backed := s.Relevant
			if s.Noise == "irrelevant" {
				backed = s.Irrelevant
			}
			return fmt.Sprintf("incorrect, backed by %s chunk %s: %q", s.Noise, ranks(backed), s.Statement)
		})
	},
	Changes: func(a, b *Result) []JudgementChange {
		if a.NoiseSensitivity == nil || b.NoiseSensitivity == nil {
			return nil
		}
		sa, sb := a.NoiseSensitivity.Statements, b.NoiseSensitivity.Statements
		out := listChanges(NoiseSensitivity, "answer statement", sa, sb, func(v NoiseStatement) (string, string) {
			return v.Statement, noiseJudgement(v)
		})
		ca, cb := a.NoiseSensitivity.Chunks, b.NoiseSensitivity.Chunks
		return append(out, listChanges(NoiseSensitivity, "chunk", ca, cb, func(c NoiseChunk) (string, string) {
			if c.Relevant {
				return "", "relevant (entails a reference statement)"
			}
			return "", "irrelevant"
		})...)
	},
}
