package words

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// Lexicon is a team's own word lists (--offline-lexicon), read with the
// embedded ones.
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
