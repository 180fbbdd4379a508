package cost

import (
	"slices"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// RunPricing is how a run of judge j is priced from table t, recorded with
// the run (report.RunInfo.Pricing) so that its cost can be read, and checked,
// without the table it was priced with: chat tokens at the chat model's
// price, embedding tokens at the embedding model's. The offline judge
// costs nothing.
func RunPricing(t Table, j eval.JudgeInfo) *report.Pricing {
	if j.Kind == "offline" {
		return &report.Pricing{Offline: true}
	}
	p := &report.Pricing{Table: t.Source}
	price := func(model string) *report.ModelPrice {
		if model == "" {
			return nil
		}
		pr, ok := t.Lookup(model)
		if !ok {
			if !slices.Contains(p.Unpriced, model) {
				p.Unpriced = append(p.Unpriced, model)
			}
			return nil
		}
		return &report.ModelPrice{Model: model, Prompt: pr.Prompt, Completion: pr.Completion}
	}
	p.Chat = price(j.Model)
	p.Embeddings = price(j.EmbeddingModel)
	return p
}
