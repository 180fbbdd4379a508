package offline

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/internal/memo"
)

// RestateShare is the least share of the question's content a statement
// must repeat to be a restatement of it ("Who is the CEO of Facebook in
// 2021?" -> "The CEO of Facebook in 2021 is Mark Zuckerberg.").
const RestateShare = 0.7

// restates reports whether the statement restates the question around an
// answer of its own, for a question that presupposes its content (see
// presupposes).
func restates(st, q *span) bool {
	if q == nil || !factsOf(q).presupposes {
		return false
	}
	n, in := 0, 0
	for f := range q.feats {
		n++
		if st.feats[f] {
			in++
		}
	}
	return n > 0 && float64(in) >= RestateShare*float64(n)
}

// questionFacts are what the support test asks of a question for every
// statement and sentence it tests: worked out once per question text.
type questionFacts struct {
	presupposes bool
	stems       []string // stems of its text, for namedAsWritten
}

// factsOf is q's questionFacts, worked out once per question text; the
// facts are shared and never modified.
func factsOf(q *span) *questionFacts {
	return questions.Get(q.text, func(text string) *questionFacts {
		return &questionFacts{presupposes: presupposes(text), stems: stems(text)}
	})
}

var questions = memo.New[*questionFacts](analysisCacheSize)

// presupposes reports whether a question takes its content as given: a
// wh-question ("Who won the 2010 World Cup?" presupposes that someone
// won it). A yes/no question asks its content (是否, 吗, 还是 in Chinese;
// an opening auxiliary in English).
func presupposes(question string) bool {
	q := strings.ToLower(strings.TrimSpace(plaintext.StripControls(question)))
	if q == "" {
		return false
	}
	if containsHan(q) {
		return !strings.Contains(q, "还是") && !strings.Contains(q, "是否") && !strings.Contains(q, "是不是") &&
			!strings.HasSuffix(strings.TrimRight(q, "？?。 "), "吗")
	}
	return !norm.EnglishQuestionAux[strings.Trim(strings.Fields(q)[0], ",")]
}

// residual is what a statement that restates the question adds to it: its
// words, in order, less those the question has ("The director of the 2003
// film ... is Todd Phillips." -> "Todd Phillips"). RAGAS's statement step
// would break such a sentence into the question's premise and the claim
// "Todd Phillips is the director"; the claim is the residual, which the
// support test then checks as it checks a short answer to the question.
// Empty when the statement is not a restatement or adds no content.
func residual(st, q *span) string {
	if st.residue || st.hasHan || !restates(st, q) {
		return ""
	}
	words := strings.Fields(st.text)
	keep := make([]bool, len(words))
	content := false
	wordFeatures := make([]map[string]bool, len(words))
	for i, w := range words {
		wordFeatures[i] = analyzeText(w).feats // one word: not worth a place in the cache
		for k := range wordFeatures[i] {
			if !q.feats[k] && !q.unis[k] {
				keep[i], content = true, true
				break
			}
		}
	}
	// A name is kept whole: "National Football League" stays so, though
	// the question says football.
	for i := 0; i < len(words); {
		j := i
		for j < len(words) && (capitalised(trimWord(words[j])) || j > i && nameParticles[words[j]] && j+1 < len(words) && capitalised(trimWord(words[j+1]))) {
			j++
			if endsInPunct(words[j-1]) {
				break // "Institute (PSI), Dennis Howard Marks" is two names
			}
		}
		if j-i >= 2 {
			any := false
			for k := i; k < j; k++ {
				any = any || keep[k]
			}
			for k := i; k < j && any; k++ {
				keep[k] = true
			}
		}
		if j == i {
			j++
		}
		i = j
	}
	var kept []string
	for i, w := range words {
		if keep[i] {
			kept = append(kept, w)
		}
	}
	if !content || len(kept) == len(words) {
		return ""
	}
	return strings.TrimRight(strings.Join(kept, " "), ".,;:!? ")
}

