package offline

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
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

// PairResult is the pairwise accuracy of the offline judge on one dataset.
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
	Target                        float64
}

// Passed reports whether the accuracy reaches the target.
func (r PairResult) Passed() bool { return r.Accuracy >= r.Target-1e-9 }

// Faithfulness scores an answer the way the faithfulness metric does with
// this judge: supported statements over statements. ok is false when the
// answer has no statements (the metric's no_statements status).
func Faithfulness(question, answer string, contexts []string) (score float64, ok bool) {
	return faithfulnessOf(question, answer, spansOf(contexts))
}

// spansOf are the analysed sentences of contexts, in order.
func spansOf(contexts []string) []*span {
	var sents []*span
	for _, c := range contexts {
		sents = append(sents, contextSpans(c)...)
	}
	return sents
}

// faithfulnessOf is Faithfulness against contexts already analysed: a pair's
// two answers share them.
func faithfulnessOf(question, answer string, sents []*span) (score float64, ok bool) {
	q := analyze(question)
	stmts := StatementsFor(question, answer)
	if len(stmts) == 0 {
		return 0, false
	}
	supported := 0
	for _, s := range stmts {
		supported += verdict(s, question, q, sents).Verdict
	}
	return float64(supported) / float64(len(stmts)), true
}

// PairwiseAccuracy is the share of pairs in which the faithful answer scores
// higher faithfulness than the unfaithful one; ties count half, and a pair
// where either answer has no statements is lost.
func PairwiseAccuracy(dataset string, pairs []Pair) PairResult {
	r := PairResult{Dataset: dataset, Pairs: len(pairs)}
	for _, p := range pairs {
		sents := spansOf(p.Contexts)
		good, okG := faithfulnessOf(p.Question, p.Faithful, sents)
		bad, okB := faithfulnessOf(p.Question, p.Unfaith, sents)
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

// CalibrationSet is one dataset of the calibration, its file under the
// datasets directory, the accuracy the offline judge must reach on it, and
// what a paper published for an LLM judge on it.
type CalibrationSet struct {
	Name      string
	Path      string // relative to the datasets directory
	Target    float64
	Load      func(path string) ([]Pair, error)
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

// CalibrationSets are the three public datasets of the calibration table.
var CalibrationSets = []CalibrationSet{
	{Name: "halueval/qa_one-turn", Path: "halueval/qa_one-turn_data.jsonl", Target: 0.92, Load: LoadHaluEval},
	{Name: "wikieval_sample10", Path: "wikieval_sample10/WikiEval_samples_10.jsonl", Target: 1.0, Load: LoadWikiEval,
		Published: Published{
			Accuracy: 0.95,
			Judge:    "RAGAS faithfulness with gpt-3.5-turbo-16k",
			Source:   "Es et al., RAGAS: Automated Evaluation of Retrieval Augmented Generation (EACL 2024 demo, arXiv:2309.15217), Table 1",
			Note:     "agreement with the human annotators on all 50 WikiEval questions; this set is the first 10, with the grounded answer as the gold",
		}},
	{Name: "rgb/zh_fact", Path: "rgb/zh_fact.jsonl", Target: 0.90, Load: LoadRGBFact},
}

// LoadedSet is a calibration set's pairs, the first Limit of them when a
// limit was given.
type LoadedSet struct {
	CalibrationSet
	Pairs []Pair
	// All is how many pairs the file has.
	All int
}

// LoadSets reads every calibration set under dir, keeping the first limit
// pairs of each (all when limit is 0). The first, not a random draw: the
// same pairs every time, so a repeated calibration is answered by the
// cache and a larger limit only adds pairs.
func LoadSets(dir string, limit int) ([]LoadedSet, error) {
	var out []LoadedSet
	for _, cs := range CalibrationSets {
		pairs, err := cs.Load(filepath.Join(dir, cs.Path))
		if err != nil {
			return nil, err
		}
		ls := LoadedSet{CalibrationSet: cs, Pairs: pairs, All: len(pairs)}
		if limit > 0 && limit < len(pairs) {
			ls.Pairs = pairs[:limit]
		}
		out = append(out, ls)
	}
	return out, nil
}

// Calibrate measures every calibration set under dir.
func Calibrate(dir string) ([]PairResult, error) { return CalibrateLimit(dir, 0) }

// CalibrateLimit measures the first limit pairs (all: 0) of every
// calibration set under dir.
func CalibrateLimit(dir string, limit int) ([]PairResult, error) {
	sets, err := LoadSets(dir, limit)
	if err != nil {
		return nil, err
	}
	var out []PairResult
	for _, ls := range sets {
		r := PairwiseAccuracy(ls.Name, ls.Pairs)
		r.Target = ls.Target
		out = append(out, r)
	}
	return out, nil
}

// WriteTable writes the results as the README's Markdown table.
func WriteTable(w io.Writer, results []PairResult) error {
	var b strings.Builder
	b.WriteString("| judge | dataset | pairs | accuracy | target | ties |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|\n")
	for _, r := range results {
		mark := "ok"
		if !r.Passed() {
			mark = "MISSED"
		}
		fmt.Fprintf(&b, "| offline (lexical) | %s | %d | %.3f | %.2f (%s) | %d |\n", r.Dataset, r.Pairs, r.Accuracy, r.Target, mark, r.Ties)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// readJSONL decodes each non-blank line of a JSON-lines file into a T,
// naming the file and line of the first malformed one.
func readJSONL[T any](path string, each func(line int, v *T) error) error {
	f, err := openData(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return fmt.Errorf("%s:%d: not a JSON object of the expected shape: %w", path, line, err)
		}
		if err := each(line, &v); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func required(fields map[string]string) error {
	for name, v := range fields {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("field %q is missing or empty", name)
		}
	}
	return nil
}

// LoadHaluEval reads HaluEval's qa_one-turn rows: right_answer versus
// hallucinated_answer against knowledge.
func LoadHaluEval(path string) ([]Pair, error) {
	type row struct {
		Knowledge    string `json:"knowledge"`
		Question     string `json:"question"`
		Right        string `json:"right_answer"`
		Hallucinated string `json:"hallucinated_answer"`
	}
	var out []Pair
	err := readJSONL(path, func(_ int, r *row) error {
		if err := required(map[string]string{"knowledge": r.Knowledge, "right_answer": r.Right, "hallucinated_answer": r.Hallucinated}); err != nil {
			return err
		}
		out = append(out, Pair{Question: r.Question, Contexts: []string{r.Knowledge}, Faithful: r.Right, Unfaith: r.Hallucinated,
			Short: [2]string{r.Right, r.Hallucinated}})
		return nil
	})
	return out, err
}

// LoadWikiEval reads WikiEval rows: answer versus ungrounded_answer against
// context_v1. The "Question: "/"Answer: " prefixes of the sample are dropped.
func LoadWikiEval(path string) ([]Pair, error) {
	type row struct {
		Question   string   `json:"question"`
		Answer     string   `json:"answer"`
		Ungrounded string   `json:"ungrounded_answer"`
		Context    []string `json:"context_v1"`
	}
	var out []Pair
	err := readJSONL(path, func(_ int, r *row) error {
		if err := required(map[string]string{"answer": r.Answer, "ungrounded_answer": r.Ungrounded}); err != nil {
			return err
		}
		if len(r.Context) == 0 {
			return errors.New(`field "context_v1" is missing or empty`)
		}
		out = append(out, Pair{
			Question: strings.TrimPrefix(r.Question, "Question: "),
			Contexts: r.Context,
			Faithful: strings.TrimPrefix(r.Answer, "Answer: "),
			Unfaith:  r.Ungrounded,
		})
		return nil
	})
	return out, err
}

// LoadRGBFact reads RGB's counterfactual rows (zh_fact or en_fact): a
// sentence stating answer versus the same sentence stating fakeanswer,
// against the positive passages.
func LoadRGBFact(path string) ([]Pair, error) {
	type row struct {
		Query    string          `json:"query"`
		Answer   json.RawMessage `json:"answer"`
		Fake     json.RawMessage `json:"fakeanswer"`
		Positive []string        `json:"positive"`
	}
	var out []Pair
	err := readJSONL(path, func(_ int, r *row) error {
		ans, err := firstAnswer("answer", r.Answer)
		if err != nil {
			return err
		}
		fake, err := firstAnswer("fakeanswer", r.Fake)
		if err != nil {
			return err
		}
		if err := required(map[string]string{"query": r.Query}); err != nil {
			return err
		}
		if len(r.Positive) == 0 {
			return errors.New(`field "positive" is missing or empty`)
		}
		out = append(out, Pair{
			Question: r.Query,
			Contexts: r.Positive,
			Faithful: declare(r.Query, ans),
			Unfaith:  declare(r.Query, fake),
			Short:    [2]string{ans, fake},
		})
		return nil
	})
	return out, err
}

// firstAnswer reads RGB's answer and fakeanswer fields: a string, or a list of lists of
// accepted spellings (the first is taken; "a,b" spellings are split).
func firstAnswer(field string, raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
		return s, nil
	}
	var nested [][]string
	if json.Unmarshal(raw, &nested) == nil && len(nested) > 0 && len(nested[0]) > 0 {
		return strings.SplitN(nested[0][0], ",", 2)[0], nil
	}
	var flat []string
	if json.Unmarshal(raw, &flat) == nil && len(flat) > 0 {
		return strings.SplitN(flat[0], ",", 2)[0], nil
	}
	return "", fmt.Errorf("field %q is neither a string nor a list of spellings", field)
}

// interrogatives are replaced by the answer to turn a question into a
// statement, longest first (什么时候 before 什么).
var interrogatives = []string{"哪一年", "哪年", "什么时候", "是多少", "有多少", "多少", "是哪个", "是哪里", "在哪里", "在哪", "是什么", "是谁", "哪个", "哪里", "什么", "谁", "哪", "几"}

// StateAnswer turns a Chinese question and an answer into a declarative
// sentence: 澳大利亚的首都在哪 + 堪培拉 -> 澳大利亚的首都在堪培拉. A question
// without an interrogative word becomes "<question>是<answer>".
func StateAnswer(query, answer string) string {
	q := strings.TrimRight(strings.TrimSpace(query), "？?。 ")
	for _, w := range interrogatives {
		if i := strings.Index(q, w); i >= 0 {
			repl := answer
			switch w {
			case "是多少", "是哪个", "是哪里", "是什么", "是谁":
				repl = "是" + answer
			case "有多少":
				repl = "有" + answer
			case "在哪里", "在哪":
				repl = "在" + answer
			case "什么时候":
				repl = "于" + answer
			case "哪一年", "哪年":
				repl = strings.TrimSuffix(answer, "年") + "年"
			}
			return q[:i] + repl + q[i+len(w):] + "。"
		}
	}
	return q + "是" + answer + "。"
}
