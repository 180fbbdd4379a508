package offline

import (
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/offline/words"
)

// Option configures a Judge.
type Option func(*Judge)

// WithLexicon adds a team's lexicon to the embedded lists.
func WithLexicon(lx *words.Lexicon) Option {
	return func(j *Judge) {
		if lx == nil {
			return
		}
		j.noncommittal = append(j.noncommittal, lx.Noncommittal...)
		if len(lx.Same) > 0 {
			var pairs []string
			for _, p := range lx.Same {
				pairs = append(pairs, p[0], p[1])
			}
			j.same = strings.NewReplacer(pairs...)
		}
	}
}

// read is a text as the judge reads it: the team's synonyms replaced.
func (j *Judge) read(s string) string {
	if j.same == nil {
		return s
	}
	return j.same.Replace(s)
}

// readSample is the sample as the judge reads it (the sample itself when
// there are no synonyms).
func (j *Judge) readSample(s *eval.Sample) *eval.Sample {
	if j.same == nil {
		return s
	}
	c := *s
	c.Question, c.Answer, c.Reference = j.read(s.Question), j.read(s.Answer), j.read(s.Reference)
	c.Contexts = j.readAll(s.Contexts)
	return &c
}

// readAll is each of texts as the judge reads it.
func (j *Judge) readAll(texts []string) []string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = j.read(t)
	}
	return out
}
