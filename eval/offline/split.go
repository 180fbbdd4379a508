package offline

import (
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/internal/memo"
)

// SplitStatements splits a text into statements: its claims
// (plaintext.Claims) that have content.
func SplitStatements(text string) []string {
	// A copy: the caller may change it, the memo's must stay.
	return slices.Clone(splits.Get(text, splitStatements))
}

// StatementsFor are the statements of an answer to question: those of
// SplitStatements, or, for a bare yes or no, the question's proposition
// affirmed or denied ("Yes: both X and Y American", "No, not both X and Y American").
func StatementsFor(question, answer string) []string {
	stmts := SplitStatements(answer)
	if yes, ok := norm.YesNo(answer); ok && len(stmts) == 0 {
		if p := norm.PropositionStatements(question, yes); p != nil {
			return p
		}
	}
	return stmts
}

var splits = memo.New[[]string](analysisCacheSize)

// splitStatements are the text's claims (plaintext.Claims; a Chinese clause
// of common words only, 根据规定, is held onto the next) that have content:
// scoring "Yes." 0 would punish a correct yes/no answer.
func splitStatements(text string) []string {
	return slices.DeleteFunc(plaintext.Claims(text, onlyCommon), func(s string) bool {
		sp := analyze(s)
		return len(sp.feats) == 0 && len(sp.unis) == 0 && len(sp.quants) == 0
	})
}

func containsHan(s string) bool {
	return strings.ContainsFunc(s, isHan)
}
