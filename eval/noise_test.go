package eval

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParseNSMode(t *testing.T) {
	for in, want := range map[string]string{"": "relevant", "relevant": "relevant", " IRRELEVANT": "irrelevant"} {
		if got, err := ParseNSMode(in); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseNSMode("noisy"); err == nil || !strings.Contains(err.Error(), "--ns-mode") || !strings.Contains(err.Error(), "relevant or irrelevant") {
		t.Errorf("error %v", err)
	}
}

// noiseMatrix is the hand-computed case. The reference has r1 and r2, the
// answer a1-a5, and the reference entails only a1. Chunk 1 entails r1, so
// it is relevant; chunks 2 and 4 entail no reference statement and are
// irrelevant; chunk 3 is empty.
//
//	      a1  a2  a3  a4  a5     relevant?
//	C1     1   1   0   0   1     yes (r1)
//	C2     0   1   1   0   0     no
//	C3     -   -   -   -   -     no (empty: no call)
//	C4     1   0   0   0   0     no
//
//	a1 correct, backed by C1 (relevant) and C4        -> no noise
//	a2 incorrect, backed by C1 (relevant) and C2      -> relevant noise (not irrelevant too)
//	a3 incorrect, backed only by C2                   -> irrelevant noise
//	a4 incorrect, backed by nothing                   -> no noise
//	a5 incorrect, backed by C1                        -> relevant noise
//
// relevant = 2/5, irrelevant = 1/5.
func noiseMatrix() (*entailJudge, Sample) {
	j := &entailJudge{answer: []string{"a1", "a2", "a3", "a4", "a5"}, reference: []string{"r1", "r2"},
		entails: map[string]map[string]bool{
			"REFERENCE": set("a1"),
			"C1":        set("r1", "a1", "a2", "a5"),
			"C2":        set("a2", "a3"),
			"C4":        set("a1"),
		}}
	return j, Sample{Question: "q", Answer: "ANSWER", Reference: "REFERENCE", Contexts: []string{"C1", "C2", " ", "C4"}}
}

func TestNoiseSensitivity(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want float64
	}{{"", 2.0 / 5}, {NSModeRelevant, 2.0 / 5}, {NSModeIrrelevant, 1.0 / 5}} {
		t.Run("mode "+tc.mode, func(t *testing.T) {
			j, s := noiseMatrix()
			var r Result
			runNoiseSensitivity(context.Background(), j, &s, &RunnerConfig{NSMode: tc.mode}, &r)
			v, ok := r.Score(NoiseSensitivity)
			if !ok || math.Abs(v-tc.want) > 1e-12 {
				t.Fatalf("score %v %v (%s: %s), want %v", v, ok, r.Status[NoiseSensitivity], r.Errors[NoiseSensitivity], tc.want)
			}
			// One call against the reference, two per non-empty chunk.
			slices.Sort(j.calls)
			if want := []string{"C1", "C1", "C2", "C2", "C4", "C4", "REFERENCE"}; !slices.Equal(j.calls, want) {
				t.Errorf("calls %v, want %v", j.calls, want)
			}
			tr := r.NoiseSensitivity
			wantMode := tc.mode
			if wantMode == "" {
				wantMode = NSModeRelevant
			}
			if tr.Mode != wantMode || tr.Relevant != 2 || tr.Irrelevant != 1 || !slices.Equal(tr.ReferenceStatements, []string{"r1", "r2"}) {
				t.Errorf("trace mode %q relevant %d irrelevant %d refs %v", tr.Mode, tr.Relevant, tr.Irrelevant, tr.ReferenceStatements)
			}
			if len(tr.ByReference) != 5 || tr.ByReference[0].Verdict != 1 || tr.ByReference[1].Verdict != 0 {
				t.Errorf("by reference %+v", tr.ByReference)
			}
			if len(tr.Chunks) != 4 {
				t.Fatalf("chunks %+v", tr.Chunks)
			}
			for k, want := range []bool{true, false, false, false} {
				c := tr.Chunks[k]
				if c.Rank != k+1 || c.Relevant != want || len(c.Reference) != 2 || len(c.Answer) != 5 {
					t.Errorf("chunk %d: %+v", k+1, c)
				}
			}
			if c := tr.Chunks[2]; c.Answer[0].Verdict != 0 || c.Answer[0].Reason != "the chunk is empty" || c.Reference[1].Reason != "the chunk is empty" {
				t.Errorf("empty chunk: %+v", c)
			}
			want := []NoiseStatement{
				{Statement: "a1", Correct: true, Relevant: []int{1}, Irrelevant: []int{4}},
				{Statement: "a2", Relevant: []int{1}, Irrelevant: []int{2}, Noise: NSModeRelevant},
				{Statement: "a3", Relevant: []int{}, Irrelevant: []int{2}, Noise: NSModeIrrelevant},
				{Statement: "a4", Relevant: []int{}, Irrelevant: []int{}},
				{Statement: "a5", Relevant: []int{1}, Irrelevant: []int{}, Noise: NSModeRelevant},
			}
			for i, w := range want {
				g := tr.Statements[i]
				if g.Statement != w.Statement || g.Correct != w.Correct || g.Noise != w.Noise ||
					!slices.Equal(g.Relevant, w.Relevant) || !slices.Equal(g.Irrelevant, w.Irrelevant) || g.Relevant == nil || g.Irrelevant == nil {
					t.Errorf("statement %d: %+v, want %+v", i+1, g, w)
				}
			}
		})
	}
}

