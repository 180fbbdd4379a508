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
	"github.com/ragscope/ragscope/tools/calibrate"
)

// Calibrating a judge is a run like any other, through the cache and
// recorded; only how its results are read, two samples a pair, is its own.

// pairSides name a pair's two answers in ids and messages.
var pairSides = [2]string{"faithful", "unfaithful"}

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
				s := eval.Sample{Index: len(l.Samples), ID: fmt.Sprintf("%s#%d/%s", ls.Name, k+1, pairSides[side]),
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

// Calibrate runs the session over the calibration dataset built from sets
// (CalibrationData, set as Config.Preloaded) and reads each pair's
// outcome. A judge that fails everything stops the run: the error says why
// (the endpoint, the key), and no accuracy is made of it.
func (s *Session) Calibrate(ctx context.Context, sets []calibrate.LoadedSet) ([]calibrate.LLMResult, *Run, error) {
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
		return nil, run, fmt.Errorf("the calibration stopped: %s; no accuracy is given for a judge that could not judge (fix it, check it with `ragscope check` and the same flags, then calibrate again: what was judged is cached)", stoppedText(why))
	}
	var out []calibrate.LLMResult
	next := 0
	for _, ls := range sets {
		r := calibrate.LLMResult{Set: ls.Name, Published: ls.Published, Pairs: len(ls.Pairs), All: ls.All}
		for k := range ls.Pairs {
			g, b := got[next], got[next+1]
			next += 2
			ps := calibrate.PairScore{Pair: k + 1, Faithful: g.score, Unfaithful: b.score}
			switch {
			case g.st == "" || b.st == "":
				ps.Outcome, ps.Why = calibrate.PairFailed, "not evaluated: the run ended before this pair"
				r.Failed++
			case g.st.Failed() || b.st.Failed():
				ps.Outcome = calibrate.PairFailed
				r.Failed++
				var whys []string
				for i, x := range []side{g, b} {
					if x.st.Failed() {
						whys = append(whys, fmt.Sprintf("%s answer: %s: %s", pairSides[i], x.st, x.why))
					}
				}
				ps.Why = strings.Join(whys, "; ")
			case g.st != eval.StatusOK || b.st != eval.StatusOK || g.score == nil || b.score == nil:
				ps.Outcome = calibrate.PairUndefined
				r.Undefined++
				r.Losses++
				if g.st != eval.StatusOK {
					ps.Why = "faithful answer: " + string(g.st)
				} else {
					ps.Why = "unfaithful answer: " + string(b.st)
				}
			case *g.score > *b.score:
				ps.Outcome = calibrate.PairWin
				r.Wins++
			case *g.score == *b.score:
				ps.Outcome = calibrate.PairTie
				r.Ties++
			default:
				ps.Outcome = calibrate.PairLoss
				r.Losses++
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
