// Package settings reads the evaluation's settings from their text (a
// flag, a key of the settings file); each error names its flag.
package settings

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// ParseACWeights parses --ac-weights: two non-negative numbers, not both 0.
func ParseACWeights(s string) ([2]float64, error) {
	if strings.TrimSpace(s) == "" {
		return eval.DefaultACWeights, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return [2]float64{}, fmt.Errorf("--ac-weights: want two comma-separated numbers (factuality,similarity), got %q", s)
	}
	var w [2]float64
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return [2]float64{}, fmt.Errorf("--ac-weights: %q is not a non-negative number", strings.TrimSpace(p))
		}
		w[i] = v
	}
	if math.IsInf(w[0]+w[1], 0) {
		return [2]float64{}, fmt.Errorf("--ac-weights: %q is too large to weigh with", s)
	}
	if w[0] == 0 && w[1] == 0 {
		return [2]float64{}, errors.New("--ac-weights: the two weights cannot both be 0")
	}
	return w, nil
}

// ParseHistorySupport parses a --history-support value ("" is the default).
func ParseHistorySupport(s string) (eval.HistorySupport, error) {
	switch eval.HistorySupport(s) {
	case "":
		return eval.HistoryChunks, nil
	case eval.HistoryChunks, eval.HistoryConversation, eval.HistoryNone:
		return eval.HistorySupport(s), nil
	}
	return "", fmt.Errorf("--history-support: %q is not one of chunks, conversation, none", s)
}

// ParseMetrics parses a comma-separated --metrics value. "" and "all" are
// eval.DefaultMetrics, so that a script spelling out the old default does
// not start paying for new metrics; "all" may stand in a list.
func ParseMetrics(s string) ([]eval.Metric, error) {
	if s == "" {
		s = "all"
	}
	var out []eval.Metric
	for _, part := range splitComma(s) {
		ms := []eval.Metric{eval.Metric(part)}
		if part == "all" {
			ms = eval.DefaultMetrics
		} else if eval.Def(ms[0]) == nil {
			return nil, fmt.Errorf("--metrics: unknown metric %q (choose from %s; all is the first four)", part, metricList())
		}
		for _, m := range ms {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// ParseLang parses a --lang value.
func ParseLang(s string) (eval.Lang, error) {
	switch eval.Lang(s) {
	case eval.LangAuto, eval.LangEN, eval.LangZH:
		return eval.Lang(s), nil
	case "":
		return eval.LangAuto, nil
	}
	return "", fmt.Errorf("--lang: %q is not one of auto, en, zh", s)
}

// splitComma is the non-empty trimmed items of a comma-separated list.
func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func metricList() string {
	names := make([]string, len(eval.AllMetrics))
	for i, m := range eval.AllMetrics {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}
