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
// must repeat to restate it ("The CEO of X in 2021 is A.").
const RestateShare = 0.7

// restates reports whether the statement restates a question that
// presupposes its content around an answer of its own.
func restates(st, q *span) bool {
	if q == nil || !factsOf(q).presupposes {
		return false
	}
	n := len(q.feats)
	return n > 0 && float64(overlap(q.feats, st.feats)) >= RestateShare*float64(n)
}

// questionFacts are what the support test asks of a question, per text.
type questionFacts struct {
	presupposes bool
	stems       []string // stems of its text, for namedAsWritten
}

// factsOf is q's questionFacts, memoised and shared.
func factsOf(q *span) *questionFacts {
	return questions.Get(q.text, func(text string) *questionFacts {
		return &questionFacts{presupposes: presupposes(text), stems: stems(text)}
	})
}

var questions = memo.New[*questionFacts](analysisCacheSize)

// presupposes reports whether a question takes its content as given (a
// wh-question), not asks it (是否, 吗, 还是; an opening auxiliary).
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
// words, in order, less the question's ("The director of the 2003 film ...
// is Todd Phillips." -> "Todd Phillips"), to check as a short answer; ""
// when it is no restatement or adds nothing.
func residual(st, q *span) string {
	if st.residue || st.hasHan || !restates(st, q) {
		return ""
	}
	words := strings.Fields(st.text)
	keep := make([]bool, len(words))
	for i, w := range words {
		for k := range analyzeText(w).feats { // one word: not worth a place in the cache
			if !q.feats[k] && !q.unis[k] {
				keep[i] = true
				break
			}
		}
	}
	// A name is kept whole ("National Football League" for "football").
	for i := 0; i < len(words); {
		j := i
		for j < len(words) && (capitalised(trimWord(words[j])) || j > i && nameParticles[words[j]] && j+1 < len(words) && capitalised(trimWord(words[j+1]))) {
			j++
			if endsInPunct(words[j-1]) {
				break // "Institute (PSI), Dennis Howard Marks" is two names
			}
		}
		if j-i >= 2 && slices.Contains(keep[i:j], true) {
			for k := i; k < j; k++ {
				keep[k] = true
			}
		}
		i = max(j, i+1)
	}
	var kept []string
	for i, w := range words {
		if keep[i] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 || len(kept) == len(words) {
		return ""
	}
	return strings.TrimRight(strings.Join(kept, " "), ".,;:!? ")
}

func trimWord(w string) string {
	return strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// nameRuns are a text's names of two or more capitalised words as written
// ("Band of Brothers"), a particle between them included, an opening
// capitalised stop word not.
func nameRuns(text string) []string {
	var out, run []string
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

// namedAsWritten returns the first name of two or more words of the text
// that neither the sentence nor the question writes as one: words of two
// names ("Rainbow Estate" from "Rainbow Terrace ... Lullwater Estate") make
// a hallucinated one.
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
		if rs := stems(r); !containsSeq(seq, rs) && !containsSeq(qseq, rs) {
			return r, false
		}
	}
	return "", true
}

// containsSeq reports whether seq has the words of sub in order, each
// within NameGap words of the one before ("President Obama" in "President
// Barack Obama").
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
			next := slices.Index(seq[at+1:min(len(seq), at+2+NameGap)], sub[j])
			if next < 0 {
				break
			}
			at += 1 + next
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// NameGap is how many words (a middle name, an initial) may come between
// two words of a name.
const NameGap = 2

// residualSupport tests a restating statement's residual as a short answer:
// supported by a sentence that supports it, writes its names as one, and
// names (or its pronoun stands for) a name of the question the statement
// repeats and the contexts mention.
func residualSupport(st, q *span, sents []*span) (Evidence, bool) {
	r := residual(st, q)
	if r == "" {
		return Evidence{}, false
	}
	// A stop word before the residual keeps its first word a name.
	rsp := analyzeText("and " + r) // a span of its own: residue is set on it
	rsp.residue = true
	var premise []string
	for _, n := range q.names {
		if st.feats[n.feat] && slices.ContainsFunc(sents, func(cs *span) bool { return cs.feats[n.feat] }) {
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

// aboutAny reports whether the sentence or its referent has one of the
// features; true when there are none.
func aboutAny(cs *span, feats []string) bool {
	return len(feats) == 0 || slices.ContainsFunc(feats, func(f string) bool { return cs.feats[f] || cs.refFeats[f] })
}

func endsInPunct(w string) bool {
	return strings.ContainsAny(w[len(w)-1:], ",;:.!?)")
}
