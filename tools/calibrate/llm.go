package calibrate

import (
	"fmt"
	"io"
	"strings"

	"github.com/ragscope/ragscope/internal/sanitize"
)

// The LLM judge is calibrated by a run of ragscope (internal/app's
// Session.Calibrate) over the pairs of the sets marked LLM; these are its
// results and their table.

// PairOutcome is how the judge ranked one pair.
type PairOutcome string

const (
	PairWin  PairOutcome = "win"  // the faithful answer scored higher
	PairTie  PairOutcome = "tie"  // the same score: half a win
	PairLoss PairOutcome = "loss" // the unfaithful answer scored higher
	// PairUndefined: an answer had no statements (no_statements); a loss,
	// as the offline calibration counts it: the judge could not tell the
	// answers apart, and a tie would credit it half a pair for that.
	PairUndefined PairOutcome = "undefined"
	// PairFailed: a side failed to score (judge_error, parse_error,
	// cache_miss, cancelled); left out of the accuracy, and said.
	PairFailed PairOutcome = "failed"
)

// PairScore is one pair's outcome, with both sides' faithfulness (nil
// when a side has none) and, when it failed, why.
type PairScore struct {
	Pair                 int // 1-based, as in the sample ids
	Outcome              PairOutcome
	Faithful, Unfaithful *float64
	Why                  string
}

// LLMResult is a judge's pairwise accuracy on one set.
type LLMResult struct {
	Set       string
	Published Published
	Pairs     int // pairs of the set evaluated (after --limit)
	All       int // pairs in the set's file
	// Undefined counts, among the losses, the pairs where an answer had
	// no statements.
	Wins, Ties, Losses, Undefined, Failed int
	// Accuracy is (wins + ties/2) / the pairs judged (not failed); nil
	// when none was.
	Accuracy *float64
	Scores   []PairScore
}

// Judged is the number of pairs the accuracy is over.
func (r LLMResult) Judged() int { return r.Pairs - r.Failed }

// WriteLLMReport is the LLM judge's table beside the published figures,
// their sources, and the pairs it did not win.
func WriteLLMReport(w io.Writer, judge string, results []LLMResult) error {
	var b strings.Builder
	b.WriteString("| judge | dataset | pairs | judged | accuracy | wins | ties | losses | no statements | failed | published |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	var sources []string
	for _, r := range results {
		acc := "n/a"
		if r.Accuracy != nil {
			acc = fmt.Sprintf("%.3f", *r.Accuracy)
		}
		pairs := fmt.Sprintf("%d", r.Pairs)
		if r.Pairs < r.All {
			pairs = fmt.Sprintf("%d of %d", r.Pairs, r.All)
		}
		pub := "not published"
		if p := r.Published; p.Accuracy > 0 {
			sources = append(sources, fmt.Sprintf("[%d] %s: %.2f, %s; %s. %s.", len(sources)+1, r.Set, p.Accuracy, p.Judge, p.Source, p.Note))
			pub = fmt.Sprintf("%.2f (%s) [%d]", p.Accuracy, p.Judge, len(sources))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %d | %d | %d | %d | %d | %s |\n", sanitize.Line(judge), r.Set, pairs, r.Judged(), acc, r.Wins, r.Ties, r.Losses, r.Undefined, r.Failed, pub)
	}
	b.WriteString("\naccuracy: (wins + ties/2) / pairs judged; a pair with an answer without statements is lost (no statements, among the losses), as offline; a pair that failed to score is left out.\n")
	b.WriteString("published: figures of the RAGAS paper; \"not published\" where it has none for the set.\n")
	for _, s := range sources {
		b.WriteString(s + "\n")
	}
	const show = 10
	for _, r := range results {
		var notWon []PairScore
		for _, p := range r.Scores {
			if p.Outcome != PairWin {
				notWon = append(notWon, p)
			}
		}
		if len(notWon) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s: %d pairs not won\n", r.Set, len(notWon))
		for i, p := range notWon {
			if i == show {
				fmt.Fprintf(&b, "  ... and %d more\n", len(notWon)-show)
				break
			}
			outcome := string(p.Outcome)
			if p.Outcome == PairUndefined {
				outcome = "lost (no statements)"
			}
			fmt.Fprintf(&b, "  #%d %s: faithful %s, unfaithful %s", p.Pair, outcome, scoreText(p.Faithful), scoreText(p.Unfaithful))
			if p.Why != "" {
				b.WriteString("; " + sanitize.Line(p.Why))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func scoreText(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *p)
}
