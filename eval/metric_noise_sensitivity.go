package eval

import "fmt"

// noiseSensitivityDef: the share of the answer's statements that are
// incorrect and backed by a relevant chunk (or only irrelevant ones, by
// --ns-mode); lower is better (runNoiseSensitivity).
var noiseSensitivityDef = traced(MetricDef{
	Name: NoiseSensitivity, Abbrev: "NS", Aliases: []string{"noise"}, LowerIsBetter: true,
	Run: runNoiseSensitivity,
}, func(r *Result) **NoiseSensitivityTrace { return &r.NoiseSensitivity }, func(t *NoiseSensitivityTrace) []string {
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