func trimWord(w string) string {
	return strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// nameRuns are a text's names of two or more capitalised words
// ("Lullwater Estate", "Band of Brothers"), each as written; a particle
// between capitalised words (of, for, de, van) belongs to the name, and a
// capitalised article or pronoun opening a sentence does not.
func nameRuns(text string) []string {
	var out []string
	var run []string
	caps := 0
	flush := func() {
		for len(run) > 0 && !capitalised(run[len(run)-1]) {
			run = run[:len(run)-1]
		}
		if caps >= 2 {
			out = append(out, strings.Join(run, " "))
		}
		run, caps = nil, 0
	}
	for _, w := range strings.Fields(norm.StripFrame(plaintext.StripMarkup(text))) {
		t := trimWord(w)
		switch {
		case t != "" && capitalised(t) && !(len(run) == 0 && englishStop[strings.ToLower(t)]):
			run = append(run, t)
			caps++
		case len(run) > 0 && nameParticles[t]:
			run = append(run, t)
		default:
			flush()
		}
		if t != w && strings.ContainsAny(w[len(w)-1:], ",;:.!?()\"") {
			flush()
		}
	}
	flush()
	return out
}

// stems is a text's words, lowered and stemmed, in order.
func stems(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' }) {
		if w = strings.Trim(w, "'"); w != "" {
			out = append(out, norm.Stem(w))
		}
	}
	return out
}

// namedAsWritten reports whether each name of two or more words in the
// text is written, its words in order and together, in the sentence, and
// returns the first that is not: a name is one thing, and its words from
// two names ("Rainbow Estate" from "Rainbow Terrace, now known as
// Lullwater Estate"; "Stilted Hectors" from "Hector on Stilts") make a
// hallucinated one. The question's names are premises (missingName).
func namedAsWritten(text, sentence string, q *span) (string, bool) {
	runs := nameRuns(text)
	if len(runs) == 0 {
		return "", true
	}
	seq := stems(sentence)
	var qseq []string
	if q != nil {
		qseq = factsOf(q).stems
	}
	for _, r := range runs {
		rs := stems(r)
		if !containsSeq(seq, rs) && !containsSeq(qseq, rs) {
			return r, false
		}
	}
	return "", true
}

// containsSeq reports whether seq has the words of sub in order, each
// within NameGap words of the one before: "President Obama" is written in
// "President Barack Obama", "Rainbow Estate" is not in "Rainbow Terrace,
// now known as Lullwater Estate", nor "Stilted Hectors" in "Hector on
// Stilts".
func containsSeq(seq, sub []string) bool {
	if len(sub) == 0 {
		return true
	}
	for i := range seq {
		if seq[i] != sub[0] {
			continue
		}
		at, j := i, 1
		for ; j < len(sub); j++ {
			next := -1
			for k := at + 1; k < len(seq) && k <= at+1+NameGap; k++ {
				if seq[k] == sub[j] {
					next = k
					break
				}
			}
			if next < 0 {
				break
			}
			at = next
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// NameGap is how many words may come between two words of a name as the
// context writes it: a middle name, an initial, a title's article.
const NameGap = 2

// residualSupport tests what a restating statement adds to the question
// (residual) as a short answer to it. It is supported by a sentence that
// supports the residual, writes its names as one, and is about the
// question's subject: it names one of the question's names that the
// statement repeats and the contexts mention (itself, or through the name
// its pronoun stands for). "Lena Park directed the 2004 film that was shot
// at the Harbor Diner" is not supported by "Night Shift is a 2004 film
// directed by Lena Park" alone: nothing there is about the diner.
func residualSupport(st, q *span, sents []*span) (Evidence, bool) {
	r := residual(st, q)
	if r == "" {
		return Evidence{}, false
	}
	// The residual's first word is a name when it is capitalised
	// ("Slipknot official theme"): it did not open the statement, and
	// analyze does not take a sentence's first word for a name. A stop
	// word before it keeps it from being first.
	rsp := analyzeText("and " + r) // a span of its own: residue is set on it
	rsp.residue = true
	var premise []string
	for _, n := range q.names {
		if st.feats[n.feat] && anyHas(sents, n.feat) {
			premise = append(premise, n.feat)
		}
	}
	for i, a := range sents {
		ev := support(rsp, q, sents[i:i+1])
		if ev.Verdict != 1 || !aboutAny(a, premise) {
			continue
		}
		if _, ok := namedAsWritten(r, a.text, q); !ok {
			continue
		}
		ev.From = i
		ev.Reason = fmt.Sprintf("restates the question around %q: context says %q (coverage %.2f)", clip(r), clip(a.text), ev.Coverage)
		return ev, true
	}
	return Evidence{}, false
}

// aboutAny reports whether the sentence names one of the features, or
// its pronoun stands for a name that has one; true when there are none.
func aboutAny(cs *span, feats []string) bool {
	if len(feats) == 0 {
		return true
	}
	return slices.ContainsFunc(feats, func(f string) bool { return cs.feats[f] || cs.refFeats[f] })
}

func anyHas(sents []*span, f string) bool {
	return slices.ContainsFunc(sents, func(cs *span) bool { return cs.feats[f] })
}

func endsInPunct(w string) bool {
	return strings.ContainsAny(w[len(w)-1:], ",;:.!?)")
}
