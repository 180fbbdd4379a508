package offline

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// BlindSpots is the offline banner's pointer to where the judge is blind,
// in the README's calibration section.
const BlindSpots = "blind to paraphrase: README#offline-judge-calibration"

// Construction is how a calibration pair's answers are phrased. The same
// labelled answer can reach the judge as a bare entity, in a frame ("答案是X。",
// "The answer is X."), or as a sentence that restates the question; a
// lexical judge tuned on one phrasing can lose much on another, so the
// calibration measures each and says which ones the thresholds were chosen
// on.
type Construction string

const (
	// Given is the answer as the dataset has it.
	Given Construction = "given"
	// Declarative restates the question with the answer in place of its
	// interrogative (澳大利亚的首都在堪培拉。, Facebook acquired Instagram.).
	Declarative Construction = "declarative"
	// Framed wraps the answer in a frame that adds words the context does
	// not have: 答案是X。 or The answer is X.
	Framed Construction = "framed"
	// Bare is the answer alone: 堪培拉, Canberra.
	Bare Construction = "bare"
)

// Construct phrases the pair's answers as c. A pair without short answers
// (WikiEval's paragraphs) is returned as it is: only Given applies to it.
func Construct(p Pair, c Construction) Pair {
	if p.Short[0] == "" || p.Short[1] == "" {
		return p
	}
	out := p
	for i, a := range p.Short {
		var s string
		switch c {
		case Given:
			continue
		case Declarative:
			s = declare(p.Question, a)
		case Framed:
			s = frame(p.Question, a)
		case Bare:
			s = strings.TrimSpace(a)
		}
		if i == 0 {
			out.Faithful = s
		} else {
			out.Unfaith = s
		}
	}
	return out
}

func declare(question, answer string) string {
	if containsHan(question) {
		return StateAnswer(question, answer)
	}
	if isSentence(answer) {
		return answer
	}
	return StateAnswerEnglish(question, answer)
}

func frame(question, answer string) string {
	a := strings.TrimSpace(answer)
	if containsHan(question) {
		return "答案是" + strings.TrimRight(a, "。.") + "。"
	}
	return "The answer is " + strings.TrimRight(a, ".") + "."
}

// isSentence: an answer that already says something of its own (HaluEval's
// hallucinated answers are often whole sentences) is not restated.
func isSentence(a string) bool {
	return len(strings.Fields(a)) > 6 || strings.HasSuffix(strings.TrimSpace(a), ".") && len(strings.Fields(a)) > 3
}

var (
	englishAux   = setOf("is", "are", "was", "were", "did", "does", "do", "has", "have", "had", "can", "could", "will", "would")
	englishDoAux = setOf("did", "does", "do")
)

// StateAnswerEnglish turns an English question and a short answer into a
// statement the way a reader would restate it: "Who acquired Instagram?" +
// Facebook -> "Facebook acquired Instagram."; "Who is the CEO of X?" ->
// "The CEO of X is A."; a question without an interrogative ("Super Bowl
// 2021 location") becomes "<question> is <answer>.". It is a construction
// for calibration, not a parser: odd questions give odd sentences, as an
// odd generator would.
func StateAnswerEnglish(question, answer string) string {
	q := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(question), "?.! "))
	a := strings.TrimRight(strings.TrimSpace(answer), ".")
	w := strings.Fields(q)
	if len(w) == 0 {
		return a + "."
	}
	lw := make([]string, len(w))
	for i, x := range w {
		lw[i] = strings.ToLower(strings.Trim(x, ",\"'"))
	}
	join := func(parts ...string) string {
		s := strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
		if s == "" {
			return a + "."
		}
		r := []rune(s)
		r[0] = unicode.ToUpper(r[0])
		return string(r) + "."
	}
	rest := func(i int) string { return strings.Join(w[i:], " ") }
	switch lw[0] {
	case "who", "what", "which":
		// wh [noun] aux REST -> REST aux A; wh verb REST -> A verb REST.
		i := 1
		if lw[0] != "who" && len(w) > 2 && !englishAux[lw[1]] {
			i = 2 // Which country won ... -> Norway won ...
		}
		if i < len(w) && englishAux[lw[i]] && !englishDoAux[lw[i]] {
			return join(rest(i+1), w[i], a)
		}
		if i < len(w) && englishDoAux[lw[i]] {
			return join(rest(i+1), a)
		}
		return join(a, rest(i))
	case "when", "where":
		if len(w) > 2 && englishAux[lw[1]] {
			prep := "in"
			if englishDoAux[lw[1]] {
				return join(rest(2), prep, a)
			}
			return join(rest(2), w[1], prep, a)
		}
	case "how":
		if len(w) > 3 && (lw[1] == "many" || lw[1] == "much") {
			if englishDoAux[lw[3]] {
				return join(rest(4), a, w[2])
			}
			return join(a, rest(2))
		}
	}
	if englishAux[lw[0]] {
		return join(rest(1), ":", a)
	}
	// An interrogative inside the question: "... has a head office in
	// what city" -> "... in Delhi".
	for i := 1; i < len(w); i++ {
		switch lw[i] {
		case "what", "which":
			end := i + 1
			if end < len(w) && !englishAux[lw[end]] {
				end++
			}
			return join(strings.Join(w[:i], " "), a, strings.Join(w[end:], " "))
		case "who", "whom":
			return join(strings.Join(w[:i], " "), a, strings.Join(w[i+1:], " "))
		}
	}
	return join(q, "is", a)
}

// SetRow is one construction of a set measured by the offline
// calibration, with its target and whether the thresholds were chosen on
// it (tuned) or not (held out).
type SetRow struct {
	Construction Construction
	Tuned        bool
	Target       float64 // 0: reported without a target
}