// The formula alone, on matrices small enough to check by eye.
func TestNoiseStatements(t *testing.T) {
	v := func(vs ...int) []StatementVerdict {
		out := make([]StatementVerdict, len(vs))
		for i, x := range vs {
			out[i] = StatementVerdict{Statement: string(rune('a' + i)), Verdict: x}
		}
		return out
	}
	for _, tc := range []struct {
		name          string
		chunks        []NoiseChunk
		byRef         []StatementVerdict
		rel, irr      int
		relevantScore float64
	}{
		{"every statement correct", []NoiseChunk{{Rank: 1, Reference: v(1), Answer: v(1, 1)}}, v(1, 1), 0, 0, 0},
		{"incorrect and backed by the relevant chunk", []NoiseChunk{{Rank: 1, Reference: v(1), Answer: v(1, 1)}}, v(1, 0), 1, 0, 0.5},
		{"no chunk relevant: noise is irrelevant", []NoiseChunk{{Rank: 1, Reference: v(0, 0), Answer: v(1, 1)}, {Rank: 2, Reference: v(0, 0), Answer: v(0, 1)}},
			v(0, 0), 0, 2, 0},
		{"incorrect, backed by nothing", []NoiseChunk{{Rank: 1, Reference: v(1), Answer: v(0, 0, 0)}}, v(0, 0, 0), 0, 0, 0},
	} {
		stmts, rel, irr := noiseStatements(tc.chunks, tc.byRef)
		if rel != tc.rel || irr != tc.irr || len(stmts) != len(tc.byRef) {
			t.Errorf("%s: relevant %d irrelevant %d (%+v), want %d %d", tc.name, rel, irr, stmts, tc.rel, tc.irr)
		}
		if got := noiseScore(NSModeRelevant, len(stmts), rel, irr); math.Abs(got-tc.relevantScore) > 1e-12 {
			t.Errorf("%s: relevant score %v, want %v", tc.name, got, tc.relevantScore)
		}
	}
	if noiseScore(NSModeIrrelevant, 4, 1, 3) != 0.75 || noiseScore(NSModeRelevant, 4, 1, 3) != 0.25 || noiseScore(NSModeRelevant, 0, 0, 0) != 0 {
		t.Error("NoiseScore")
	}
}

