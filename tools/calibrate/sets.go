// Package calibrate measures judges on public labelled datasets: the
// readers of the sets, the answer constructions that phrase a set's short
// answers (given, declarative, framed, bare), the registry of sets with
// their targets, the offline judge's pairwise accuracy and per-answer
// agreement, and the report tables. `ragscope calibrate` is a thin command
// over it.
//
// It is a tool, not part of the judge: the offline judge (eval/offline)
// shares no code with the constructions that write the answers it is
// scored on, and knows nothing of the sets.
package calibrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/offline"
)

// Pair is one calibration item: two answers to the same question against the
// same contexts, the first faithful to them and the second not.
type Pair struct {
	Question string
	Contexts []string
	Faithful string
	Unfaith  string
	// Short are the faithful and the unfaithful answer as the dataset
	// gives them when they are short (an entity, a date), for Construct
	// to phrase; empty for answers that are paragraphs.
	Short [2]string
}

// LabelledAnswer is one answer with a human faithfulness label.
type LabelledAnswer struct {
	Question string
	Contexts []string
	Answer   string
	Faithful bool
}

// Row is one construction a set is measured under, and whether the
// offline judge's thresholds were chosen on it (tuned) or not (held out).
type Row struct {
	Construction Construction
	Tuned        bool
	// Read: not tuned, but rules of the judge were written from its
	// failures, so it is no clean held-out figure (HaluEval declarative);
	// it is reported without a target.
	Read bool
}

// Set is one dataset of the calibration: its file under the datasets
// directory, how it is read, the one target the offline judge must reach
// on each of its rows (but a read one), and, for the LLM judge, what a
// paper published on it.
type Set struct {
	Name string
	Path string // relative to the datasets directory
	// Required sets must be present under --datasets; the others are
	// skipped, and said to be, when they are not.
	Required bool
	// Load reads a pairwise set; LoadAnswers a set labelled per answer,
	// measured by agreement and without a target.
	Load        func(path string) ([]Pair, error)
	LoadAnswers func(path string) ([]LabelledAnswer, error)
	Rows        []Row
	Target      float64
	// Previous is the set's pairwise accuracy in its tuned construction
	// before the constructions were measured (0: not measured then); no
	// change to the judge may bring it below.
	Previous float64
	// LLM: also measured by `calibrate --judge llm`, in the construction
	// of its first row.
	LLM       bool
	Published Published
}

// Published is a pairwise faithfulness accuracy a paper reports on a
// calibration set, to read a judge's own beside; the zero value is a set
// for which none is published.
type Published struct {
	Accuracy float64
	Judge    string // the method and model that reached it
	Source   string // the paper and where in it
	Note     string // how it differs from what calibrate measures
}

// Sets are the datasets of the calibration. The offline judge's thresholds
// are chosen on the tuned rows only; the held-out rows show what it does
// on phrasings and data it was not tuned on.
var Sets = []Set{
	{Name: "halueval/qa_one-turn", Path: "halueval/qa_one-turn_data.jsonl", Required: true, Load: LoadHaluEval, LLM: true,
		Target: 0.92, Previous: 0.923,
		Rows: []Row{{Given, true, false}, {Declarative, false, true}, {Framed, false, false}}},
	{Name: "wikieval_sample10", Path: "wikieval_sample10/WikiEval_samples_10.jsonl", Required: true, Load: LoadWikiEval, LLM: true,
		Target: 1.0, Previous: 1.0,
		Rows: []Row{{Given, true, false}},
		Published: Published{
			Accuracy: 0.95,
			Judge:    "RAGAS faithfulness with gpt-3.5-turbo-16k",
			Source:   "Es et al., RAGAS: Automated Evaluation of Retrieval Augmented Generation (EACL 2024 demo, arXiv:2309.15217), Table 1",
			Note:     "agreement with the human annotators on all 50 WikiEval questions; this set is the first 10, with the grounded answer as the gold",
		}},
	{Name: "wikieval_pairwise/ff", Path: "wikieval_pairwise/ff.csv", Load: LoadWikiEvalPairwise,
		Target: 0.95, Rows: []Row{{Given, false, false}}},
	{Name: "rgb/zh_fact", Path: "rgb/zh_fact.jsonl", Required: true, Load: LoadRGBFact, LLM: true,
		Target: 0.95, Previous: 0.965,
		Rows: []Row{{Declarative, true, false}, {Framed, false, false}, {Bare, false, false}}},
	{Name: "rgb/en_fact", Path: "rgb/en_fact.jsonl", Load: LoadRGBFact,
		Target: 0.95, Rows: []Row{{Declarative, true, false}, {Framed, false, false}, {Bare, false, false}}},
	{Name: "faithbench", Path: "faithbench/FaithBench.csv", LoadAnswers: LoadFaithBench},
}

// The project's own pairs, embedded (enterprise.go): zh and en HR, finance
// and IT contexts in prose, tables, records and FAQs, one set per file.
func init() {
	n := enterpriseCount()
	for k := 1; k <= n; k++ {
		Sets = append(Sets, enterpriseSet(k, enterpriseRead[k], enterpriseTargets[k]))
	}
}

