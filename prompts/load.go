package prompts

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
)

// Load returns the built-in templates with those found in dir taking their
// place. dir may hold any subset of the files named <task>.<lang>.tmpl; any
// other file is an error (a misspelt name would otherwise be ignored and the
// user would wonder why the edit has no effect), except hidden files and
// editor backups, which editors leave next to the file being edited.
//
// Every override is parsed, checked for unknown fields and test-rendered
// with sample data, so mistakes surface here with file and line rather than
// in the middle of a run. All problems are reported at once.
func Load(dir string) (*Set, error) {
	base := Embedded()
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("prompts: reading the override directory: %w", err)
	}
	s := &Set{entries: maps.Clone(base.entries)}
	var errs []error
	for _, de := range des {
		name := de.Name()
		if editorLeftover(name) {
			continue
		}
		path := filepath.Join(dir, name)
		task, lang, ok := parseFileName(name)
		if !ok {
			errs = append(errs, unknownNameError(path, name))
			continue
		}
		if de.IsDir() {
			errs = append(errs, fmt.Errorf("%s: is a directory, expected a template file", path))
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		e, err := newEntry(task, lang, path, b, Info{Source: SourceOverride, Path: path})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.entries[key(task, lang)] = e
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("prompts: override directory %s:\n%w", dir, errors.Join(errs...))
	}
	return s, nil
}

// editorLeftover reports files that editors create beside the one being
// edited (vim swap files, emacs backups and autosaves, .DS_Store).
func editorLeftover(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") ||
		(strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#"))
}

func unknownNameError(path, name string) error {
	hint := ""
	if s := closestName(name); s != "" {
		hint = fmt.Sprintf("did you mean %s? ", s)
	}
	return fmt.Errorf("%s: not a prompt template name; %svalid names are %s", path, hint, strings.Join(validFileNames(), ", "))
}

// closestName suggests the valid name within a few edits of name, if any.
func closestName(name string) string {
	best, bestD := "", 4
	for _, v := range validFileNames() {
		if d := editDistance(strings.ToLower(name), v); d < bestD {
			best, bestD = v, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
