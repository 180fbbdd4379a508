package offline

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// Lexicon is a team's own word lists.
type Lexicon struct {
	Noncommittal []string
	Same         [][2]string
}

// ReadLexicon reads a lexicon file.
func ReadLexicon(path string) (*Lexicon, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseLexicon(f, path)
}

// ParseLexicon reads a lexicon; name is its file's, for errors.
func ParseLexicon(r io.Reader, name string) (*Lexicon, error) {
	lx := &Lexicon{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, entry, ok := strings.Cut(line, ":")
		entry = strings.TrimSpace(entry)
		if !ok || entry == "" {
			return nil, fmt.Errorf("%s:%d: want \"noncommittal: PHRASE\" or \"same: A = B\", not %q", name, n, line)
		}
		switch strings.ToLower(strings.TrimSpace(kind)) {
		case "noncommittal":
			lx.Noncommittal = append(lx.Noncommittal, strings.ToLower(entry))
		case "same":
			a, b, ok := strings.Cut(entry, "=")
			a, b = strings.TrimSpace(a), strings.TrimSpace(b)
			if !ok || a == "" || b == "" {
				return nil, fmt.Errorf("%s:%d: want \"same: A = B\", not %q", name, n, line)
			}
			lx.Same = append(lx.Same, [2]string{a, b})
		default:
			return nil, fmt.Errorf("%s:%d: unknown kind %q (noncommittal, same)", name, n, kind)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return lx, nil
}

// Option configures a Judge.
type Option func(*Judge)

// WithLexicon adds a team's lexicon to the embedded lists.
func WithLexicon(lx *Lexicon) Option {
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
