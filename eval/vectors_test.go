package eval

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestCheckVectors(t *testing.T) {
	tests := []struct {
		name string
		vecs [][]float64
		want int
		err  string
	}{
		{"fine", [][]float64{{1, 0}, {0.5, 0.5}}, 0, ""},
		{"asked dimension", [][]float64{{1, 0, 0}}, 3, ""},
		{"NaN", [][]float64{{1, 0}, {math.NaN(), 1}}, 0, "NaN at component 0 of the vector of text 2"},
		{"Inf", [][]float64{{math.Inf(-1), 1}}, 0, "-Inf"},
		{"all zero", [][]float64{{1, 1}, {0, 0}}, 0, "all-zero vector for text 2"},
		{"mixed dimensions", [][]float64{{1, 1}, {1, 1, 1}}, 0, "3 dimensions for text 2 of 2, but the first has 2"},
		{"not the dimension asked", [][]float64{{1, 1}}, 8, "8 were asked for"},
		{"empty", [][]float64{{}}, 0, "empty vector"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckVectors(tt.vecs, tt.want)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("err = %v, want %q", err, tt.err)
			case err != nil && StatusOf(err) != StatusJudgeError:
				t.Fatalf("status %s, want judge_error", StatusOf(err))
			}
		})
	}
}

func TestResultsStayStorable(t *testing.T) {
	one := 1.0
	r := &Result{
		Scores:          map[Metric]*float64{AnswerRelevancy: &one},
		Status:          map[Metric]Status{AnswerRelevancy: StatusOK},
		AnswerRelevancy: &AnswerRelevancyTrace{Questions: []GeneratedQuestion{{Question: "q", Cosine: math.NaN()}}},
	}
	r.makeFinite()
	if r.Status[AnswerRelevancy] != StatusJudgeError || r.Scores[AnswerRelevancy] != nil {
		t.Fatalf("status %s, score %v", r.Status[AnswerRelevancy], r.Scores[AnswerRelevancy])
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("the result cannot be stored: %v", err)
	}
}
