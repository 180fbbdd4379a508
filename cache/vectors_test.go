package cache

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// A poisoned embedding reply is a judge error and is never cached: the next
// run asks again instead of replaying it.
func TestPoisonedEmbeddingsAreNeverCached(t *testing.T) {
	tests := []struct {
		name   string
		poison func(i int, v []float64) []float64
		want   string
	}{
		{"NaN", func(i int, v []float64) []float64 { v[3] = math.NaN(); return v }, "NaN"},
		{"Inf", func(i int, v []float64) []float64 { v[0] = math.Inf(1); return v }, "+Inf"},
		{"all zero", func(i int, v []float64) []float64 { return make([]float64, len(v)) }, "all-zero"},
		{"mixed dimensions", func(i int, v []float64) []float64 {
			if i == 1 {
				return append(v, 0.5)
			}
			return v
		}, "9 dimensions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openTemp(t)
			inner := &fakeInner{poison: tt.poison}
			c := db.Client(inner, ReadWrite)
			req := eval.EmbedRequest{Endpoint: "e", Model: "m", Texts: []string{"q", "g1", "g2"}}
			_, err := c.Embed(context.Background(), req)
			if err == nil || !strings.Contains(err.Error(), tt.want) || eval.StatusOf(err) != eval.StatusJudgeError {
				t.Fatalf("err = %v (status %s), want a judge error naming %q", err, eval.StatusOf(err), tt.want)
			}
			if st, _ := db.Stats(); st.Of(KindEmbedding).Entries != 0 {
				t.Fatalf("%d poisoned vectors were cached", st.Of(KindEmbedding).Entries)
			}
			inner.poison = nil
			if _, err := c.Embed(context.Background(), req); err != nil {
				t.Fatalf("after the endpoint recovered: %v", err)
			}
			if inner.embeds.Load() != 2 {
				t.Fatalf("%d requests, want the second to be sent again", inner.embeds.Load())
			}
		})
	}
}

// A vector that an older version cached unchecked is fetched again.
func TestCachedPoisonIsFetchedAgain(t *testing.T) {
	db := openTemp(t)
	req := eval.EmbedRequest{Endpoint: "e", Model: "m", Texts: []string{"q"}}
	if err := db.PutEmbeddings(req, req.Texts, [][]float64{{math.NaN(), 1}}); err != nil {
		t.Fatal(err)
	}
	inner := &fakeInner{}
	resp, err := db.Client(inner, ReadWrite).Embed(context.Background(), req)
	if err != nil || resp.Cached != 0 || inner.embeds.Load() != 1 {
		t.Fatalf("cached NaN: %v, cached %d, sent %d", err, resp.Cached, inner.embeds.Load())
	}
	if err := eval.CheckVectors(resp.Vectors, 0); err != nil {
		t.Fatal(err)
	}
}