func TestNoiseSensitivityEdges(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*entailJudge, *Sample)
		st    Status
		msg   string
		calls int
	}{
		{"no contexts", func(_ *entailJudge, s *Sample) { s.Contexts = nil }, StatusMissingInput, "no retrieved contexts", 0},
		{"only blank contexts", func(_ *entailJudge, s *Sample) { s.Contexts = []string{"", "  "} }, StatusMissingInput, "no retrieved contexts", 0},
		{"empty answer", func(_ *entailJudge, s *Sample) { s.Answer = "" }, StatusMissingInput, "needs an answer", 0},
		{"empty reference", func(_ *entailJudge, s *Sample) { s.Reference = "\t" }, StatusMissingInput, "needs a reference", 0},
		{"no answer statements", func(j *entailJudge, _ *Sample) { j.answer = nil }, StatusNoStatements, "no statements from the answer", 0},
		{"no reference statements", func(j *entailJudge, _ *Sample) { j.reference = nil }, StatusNoStatements, "no chunk can be relevant", 0},
		{"a chunk's call fails", func(j *entailJudge, _ *Sample) {
			j.fail = map[string]error{"C2": NewStepError(StatusJudgeError, "HTTP 500 from the judge")}
		}, StatusJudgeError, "HTTP 500", 7},
		{"wrong verdict count", func(j *entailJudge, _ *Sample) { j.short = "C4" }, StatusParseError, "entailment verdicts for", 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, s := noiseMatrix()
			tc.edit(j, &s)
			var r Result
			runNoiseSensitivity(context.Background(), j, &s, &RunnerConfig{}, &r)
			if r.Status[NoiseSensitivity] != tc.st || !strings.Contains(r.Errors[NoiseSensitivity], tc.msg) {
				t.Fatalf("%s (%s), want %s (%s)", r.Status[NoiseSensitivity], r.Errors[NoiseSensitivity], tc.st, tc.msg)
			}
			if r.Scores[NoiseSensitivity] != nil {
				t.Errorf("a %s metric has a score", tc.st)
			}
			if len(j.calls) != tc.calls {
				t.Errorf("%d entailment calls, want %d", len(j.calls), tc.calls)
			}
			if tc.st == StatusNoStatements {
				if tr := r.NoiseSensitivity; tr == nil || tr.Chunks == nil || tr.Statements == nil || tr.ByReference == nil || tr.ReferenceStatements == nil {
					t.Errorf("trace %+v", tr)
				}
			}
		})
	}
}

// A judge that cannot compute a metric honestly (MetricSupporter) ends it
// unsupported with its reason and no call; the other metrics run.
type unsupportingJudge struct{ *entailJudge }

func (unsupportingJudge) Unsupported(m Metric) string {
	if m == NoiseSensitivity {
		return "not by this judge"
	}
	return ""
}

func TestRunnerHonoursMetricSupporter(t *testing.T) {
	j, s := noiseMatrix()
	r := &Runner{Judge: unsupportingJudge{j}, Config: RunnerConfig{Metrics: []Metric{FactualCorrectness, NoiseSensitivity}, FCMode: FCModePrecision}}
	res := r.Run(context.Background(), []Sample{s})[0]
	if res.Status[NoiseSensitivity] != StatusUnsupported || res.Errors[NoiseSensitivity] != "not by this judge" || res.NoiseSensitivity != nil {
		t.Errorf("noise sensitivity: %s %q %+v", res.Status[NoiseSensitivity], res.Errors[NoiseSensitivity], res.NoiseSensitivity)
	}
	if StatusUnsupported.Failed() {
		t.Error("unsupported counts as a failure")
	}
	// Precision: the answer's 5 claims against the reference, a1 entailed.
	if v, ok := res.Score(FactualCorrectness); !ok || v != 0.2 || res.FactualCorrectness == nil || res.FactualCorrectness.Mode != FCModePrecision {
		t.Errorf("factual correctness %v %v (%s) %+v", v, ok, res.Errors[FactualCorrectness], res.FactualCorrectness)
	}
	if len(j.calls) != 1 || j.calls[0] != "REFERENCE" {
		t.Errorf("calls %v: noise sensitivity must make none", j.calls)
	}
}
