package calibrate

// The readers of the public calibration datasets. Each reads one file
// shape into Pairs (or LabelledAnswers), naming the file and line of the
// first row it cannot read.

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

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

// errNotFound marks a calibration file that is absent, as opposed to
// malformed: an optional set that is absent is skipped, a malformed one
// is an error.
var errNotFound = errors.New("not found")

func openData(path string) (*os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("calibration data: %w: %w (is --datasets pointing at the shared datasets directory?)", errNotFound, err)
	}
	if err != nil {
		return nil, fmt.Errorf("calibration data: %w", err)
	}
	return f, nil
}

func readCSV(path string) ([]map[string]string, error) {
	f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no header", path)
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			if i < len(r) {
				m[h] = r[i]
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// LoadWikiEvalPairwise reads the 50 WikiEval faithfulness pairs of ff.csv
// (rows i and i+50 are one question's two answers, in no fixed order).
// Its label column is only the slot, so the grounded answer is recovered
// from ar.csv beside it: the answer-relevance file pairs each question's
// grounded answer with a poor one, so of the two ff answers the grounded
// one is the one ar.csv also has. The match is by word overlap, since a
// few answers differ in whitespace or a character; a pair where neither
// answer matches clearly is left out.
func LoadWikiEvalPairwise(path string) ([]Pair, error) {
	ff, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	arPath := filepath.Join(filepath.Dir(path), "ar.csv")
	ar, err := readCSV(arPath)
	if err != nil {
		return nil, err
	}
	if len(ff)%2 != 0 {
		return nil, fmt.Errorf("%s: %d rows, want two per question", path, len(ff))
	}
	grounded := map[string][]string{}
	for _, r := range ar {
		q := strings.TrimSpace(r["question"])
		grounded[q] = append(grounded[q], r["answer"])
	}
	half := len(ff) / 2
	var out []Pair
	for i := 0; i < half; i++ {
		a, b := ff[i], ff[i+half]
		q := strings.TrimSpace(a["question"])
		if q != strings.TrimSpace(b["question"]) {
			return nil, fmt.Errorf("%s: rows %d and %d are not the same question", path, i+2, i+half+2)
		}
		sa, sb := bestDice(a["answer"], grounded[q]), bestDice(b["answer"], grounded[q])
		ctx := strings.ReplaceAll(a["context"], `\n`, "\n")
		p := Pair{Question: q, Contexts: []string{ctx}}
		switch {
		case sa >= 0.95 && sa-sb >= 0.05:
			p.Faithful, p.Unfaith = a["answer"], b["answer"]
		case sb >= 0.95 && sb-sa >= 0.05:
			p.Faithful, p.Unfaith = b["answer"], a["answer"]
		default:
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// bestDice is the highest Dice coefficient of s's word multiset with any
// of the candidates'.
func bestDice(s string, cands []string) float64 {
	best := 0.0
	ws := wordCounts(s)
	for _, c := range cands {
		wc := wordCounts(c)
		shared, n := 0, 0
		for w, k := range ws {
			shared += min(k, wc[w])
			n += k
		}
		for _, k := range wc {
			n += k
		}
		if n > 0 {
			best = math.Max(best, 2*float64(shared)/float64(n))
		}
	}
	return best
}

func wordCounts(s string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.Fields(strings.ReplaceAll(s, `\n`, " ")) {
		m[strings.ToLower(w)]++
	}
	return m
}

// LoadFaithBench reads FaithBench's summaries against their sources. An
// answer is faithful when its worst annotation is Consistent or Benign
// (FaithBench's own binary reading); Questionable and Unwanted are not.
func LoadFaithBench(path string) ([]LabelledAnswer, error) {
	rows, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	var out []LabelledAnswer
	for i, r := range rows {
		label := strings.TrimSpace(r["worst-label"])
		var faithful bool
		switch label {
		case "Consistent", "Benign":
			faithful = true
		case "Questionable", "Unwanted":
		default:
			return nil, fmt.Errorf("%s:%d: worst-label %q is none of Consistent, Benign, Questionable, Unwanted", path, i+2, label)
		}
		out = append(out, LabelledAnswer{Contexts: []string{r["source"]}, Answer: r["summary"], Faithful: faithful})
	}
	return out, nil
}
