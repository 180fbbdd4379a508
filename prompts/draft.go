package prompts

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

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
	base, ok := strings.CutSuffix(name, DraftSuffix)
	if !ok {
		return false
	}
	_, _, ok = parseFileName(base)
	return ok
}

// IsEmbeddedText reports whether b is byte for byte the built-in template of
// task.lang: an override with that text only hides later updates of it.
func IsEmbeddedText(b []byte, task, lang string) bool {
	if CheckTaskLang(task, lang) != nil {
		return false
	}
	return bytes.Equal(b, []byte(Embedded().entries[key(task, lang)].src))
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
