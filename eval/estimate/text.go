package estimate

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/prompts"
)

// WriteText writes the estimate as a table for a person: per metric the
// calls, cache hits, tokens and cost, a total, then how tokens were
// counted, which prices applied and what the estimate leaves out.
func (e *Estimate) WriteText(w io.Writer, dataset string) error {
	var b strings.Builder
	judge := "offline (lexical)"
	if e.Judge == "llm" {
		judge = e.Model
		if _, ok := e.ByMetric[eval.AnswerRelevancy]; ok && e.Embedding != "" {
			judge += " (embeddings: " + e.Embedding + ")"
		}
	}
	fmt.Fprintf(&b, "estimate of a run of %s: %d samples, judge %s\n\n", sanitize.Line(dataset), e.Samples, sanitize.Line(judge))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := len("metric")
	for _, m := range e.order {
		width = max(width, len(m))
	}
	// Names left, numbers right: the names are padded to one width, so
	// right-aligning them changes nothing.
	fmt.Fprintf(tw, "%-*s\tchat calls\tembedding calls\tcache hits\tprompt tokens\tcompletion tokens\tcost (USD)\t\n", width, "metric")
	row := func(name string, m Metric) {
		fmt.Fprintf(tw, "%-*s\t%d\t%d\t%d\t%d\t%d\t%s\t\n", width, name, m.Calls.Chat, m.Calls.Embeddings, m.CacheHits, m.Tokens.Prompt, m.Tokens.Completion, USD(m.CostUSD))
	}
	for _, m := range e.order {
		row(string(m), e.ByMetric[m])
	}
	row("total", Metric{Calls: e.Calls, Tokens: e.Tokens, CostUSD: e.CostUSD, CacheHits: e.CacheHits})
	tw.Flush()
	b.WriteString("\n")
	if e.Judge == "llm" {
		for _, model := range slices.Sorted(maps.Keys(e.Tokenizer)) {
			fmt.Fprintf(&b, "prompt tokens of %s: %s\n", sanitize.Line(model), e.Tokenizer[model])
		}
		// Grouped by where the numbers come from: "default guess" for
		// all five tasks is one phrase, not five.
		var basis []string
		bySource := map[string][]string{}
		for _, t := range prompts.Tasks {
			src := e.Completion[t]
			if src == "" {
				continue
			}
			if bySource[src] == nil {
				basis = append(basis, src)
			}
			bySource[src] = append(bySource[src], t)
		}
		for i, src := range basis {
			what := src
			if src == "default guess" {
				what += " (no past reply to these prompts: the length of a typical reply)"
			}
			basis[i] = what + " for " + joinList(bySource[src])
		}
		if len(basis) > 0 {
			fmt.Fprintf(&b, "completion tokens: %s\n", strings.Join(basis, "; "))
		}
	}
	fmt.Fprintf(&b, "prices: %s", sanitize.Line(e.Prices.Source))
	for _, model := range slices.Sorted(maps.Keys(e.Prices.Models)) {
		p := e.Prices.Models[model]
		if p.Completion == 0 {
			fmt.Fprintf(&b, "; %s $%g per 1M tokens", sanitize.Line(model), p.Prompt)
		} else {
			fmt.Fprintf(&b, "; %s $%g/$%g per 1M prompt/completion tokens", sanitize.Line(model), p.Prompt, p.Completion)
		}
	}
	b.WriteString("\n")
	if len(e.Notes) > 0 {
		b.WriteString("notes:\n")
		for _, n := range e.Notes {
			fmt.Fprintf(&b, "  - %s\n", sanitize.Line(n))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// USD shows a cost as the table does, with the precision a small run needs.
func USD(c *float64) string {
	switch {
	case c == nil:
		return "no price"
	case *c == 0:
		return "$0"
	case *c < 10:
		return fmt.Sprintf("$%.4f", *c)
	}
	return fmt.Sprintf("$%.2f", *c)
}
