package prompts

import (
	"errors"
	"fmt"
	"io/fs"
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
	s, problems, err := Scan(dir)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		errs := make([]error, len(problems))
		for i, p := range problems {
			errs[i] = p.Err
		}
		return nil, fmt.Errorf("prompts: override directory %s:\n%w", dir, errors.Join(errs...))
	}
	return s, nil
}

// Problem is one override file that Scan could not use.
type Problem struct {
	Task, Lang string // "" when the file name is not a template name
	Path       string
	Err        error // names the file and, for template errors, the line
}

// Scan is Load that does not stop at broken files: it returns the set with
// every good override in place (the built-in template stands in for a
// broken one) and the problems, one per file. err is only for a directory
// that cannot be read. Drafts (<task>.<lang>.tmpl.draft, the TUI's edits
// that failed validation) are never loaded.
func Scan(dir string) (*Set, []Problem, error) {
	base := Embedded()
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("prompts: reading the override directory: %w", err)
	}
	s := &Set{entries: maps.Clone(base.entries)}
	var problems []Problem
	for _, de := range des {
		name := de.Name()
		if editorLeftover(name) || isDraftName(name) {
			continue
		}
		path := filepath.Join(dir, name)
		t, l, ok := parseFileName(name)
		if !ok {
			problems = append(problems, Problem{Path: path, Err: unknownNameError(path, name)})
			continue
		}
		if de.IsDir() {
			problems = append(problems, Problem{t, l, path, fmt.Errorf("%s: is a directory, expected a template file", path)})
			continue
		}
		var e *entry
		b, err := os.ReadFile(path)
		if err == nil {
			e, err = newEntry(t, l, path, b, Info{Source: SourceOverride, Path: path})
		}
		if err != nil {
			problems = append(problems, Problem{t, l, path, err})
			continue
		}
		s.entries[key(t, l)] = e
	}
	return s, problems, nil
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

// DraftSuffix ends the name of a draft: an edit of <task>.<lang>.tmpl kept
// beside it, which Load never reads. The TUI edits the draft and makes it
// the override file only once it passes validation, so a broken edit never
// reaches later runs.
const DraftSuffix = ".draft"

// DraftPath is the draft of task.lang's override file in dir.
func DraftPath(dir, task, lang string) string {
	return filepath.Join(dir, FileName(task, lang)+DraftSuffix)
}

func isDraftName(name string) bool {
	_, _, ok := parseFileName(strings.TrimSuffix(name, DraftSuffix))
	return ok && strings.HasSuffix(name, DraftSuffix)
}

// IsEmbeddedText reports whether b is byte for byte the built-in template of
// task.lang: an override with that text only hides later updates of it.
func IsEmbeddedText(b []byte, task, lang string) bool {
	src, err := Embedded().Source(task, lang)
	return err == nil && string(b) == src
}

// Reset removes the override file of task.lang in dir and its draft, so the
// built-in template is used again. It returns the paths removed; a missing
// file or directory is not an error.
func Reset(dir, task, lang string) ([]string, error) {
	if err := CheckTaskLang(task, lang); err != nil {
		return nil, err
	}
	var removed []string
	for _, p := range []string{filepath.Join(dir, FileName(task, lang)), DraftPath(dir, task, lang)} {
		err := os.Remove(p)
		switch {
		case err == nil:
			removed = append(removed, p)
		case errors.Is(err, fs.ErrNotExist):
		default:
			return removed, fmt.Errorf("prompts: reset: %w", err)
		}
	}
	return removed, nil
}

// Export writes the built-in templates into dir as <task>.<lang>.tmpl,
// creating dir if needed. A file that exists with different content is the
// user's edit: nothing is written and the error names every such file.
// Files identical to the built-in ones are left as they are.
func Export(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("prompts: export: %w", err)
	}
	type file struct{ path, src string }
	var todo []file
	var conflicts []string
	for _, info := range Embedded().List() {
		path := filepath.Join(dir, FileName(info.Task, info.Lang))
		src, _ := Embedded().Source(info.Task, info.Lang)
		b, err := os.ReadFile(path)
		switch {
		case err == nil && string(b) == src:
		case err == nil:
			conflicts = append(conflicts, path)
		case errors.Is(err, fs.ErrNotExist):
			todo = append(todo, file{path, src})
		default:
			return fmt.Errorf("prompts: export: %w", err)
		}
	}
	if len(conflicts) > 0 {
		return fmt.Errorf("prompts: export: these files exist and differ from the built-in templates; move or delete them first (nothing was written): %s",
			strings.Join(conflicts, ", "))
	}
	for _, f := range todo {
		if err := os.WriteFile(f.path, []byte(f.src), 0o600); err != nil {
			return fmt.Errorf("prompts: export: %w", err)
		}
	}
	return nil
}
