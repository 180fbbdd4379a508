package eval

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
)

func TestFactualScore(t *testing.T) {
	for _, tc := range []struct {
		name       string
		mode       string
		tp, fp, fn int
		want       float64
	}{
		// The RAGAS test vector in every mode: P = 3/4, R = 3/5,
		// F1 = 2·3 / (2·3 + 1 + 2) = 6/9.
		{"ragas vector f1", FCModeF1, 3, 1, 2, 2.0 / 3},
		{"ragas vector precision", FCModePrecision, 3, 1, 2, 0.75},
		{"ragas vector recall", FCModeRecall, 3, 1, 2, 0.6},
		{"all supported, nothing missed", FCModeF1, 4, 0, 0, 1},
		// F1 = 2·1 / (2·1 + 3 + 0) = 2/5; precision 1/4; recall 1/1.
		{"one of four supported f1", FCModeF1, 1, 3, 0, 0.4},
		{"one of four supported precision", FCModePrecision, 1, 3, 0, 0.25},
		{"one of four supported recall", FCModeRecall, 1, 3, 0, 1},
		// F1 = 2·2 / (2·2 + 0 + 3) = 4/7; recall 2/5.
		{"misses only f1", FCModeF1, 2, 0, 3, 4.0 / 7},
		{"misses only precision", FCModePrecision, 2, 0, 3, 1},
		{"misses only recall", FCModeRecall, 2, 0, 3, 0.4},
		// The convention: claims but no TP is 0 in every mode, never 0/0.
		{"no TP f1", FCModeF1, 0, 2, 1, 0},
		{"no TP precision", FCModePrecision, 0, 2, 0, 0},
		{"no TP recall", FCModeRecall, 0, 0, 2, 0},
		{"no TP and nothing missed recall", FCModeRecall, 0, 3, 0, 0},
	} {
		got := factualScore(tc.mode, tc.tp, tc.fp, tc.fn, factualBeta)
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: %s(%d,%d,%d) = %v, want %v", tc.name, tc.mode, tc.tp, tc.fp, tc.fn, got, tc.want)
		}
	}
	// ragscope keeps the exact value where RAGAS rounds to 2 decimals.
	if got := factualScore(FCModeF1, 3, 1, 2, factualBeta); got == 0.67 || math.Round(got*1000)/1000 != 0.667 {
		t.Errorf("RAGAS vector F1 = %v, want 2/3 unrounded", got)
	}
}

func TestParseFCMode(t *testing.T) {
	for in, want := range map[string]string{"": "f1", "f1": "f1", " Precision ": "precision", "recall": "recall"} {
		if got, err := ParseFCMode(in); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"f2", "prec", "both"} {
		if _, err := ParseFCMode(in); err == nil || !strings.Contains(err.Error(), "--fc-mode") || !strings.Contains(err.Error(), "f1, precision or recall") {
			t.Errorf("%q: error %v", in, err)
		}
	}
}

// entailJudge answers the statement extractions from a script and each
// entailment by looking the statement up in the premise's table: a
// statement listed as entailed by that premise gets 1, any other 0.
type entailJudge struct {
	nopJudge
	answer, reference []string
	entails           map[string]map[string]bool // premise -> statements it entails
	fail              map[string]error           // premise -> error of its entailment call
	short             string                     // premise whose call returns one verdict too few

	mu    sync.Mutex
	calls []string // premises asked, in no particular order
}

func (j *entailJudge) Statements(context.Context, *Sample) ([]string, error) { return j.answer, nil }
func (j *entailJudge) ReferenceStatements(context.Context, *Sample) ([]string, error) {
	return j.reference, nil
}
func (j *entailJudge) Entailment(_ context.Context, _ *Sample, premise string, stmts []string) ([]StatementVerdict, error) {
	j.mu.Lock()
	j.calls = append(j.calls, premise)
	j.mu.Unlock()
	if err := j.fail[premise]; err != nil {
		return nil, err
	}
	out := make([]StatementVerdict, len(stmts))
	for i, st := range stmts {
		out[i] = StatementVerdict{Statement: st, Reason: "r " + st}
		if j.entails[premise][st] {
			out[i].Verdict = 1
		}
	}
	if premise == j.short {
		out = out[:len(out)-1]
	}
	return out, nil
}

