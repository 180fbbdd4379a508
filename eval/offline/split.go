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
	// A "yes" that opens a longer answer ("能，公司每年…") affirms the
	// question's proposition, a statement of its own; not where it asks
	// whether two things share something, which the rest says by its value.
	if openingYes(answer) && len(stmts) > 0 && yesNoQuestion(question) && !containsAnyOf(strings.ToLower(question), "both", "same", "同一", "都", "共同", "一样", "相同") {
		if p := norm.PropositionStatements(question, true); p != nil {
			return append(p, stmts...)
		}
	}
	return stmts
}

// openingYes: the answer opens on a yes word set off by punctuation.
func openingYes(answer string) bool {
	a := strings.TrimSpace(plaintext.StripControls(answer))
	i := strings.IndexAny(a, ",，。.!！;；:：—")
	if i <= 0 {
		return false
	}
	yes, ok := norm.YesNo(a[:i])
	return ok && yes
}

// yesNoQuestion: the question asks one thing, whether ("…能享受免费体检吗？",
// "是否…", "Can I …?"), not what or which; two question marks ask two
// things, and the proposition is no one claim.
func yesNoQuestion(q string) bool {
	q = strings.TrimSpace(plaintext.StripControls(q))
	if strings.Count(q, "?")+strings.Count(q, "？") > 1 {
		return false
	}
	if i := strings.IndexAny(q, "?？"); i >= 0 {
		q = q[:i]
	}
	t := strings.TrimSpace(q)
	if containsHan(t) {
		return strings.HasSuffix(t, "吗") || containsAnyOf(t, "是否", "能否", "可否", "能不能", "可不可以", "是不是", "有没有")
	}
	w := strings.Fields(t)
	return len(w) > 1 && norm.EnglishQuestionAux[strings.ToLower(w[0])]
}

// containsAnyOf: s contains one of words.
func containsAnyOf(s string, words ...string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(s, w) })
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
