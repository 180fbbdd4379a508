// Package cost prices judge calls: a dated, built-in table of model prices
// that a user's prices.json overrides, and token counting for prompts (a real
// tokenizer for OpenAI models, an estimate, labelled as one, for the rest).
package cost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// BuiltinDate is the date the built-in prices are as of: the vendors'
// published list prices as known then. Prices change; prices.json overrides
// them, and every estimate and run record names the table it used.
const BuiltinDate = "2025-09-30"

// Price is what a model charges, in US dollars per million tokens.
type Price struct {
	Prompt     float64 `json:"prompt"`     // input tokens
	Completion float64 `json:"completion"` // output tokens; 0 for embedding models
}

// Of prices a token count.
func (p Price) Of(u eval.Usage) float64 {
	return (float64(u.PromptTokens)*p.Prompt + float64(u.CompletionTokens)*p.Completion) / 1e6
}

// Table maps model names to prices. A model is found by its exact name, else
// by the longest listed name it starts with followed by "-" (a dated snapshot
// such as gpt-4o-mini-2024-07-18 is priced as gpt-4o-mini).
type Table struct {
	Date   string           `json:"date,omitempty"` // when these prices were checked
	Models map[string]Price `json:"models"`
	// Source says where the table came from: "built-in (DATE)" or the
	// prices.json path that overrode part of it.
	Source string `json:"-"`
}

// builtin is the table shipped in the binary (USD per 1M tokens, standard
// tier, no batch or cached-input discount).
var builtin = map[string]Price{
	"gpt-4o":                 {2.50, 10.00},
	"gpt-4o-mini":            {0.15, 0.60},
	"gpt-4.1":                {2.00, 8.00},
	"gpt-4.1-mini":           {0.40, 1.60},
	"gpt-4.1-nano":           {0.10, 0.40},
	"gpt-5":                  {1.25, 10.00},
	"gpt-5-mini":             {0.25, 2.00},
	"gpt-5-nano":             {0.05, 0.40},
	"gpt-4-turbo":            {10.00, 30.00},
	"gpt-4":                  {30.00, 60.00},
	"gpt-3.5-turbo":          {0.50, 1.50},
	"o1":                     {15.00, 60.00},
	"o3":                     {2.00, 8.00},
	"o3-mini":                {1.10, 4.40},
	"o4-mini":                {1.10, 4.40},
	"text-embedding-3-small": {0.02, 0},
	"text-embedding-3-large": {0.13, 0},
	"text-embedding-ada-002": {0.10, 0},
	"deepseek-chat":          {0.28, 0.42},
	"deepseek-reasoner":      {0.28, 0.42},
}

// Builtin returns a copy of the built-in table.
func Builtin() Table {
	return Table{Date: BuiltinDate, Models: maps.Clone(builtin), Source: "built-in (" + BuiltinDate + ")"}
}

// FileName is the override file's name in the config directory.
const FileName = "prices.json"

// DefaultPath is $XDG_CONFIG_HOME/ragscope/prices.json (or the platform's
// config directory), "" when there is none.
func DefaultPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "ragscope", FileName)
}

// Load returns the built-in table with the models of the file at path
// added or replaced. A missing file is no error when required is false; a
// file that exists must parse, and every price must be a finite number ≥ 0.
//
// The file: {"date": "2026-11-30", "models": {"my-model": {"prompt": 0.5, "completion": 1.5}}}
func Load(path string, required bool) (Table, error) {
	t := Builtin()
	if path == "" {
		return t, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !required {
		return t, nil
	}
	if err != nil {
		return t, fmt.Errorf("reading the price table: %v", err)
	}
	var f Table
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return t, fmt.Errorf("%s%s: %v (want {\"date\": \"YYYY-MM-DD\", \"models\": {\"MODEL\": {\"prompt\": USD_PER_1M, \"completion\": USD_PER_1M}}})", path, lineOf(b, err), err)
	}
	for name, p := range f.Models {
		for _, v := range []struct {
			field string
			x     float64
		}{{"prompt", p.Prompt}, {"completion", p.Completion}} {
			if v.x < 0 || math.IsNaN(v.x) || math.IsInf(v.x, 0) {
				return t, fmt.Errorf("%s: models.%s.%s is %v; a price is US dollars per million tokens, 0 or more", path, name, v.field, v.x)
			}
		}
		t.Models[name] = p
	}
	t.Source = path
	if f.Date != "" {
		t.Source += " (" + f.Date + ")"
	}
	t.Source += " over built-in (" + BuiltinDate + ")"
	return t, nil
}

// Lookup finds a model's price: the exact name, else the longest listed
// name that prefixes it before a "-". Names are matched case-insensitively,
// and a provider prefix such as "openai/" is ignored.
func (t Table) Lookup(model string) (Price, bool) {
	m := modelName(model)
	// Longest first, so gpt-4o-mini wins over gpt-4o.
	names := slices.SortedFunc(maps.Keys(t.Models), func(a, b string) int { return len(b) - len(a) })
	for _, k := range names {
		lk := strings.ToLower(k)
		if m == lk || strings.HasPrefix(m, lk+"-") {
			return t.Models[k], true
		}
	}
	return Price{}, false
}

// modelName is a model name as the tables list it: lower case, without a
// provider prefix such as "openai/".
func modelName(model string) string {
	m := strings.ToLower(model)
	return m[strings.LastIndexByte(m, '/')+1:] // all of it without a '/'
}

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

// lineOf is ":N", the line of b where the JSON error err was found, or "".
func lineOf(b []byte, err error) string {
	var off int64
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	default:
		return ""
	}
	return fmt.Sprintf(":%d", 1+bytes.Count(b[:min(off, int64(len(b)))], []byte("\n")))
}