// OfflineSet is a dataset of the offline calibration and the
// constructions it is measured under. Required sets must be present under
// --datasets; the others are skipped, and said to be, when they are not.
type OfflineSet struct {
	Name     string
	Path     string // relative to the datasets directory
	Required bool
	Load     func(path string) ([]Pair, error)
	Rows     []SetRow
	// Previous is the set's pairwise accuracy in its tuned construction
	// before the constructions were measured (0: not measured then); no
	// change to the judge may bring it below.
	Previous float64
}

// OfflineSets are the datasets of the offline calibration. The thresholds
// are chosen on the tuned rows only; the held-out rows show what the judge
// does on phrasings and data it was not tuned on.
var OfflineSets = []OfflineSet{
	{Name: "halueval/qa_one-turn", Path: "halueval/qa_one-turn_data.jsonl", Required: true, Load: LoadHaluEval, Previous: 0.923,
		Rows: []SetRow{{Given, true, 0.93}, {Declarative, false, 0.93}, {Framed, false, 0.93}}},
	{Name: "wikieval_sample10", Path: "wikieval_sample10/WikiEval_samples_10.jsonl", Required: true, Load: LoadWikiEval, Previous: 1.0,
		Rows: []SetRow{{Given, true, 1.0}}},
	{Name: "wikieval_pairwise/ff", Path: "wikieval_pairwise/ff.csv", Load: LoadWikiEvalPairwise,
		Rows: []SetRow{{Given, false, 0.95}}},
	{Name: "rgb/zh_fact", Path: "rgb/zh_fact.jsonl", Required: true, Load: LoadRGBFact, Previous: 0.965,
		Rows: []SetRow{{Declarative, true, 0.95}, {Framed, false, 0.95}, {Bare, false, 0.95}}},
	{Name: "rgb/en_fact", Path: "rgb/en_fact.jsonl", Load: LoadRGBFact,
		Rows: []SetRow{{Declarative, true, 0.95}, {Framed, false, 0.95}, {Bare, false, 0.95}}},
}

// SampleSet is a dataset labelled per answer rather than per pair.
type SampleSet struct {
	Name string
	Path string
	Load func(path string) ([]LabelledAnswer, error)
}

// LabelledAnswer is one answer with a human faithfulness label.
type LabelledAnswer struct {
	Question string
	Contexts []string
	Answer   string
	Faithful bool
}

// OfflineSampleSets are measured at sample level, with no target: they
// show where a lexical judge is blind.
var OfflineSampleSets = []SampleSet{
	{Name: "faithbench", Path: "faithbench/FaithBench.csv", Load: LoadFaithBench},
}

// CalibrationRow is one row of the offline calibration table.
type CalibrationRow struct {
	Construction Construction
	Tuned        bool
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

// OfflineReport is the whole offline calibration.
type OfflineReport struct {
	Rows    []CalibrationRow
	Samples []SampleResult
	Skipped []string // optional sets not found, with why
}

// Missed are the rows below their target or below the set's previous
// figure.
func (r OfflineReport) Missed() []CalibrationRow {
	var out []CalibrationRow
	for _, row := range r.Rows {
		if row.Target > 0 && !row.Passed() || row.Tuned && row.Previous > 0 && row.Accuracy < row.Previous-1e-9 {
			out = append(out, row)
		}
	}
	return out
}

// CalibrateOffline measures every offline set under every construction of
// its rows, and the sample-level sets, on the first limit pairs or answers
// of each (all: 0).
func CalibrateOffline(dir string, limit int) (OfflineReport, error) {
	var rep OfflineReport
	for _, set := range OfflineSets {
		path := filepath.Join(dir, set.Path)
		pairs, err := set.Load(path)
		if err != nil {
			if !set.Required && errors.Is(err, errNotFound) {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %s not found", set.Name, path))
				continue
			}
			return rep, err
		}
		if limit > 0 && limit < len(pairs) {
			pairs = pairs[:limit]
		}
		for _, row := range set.Rows {
			cs := make([]Pair, len(pairs))
			for i, p := range pairs {
				cs[i] = Construct(p, row.Construction)
			}
			r := PairwiseAccuracy(set.Name, cs)
			r.Target = row.Target
			cr := CalibrationRow{Construction: row.Construction, Tuned: row.Tuned, PairResult: r}
			if row.Tuned {
				cr.Previous = set.Previous
			}
			rep.Rows = append(rep.Rows, cr)
		}
	}
	for _, ss := range OfflineSampleSets {
		path := filepath.Join(dir, ss.Path)
		answers, err := ss.Load(path)
		if err != nil {
			if errors.Is(err, errNotFound) {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %s not found", ss.Name, path))
				continue
			}
			return rep, err
		}
		if limit > 0 && limit < len(answers) {
			answers = answers[:limit]
		}
		rep.Samples = append(rep.Samples, SampleAgreement(ss.Name, answers))
	}
	return rep, nil
}

// SampleAgreement scores each answer and compares the verdicts and scores
// with the labels. An answer without statements scores 0: the judge has
// no evidence that it is faithful.
func SampleAgreement(name string, answers []LabelledAnswer) SampleResult {
	r := SampleResult{Dataset: name, Answers: len(answers)}
	type scored struct {
		score float64
		pos   bool
	}
	all := make([]scored, len(answers))
	var tp, tn, pos, neg int
	for i, a := range answers {
		s, ok := Faithfulness(a.Question, a.Answer, a.Contexts)
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

// WriteReport writes the offline calibration as the README's tables.
func WriteReport(w io.Writer, rep OfflineReport) error {
	var b strings.Builder
	b.WriteString("| judge | dataset | construction | role | pairs | accuracy | target | wins | ties | losses | no statements |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rep.Rows {
		role := "held out"
		if r.Tuned {
			role = "tuned"
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
