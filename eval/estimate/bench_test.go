package estimate

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/cost"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/prompts"
)

func benchSamples(n int) []eval.Sample {
	out := make([]eval.Sample, n)
	for i := range out {
		out[i] = eval.Sample{Index: i, ID: fmt.Sprint(i),
			Question:  fmt.Sprintf("Who designed the tower, and when was it finished? (%d)", i),
			Answer:    fmt.Sprintf("Gustave Eiffel's company designed it. It was finished in 1889 for the World's Fair. It is 330 m tall. [%d]", i),
			Contexts:  []string{strings.Repeat(fmt.Sprintf("The tower was designed by the company of Gustave Eiffel (%d). ", i), 6), "It was completed in March 1889. It is 330 metres tall.", "Paris hosted the Exposition Universelle in 1889."},
			Reference: "Eiffel's company designed it; it was finished in 1889."}
	}
	return out
}

func planConfig(model string) Config {
	j := llm.New(llm.Config{BaseURL: "http://judge.invalid/v1", Model: model, EmbeddingModel: "text-embedding-3-small", QuestionTemperature: 0.7}, nil, prompts.Embedded())
	return Config{Judge: func(c eval.ChatClient) eval.Judge { return j.With(nil, c) }, Model: model, EmbeddingModel: "text-embedding-3-small",
		Strictness: 3, Prices: cost.Builtin()}
}

// BenchmarkEstimate10k plans 10,000 samples without a cache: the cost is
// the tokenizer (see cost.Memo).
func BenchmarkEstimate10k(b *testing.B) {
	samples := benchSamples(10_000)
	for i := 0; i < b.N; i++ {
		est, err := Run(context.Background(), planConfig("gpt-4o-mini"), eval.SliceSource(samples), len(samples))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(est.Calls.Chat+est.Calls.Embeddings), "calls")
	}
}