// embeddedPath is the Path of the sets the tool embeds.
const embeddedPath = "(embedded)"

// enterpriseSet is the registry entry of the project's n-th set, read or
// held out, with its target (0: none).
func enterpriseSet(n int, read bool, target float64) Set {
	return Set{Name: EnterpriseName(n) + " (own)", Path: embeddedPath, Load: Enterprise(n), Target: target, Rows: []Row{{Given, false, read}}}
}

// LoadedSet is a set's pairs for the LLM judge, in the construction of its
// first row, the first Limit of them when a limit was given.
type LoadedSet struct {
	Set
	Pairs []Pair
	// All is how many pairs the file has.
	All int
}

// LoadSets reads every set the LLM judge is calibrated on under dir,
// keeping the first limit pairs of each (all when limit is 0). The first,
// not a random draw: the same pairs every time, so a repeated calibration
// is answered by the cache and a larger limit only adds pairs.
func LoadSets(dir string, limit int) ([]LoadedSet, error) {
	var out []LoadedSet
	for _, s := range Sets {
		if !s.LLM {
			continue
		}
		pairs, err := s.Load(filepath.Join(dir, s.Path))
		if err != nil {
			return nil, err
		}
		for i, p := range pairs {
			pairs[i] = Construct(p, s.Rows[0].Construction)
		}
		ls := LoadedSet{Set: s, Pairs: pairs, All: len(pairs)}
		if limit > 0 && limit < len(pairs) {
			ls.Pairs = pairs[:limit]
		}
		out = append(out, ls)
	}
	return out, nil
}

// PairResult is the pairwise accuracy of the offline judge on one set.
type PairResult struct {
	Dataset string
	Pairs   int
	// Wins counts pairs where the faithful answer scored higher, Ties pairs
	// where both scored the same (counted half), Losses the others;
	// Undefined, among the losses, pairs where an answer had no
	// statements: the judge could not tell the answers apart, and a tie
	// would credit it half a pair for that.
	Wins, Ties, Losses, Undefined int
	Accuracy                      float64
	Target                        float64 // 0: reported without one
}

// Passed reports whether the accuracy reaches the target.
func (r PairResult) Passed() bool { return r.Accuracy >= r.Target-1e-9 }

// faithfulness scores an answer the way the faithfulness metric does with
// the offline judge: supported statements over statements. ok is false
// when the answer has no statements (the metric's no_statements status).
// The judge keeps the analysed contexts, so a pair's two answers share them.
func faithfulness(j *offline.Judge, question, answer string, contexts []string) (score float64, ok bool) {
	ctx := context.Background()
	s := &eval.Sample{Question: question, Answer: answer, Contexts: contexts}
	stmts, _ := j.Statements(ctx, s)
	if len(stmts) == 0 {
		return 0, false
	}
	vs, _ := j.Verdicts(ctx, s, stmts)
	supported := 0
	for _, v := range vs {
		supported += v.Verdict
	}
	return float64(supported) / float64(len(stmts)), true
}

// PairwiseAccuracy is the share of pairs in which the faithful answer
// scores higher faithfulness with the offline judge than the unfaithful
// one; ties count half, and a pair where either answer has no statements
// is lost.
func PairwiseAccuracy(dataset string, pairs []Pair, opts ...offline.Option) PairResult {
	j := offline.New(opts...)
	r := PairResult{Dataset: dataset, Pairs: len(pairs)}
	for _, p := range pairs {
		good, okG := faithfulness(j, p.Question, p.Faithful, p.Contexts)
		bad, okB := faithfulness(j, p.Question, p.Unfaith, p.Contexts)
		switch {
		case !okG || !okB:
			r.Undefined++
			r.Losses++
		case good > bad:
			r.Wins++
		case good == bad:
			r.Ties++
		default:
			r.Losses++
		}
	}
	if r.Pairs > 0 {
		r.Accuracy = (float64(r.Wins) + 0.5*float64(r.Ties)) / float64(r.Pairs)
	}
	return r
}

// CalibrationRow is one row of the offline calibration table.
type CalibrationRow struct {
	Construction Construction
	Tuned, Read  bool
	PairResult
	Previous float64
}

// SampleResult is a judge's agreement with per-answer labels: balanced
// accuracy of its own verdict (faithful when every statement is
// supported) and ROC-AUC of its faithfulness score.
type SampleResult struct {
	Dataset                  string
	Answers, Faithful        int
	NoStatements             int
	BalancedAccuracy, ROCAUC float64
}

// Report is the whole offline calibration.
type Report struct {
	Rows    []CalibrationRow
	Samples []SampleResult
	Skipped []string // optional sets not found, with why
}

// Missed are the rows below their target or below the set's previous
// figure.
func (r Report) Missed() []CalibrationRow {
	var out []CalibrationRow
	for _, row := range r.Rows {
		if row.Target > 0 && !row.Passed() || row.Tuned && row.Previous > 0 && row.Accuracy < row.Previous-1e-9 {
			out = append(out, row)
		}
	}
	return out
}