func set(ss ...string) map[string]bool {
	m := map[string]bool{}
	for _, s := range ss {
		m[s] = true
	}
	return m
}

func TestFactualCorrectness(t *testing.T) {
	full := Sample{Question: "q", Answer: "ANSWER", Reference: "REFERENCE"}
	// The RAGAS vector: answer claims a1-a3 entailed by the reference, a4
	// not (TP 3, FP 1); reference claims r1-r3 entailed by the answer, r4
	// and r5 not (FN 2).
	ragas := func() *entailJudge {
		return &entailJudge{answer: []string{"a1", "a2", "a3", "a4"}, reference: []string{"r1", "r2", "r3", "r4", "r5"},
			entails: map[string]map[string]bool{"REFERENCE": set("a1", "a2", "a3"), "ANSWER": set("r1", "r2", "r3")}}
	}
	for _, tc := range []struct {
		name       string
		s          Sample
		j          *entailJudge
		mode       string
		st         Status
		want       float64
		tp, fp, fn int
		calls      int
		msg        string
	}{
		{"ragas vector f1", full, ragas(), "", StatusOK, 2.0 / 3, 3, 1, 2, 2, ""},
		{"ragas vector precision", full, ragas(), FCModePrecision, StatusOK, 0.75, 3, 1, 0, 1, ""},
		{"ragas vector recall", full, ragas(), FCModeRecall, StatusOK, 0.6, 3, 1, 2, 2, ""},
		// Claims on both sides but no TP: 0 by convention, not no_statements.
		{"no TP f1", full, &entailJudge{answer: []string{"a1"}, reference: []string{"r1"}, entails: map[string]map[string]bool{}},
			FCModeF1, StatusOK, 0, 0, 1, 1, 2, ""},
		// Recall without answer claims: nothing recalled, every reference
		// claim an FN (no call for the empty side).
		{"recall without answer claims", full, &entailJudge{reference: []string{"r1", "r2"}, entails: map[string]map[string]bool{}},
			FCModeRecall, StatusOK, 0, 0, 0, 2, 1, ""},
		// f1 without reference claims is precision's F-score with no FN.
		{"f1 without reference claims", full, &entailJudge{answer: []string{"a1", "a2"}, entails: map[string]map[string]bool{"REFERENCE": set("a1")}},
			FCModeF1, StatusOK, 2.0 / 3, 1, 1, 0, 1, ""},
		{"no answer claims f1", full, &entailJudge{reference: []string{"r1"}}, FCModeF1, StatusNoStatements, 0, 0, 0, 0, 0, "no claims from the answer"},
		{"no answer claims precision", full, &entailJudge{reference: []string{"r1"}}, FCModePrecision, StatusNoStatements, 0, 0, 0, 0, 0, "no claims from the answer"},
		{"no reference claims recall", full, &entailJudge{answer: []string{"a1"}}, FCModeRecall, StatusNoStatements, 0, 0, 0, 0, 0, "no claims from the reference"},
		{"empty answer", Sample{Reference: "REFERENCE"}, ragas(), "", StatusMissingInput, 0, 0, 0, 0, 0, "both an answer and a reference"},
		{"empty reference", Sample{Answer: "ANSWER", Reference: " \n"}, ragas(), "", StatusMissingInput, 0, 0, 0, 0, 0, "both an answer and a reference"},
		{"judge error", full, func() *entailJudge {
			j := ragas()
			j.fail = map[string]error{"ANSWER": NewStepError(StatusJudgeError, "HTTP 500")}
			return j
		}(), FCModeF1, StatusJudgeError, 0, 0, 0, 0, 2, "HTTP 500"},
		{"wrong verdict count", full, func() *entailJudge { j := ragas(); j.short = "REFERENCE"; return j }(),
			FCModePrecision, StatusParseError, 0, 0, 0, 0, 1, "3 entailment verdicts for 4 statements"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			var r Result
			runFactualCorrectness(context.Background(), tc.j, &s, &RunnerConfig{FCMode: tc.mode}, &r)
			if r.Status[FactualCorrectness] != tc.st {
				t.Fatalf("status %s (%s), want %s", r.Status[FactualCorrectness], r.Errors[FactualCorrectness], tc.st)
			}
			if !strings.Contains(r.Errors[FactualCorrectness], tc.msg) {
				t.Errorf("message %q, want %q", r.Errors[FactualCorrectness], tc.msg)
			}
			if len(tc.j.calls) != tc.calls {
				t.Errorf("%d entailment calls (%v), want %d", len(tc.j.calls), tc.j.calls, tc.calls)
			}
			v, ok := r.Score(FactualCorrectness)
			if ok != (tc.st == StatusOK) || math.Abs(v-tc.want) > 1e-12 {
				t.Fatalf("score %v %v, want %v", v, ok, tc.want)
			}
			tr := r.FactualCorrectness
			if tc.st == StatusNoStatements && (tr == nil || tr.AnswerClaims == nil || tr.ReferenceClaims == nil) {
				t.Fatalf("no_statements trace %+v", tr)
			}
			if tc.st != StatusOK {
				return
			}
			mode := tc.mode
			if mode == "" {
				mode = FCModeF1
			}
			if tr.Mode != mode || tr.Beta != 1 || tr.TP != tc.tp || tr.FP != tc.fp || tr.FN != tc.fn {
				t.Errorf("trace %+v", tr)
			}
			if tr.AnswerClaims == nil || tr.ReferenceClaims == nil {
				t.Errorf("nil claim lists: %+v", tr)
			}
			if len(tr.AnswerClaims) != len(tc.j.answer) {
				t.Errorf("answer claims %+v", tr.AnswerClaims)
			}
			if mode == FCModePrecision && len(tr.ReferenceClaims) != 0 {
				t.Errorf("precision mode judged the reference's claims: %+v", tr.ReferenceClaims)
			}
			if mode != FCModePrecision && len(tr.ReferenceClaims) != len(tc.j.reference) {
				t.Errorf("reference claims %+v", tr.ReferenceClaims)
			}
			for _, c := range tr.AnswerClaims {
				if c.Reason != "r "+c.Statement {
					t.Errorf("reason not kept: %+v", c)
				}
			}
		})
	}
}

// A judge error of the statement extraction ends the metric with it.
func TestFactualCorrectnessExtractionError(t *testing.T) {
	j := &failingStatements{err: NewStepError(StatusJudgeError, "429 too many requests")}
	var r Result
	runFactualCorrectness(context.Background(), j, &Sample{Answer: "a", Reference: "b"}, &RunnerConfig{}, &r)
	if r.Status[FactualCorrectness] != StatusJudgeError || !strings.Contains(r.Errors[FactualCorrectness], "429") {
		t.Fatalf("%s: %s", r.Status[FactualCorrectness], r.Errors[FactualCorrectness])
	}
	var n Result
	runNoiseSensitivity(context.Background(), j, &Sample{Answer: "a", Reference: "b", Contexts: []string{"c"}}, &RunnerConfig{}, &n)
	if n.Status[NoiseSensitivity] != StatusJudgeError {
		t.Fatalf("%s: %s", n.Status[NoiseSensitivity], n.Errors[NoiseSensitivity])
	}
}

type failingStatements struct {
	nopJudge
	err error
}

func (j failingStatements) ReferenceStatements(context.Context, *Sample) ([]string, error) {
	return nil, j.err
}
