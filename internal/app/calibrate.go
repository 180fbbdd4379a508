package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/tools/calibrate"
)

// Calibrating a judge is a run like any other: the labelled pairs become a
// dataset in memory (Config.Preloaded), the session built from run's flags
// judges it through the cache, records it (so each verdict can be opened),
// and stops fast when the judge cannot be reached. What is particular is
// only how the results are read: two samples a pair.

// CalibrationData is the dataset of a calibration: each pair is two
// samples in a row, its faithful answer first (index 2k) and its
// unfaithful one after (2k+1), ids naming the set, the pair and the side.
// Its sha256 is that of its samples, so a run record identifies the pairs.
func CalibrationData(name string, sets []calibrate.LoadedSet) *dataset.Loaded {
	l := &dataset.Loaded{Path: name, Format: "calibration"}
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, ls := range sets {
		for k, p := range ls.Pairs {
			for side, answer := range []string{p.Faithful, p.Unfaith} {
				s := eval.Sample{Index: len(l.Samples), ID: fmt.Sprintf("%s#%d/%s", ls.Name, k+1, [2]string{"faithful", "unfaithful"}[side]),
					Question: p.Question, Answer: answer, Contexts: p.Contexts}
				_ = enc.Encode(s)
				l.Samples = append(l.Samples, s)
			}
		}
	}
	l.Count = len(l.Samples)
	l.SHA256 = hex.EncodeToString(h.Sum(nil))
	return l
}

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

// CalibrationResult is a judge's pairwise accuracy on one set.
type CalibrationResult struct {
	Set       string
	Published calibrate.Published
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
func (r CalibrationResult) Judged() int { return r.Pairs - r.Failed }

// Calibrate runs the session over the calibration dataset built from sets
// (CalibrationData, set as Config.Preloaded) and reads each pair's
// outcome. A judge that fails everything stops the run: the error says why
// (the endpoint, the key), and no accuracy is made of it.
func (s *Session) Calibrate(ctx context.Context, sets []calibrate.LoadedSet) ([]CalibrationResult, *Run, error) {
	run, err := s.Start(ctx)
	if err != nil {
		return nil, nil, err
	}
	type side struct {
		st    eval.Status
		score *float64
		why   string
	}
	got := make([]side, s.Loaded.Count)
	for ev := range run.Events {
		if ev.Kind != eval.EventSampleFinished || ev.Result == nil || ev.Result.Index < 0 || ev.Result.Index >= len(got) {
			continue
		}
		r := ev.Result
		got[r.Index] = side{st: r.Status[eval.Faithfulness], score: r.Scores[eval.Faithfulness], why: r.Errors[eval.Faithfulness]}
	}
	if _, err := run.Wait(); err != nil {
		return nil, run, err
	}
	if why := run.Stopped(); why != nil {
		msg := why.Error()
		if f := endpoint.Classify(why); f.Endpoint != "" && !strings.Contains(msg, f.Endpoint) {
			msg += " (endpoint " + f.Endpoint + ")"
		}
		return nil, run, fmt.Errorf("the calibration stopped: %s; no accuracy is given for a judge that could not judge (fix it, check it with `ragscope check` and the same flags, then calibrate again: what was judged is cached)", msg)
	}
	var out []CalibrationResult
	next := 0
	for _, ls := range sets {
		r := CalibrationResult{Set: ls.Name, Published: ls.Published, Pairs: len(ls.Pairs), All: ls.All}
		for k := range ls.Pairs {
			g, b := got[next], got[next+1]
			next += 2
			ps := PairScore{Pair: k + 1, Faithful: g.score, Unfaithful: b.score}
			switch {
			case g.st == "" || b.st == "":
				ps.Outcome, ps.Why = PairFailed, "not evaluated: the run ended before this pair"
			case g.st.Failed() || b.st.Failed():
				ps.Outcome = PairFailed
				for _, x := range []struct {
					name string
					s    side
				}{{"faithful", g}, {"unfaithful", b}} {
					if x.s.st.Failed() {
						if ps.Why != "" {
							ps.Why += "; "
						}
						ps.Why += fmt.Sprintf("%s answer: %s: %s", x.name, x.s.st, x.s.why)
					}
				}
			case g.st != eval.StatusOK || b.st != eval.StatusOK || g.score == nil || b.score == nil:
				ps.Outcome = PairUndefined
				if g.st != eval.StatusOK {
					ps.Why = "faithful answer: " + string(g.st)
				} else {
					ps.Why = "unfaithful answer: " + string(b.st)
				}
			case *g.score > *b.score:
				ps.Outcome = PairWin
			case *g.score == *b.score:
				ps.Outcome = PairTie
			default:
				ps.Outcome = PairLoss
			}
			switch ps.Outcome {
			case PairWin:
				r.Wins++
			case PairTie:
				r.Ties++
			case PairUndefined:
				r.Undefined++
				r.Losses++
			case PairLoss:
				r.Losses++
			case PairFailed:
				r.Failed++
			}
			r.Scores = append(r.Scores, ps)
		}
		if n := r.Judged(); n > 0 {
			acc := (float64(r.Wins) + 0.5*float64(r.Ties)) / float64(n)
			r.Accuracy = &acc
		}
		out = append(out, r)
	}
	return out, run, nil
}
