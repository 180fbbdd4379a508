package prompts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

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
		b, err := os.ReadFile(path)
		switch {
		case err == nil && IsEmbeddedText(b, info.Task, info.Lang):
			continue
		case err == nil:
			conflicts = append(conflicts, path)
			continue
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("prompts: export: %w", err)
		}
		src, _ := Embedded().Source(info.Task, info.Lang)
		todo = append(todo, file{path, src})
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