// Offline measures the offline judge on every set under dir: a pairwise
// set under every construction of its rows, a per-answer set by its
// agreement; on the first limit pairs or answers of each (all: 0). The
// options configure the judge (a team's lexicon).
func Offline(dir string, limit int, opts ...offline.Option) (Report, error) {
	var rep Report
	for _, set := range Sets {
		path := filepath.Join(dir, set.Path)
		var pairs []Pair
		var answers []LabelledAnswer
		var err error
		if set.Load != nil {
			pairs, err = set.Load(path)
		} else {
			answers, err = set.LoadAnswers(path)
		}
		if err != nil {
			if !set.Required && errors.Is(err, errNotFound) {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %s not found", set.Name, path))
				continue
			}
			return rep, err
		}
		if set.LoadAnswers != nil {
			if limit > 0 && limit < len(answers) {
				answers = answers[:limit]
			}
			rep.Samples = append(rep.Samples, SampleAgreement(set.Name, answers, opts...))
			continue
		}
		if limit > 0 && limit < len(pairs) {
			pairs = pairs[:limit]
		}
		for _, row := range set.Rows {
			cs := make([]Pair, len(pairs))
			for i, p := range pairs {
				cs[i] = Construct(p, row.Construction)
			}
			r := PairwiseAccuracy(set.Name, cs, opts...)
			if !row.Read {
				r.Target = set.Target
			}
			cr := CalibrationRow{Construction: row.Construction, Tuned: row.Tuned, Read: row.Read, PairResult: r}
			if row.Tuned {
				cr.Previous = set.Previous
			}
			rep.Rows = append(rep.Rows, cr)
		}
	}
	return rep, nil
}

// SampleAgreement scores each answer with the offline judge and compares
// the verdicts and scores with the labels. An answer without statements
// scores 0: the judge has no evidence that it is faithful.
func SampleAgreement(name string, answers []LabelledAnswer, opts ...offline.Option) SampleResult {
	j := offline.New(opts...)
	r := SampleResult{Dataset: name, Answers: len(answers)}
	type scored struct {
		score float64
		pos   bool
	}
	all := make([]scored, len(answers))
	var tp, tn, pos, neg int
	for i, a := range answers {
		s, ok := faithfulness(j, a.Question, a.Answer, a.Contexts)
		if !ok {
			r.NoStatements++
			s = 0
		}
		all[i] = scored{s, a.Faithful}
		verdict := ok && s >= 1-1e-9
		if a.Faithful {
			pos++
			if verdict {
				tp++
			}
		} else {
			neg++
			if !verdict {
				tn++
			}
		}
	}
	r.Faithful = pos
	if pos > 0 && neg > 0 {
		r.BalancedAccuracy = (float64(tp)/float64(pos) + float64(tn)/float64(neg)) / 2
		// ROC-AUC as the probability that a faithful answer outscores an
		// unfaithful one, ties half (Mann-Whitney), from the ranks.
		sort.Slice(all, func(i, j int) bool { return all[i].score < all[j].score })
		var rankSum float64
		for i := 0; i < len(all); {
			j := i
			for j < len(all) && all[j].score == all[i].score {
				j++
			}
			mid := float64(i+j+1) / 2 // 1-based mean rank of the tie group
			for k := i; k < j; k++ {
				if all[k].pos {
					rankSum += mid
				}
			}
			i = j
		}
		r.ROCAUC = (rankSum - float64(pos)*float64(pos+1)/2) / (float64(pos) * float64(neg))
	}
	return r
}

// WriteReport writes the offline calibration as the tables of docs/offline-judge.md.
func WriteReport(w io.Writer, rep Report) error {
	var b strings.Builder
	b.WriteString("| judge | dataset | construction | role | pairs | accuracy | target | wins | ties | losses | no statements |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rep.Rows {
		role := "held out"
		switch {
		case r.Tuned:
			role = "tuned"
		case r.Read:
			role = "read" // rules written from its failures, thresholds not tuned on it
		}
		target := "-"
		if r.Target > 0 {
			mark := "ok"
			if !r.Passed() {
				mark = "MISSED"
			}
			target = fmt.Sprintf("%.2f (%s)", r.Target, mark)
		}
		if r.Previous > 0 && r.Accuracy < r.Previous-1e-9 {
			target += fmt.Sprintf(", below the previous %.3f", r.Previous)
		}
		fmt.Fprintf(&b, "| offline (lexical) | %s | %s | %s | %d | %.3f | %s | %d | %d | %d | %d |\n",
			r.Dataset, r.Construction, role, r.Pairs, r.Accuracy, target, r.Wins, r.Ties, r.Losses, r.Undefined)
	}
	if len(rep.Samples) > 0 {
		b.WriteString("\n| judge | dataset | answers | faithful (label) | no statements | balanced accuracy | ROC-AUC |\n")
		b.WriteString("|---|---|---:|---:|---:|---:|---:|\n")
		for _, s := range rep.Samples {
			fmt.Fprintf(&b, "| offline (lexical) | %s | %d | %d | %d | %.3f | %.3f |\n",
				s.Dataset, s.Answers, s.Faithful, s.NoStatements, s.BalancedAccuracy, s.ROCAUC)
		}
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(&b, "\nskipped: %s\n", s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
