package tui

import (
	"errors"
	"os"
	"os/exec"
	"strings"
)

// editorCommand builds the command that edits path, the way git picks its
// editor: $VISUAL, then $EDITOR, then vi, then nano.
func editorCommand(path string, getenv func(string) string, lookPath func(string) (string, error)) (*exec.Cmd, error) {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		ed := strings.TrimSpace(getenv(v))
		if ed == "" {
			continue
		}
		c, err := envCommand(v, ed, path, lookPath)
		if err != nil {
			return nil, errors.New(err.Error() + "; set $VISUAL or $EDITOR to an installed editor")
		}
		return c, nil
	}
	for _, ed := range []string{"vi", "nano"} {
		if bin, err := lookPath(ed); err == nil {
			return exec.Command(bin, path), nil
		}
	}
	return nil, errors.New("no editor: set $VISUAL or $EDITOR (neither vi nor nano is installed)")
}

// defaultEditorCommand is editorCommand for the real environment.
func defaultEditorCommand(path string) (*exec.Cmd, error) {
	return editorCommand(path, os.Getenv, exec.LookPath)
}

// envCommand runs the command the variable v holds (value, not blank) on
// path. The value may carry arguments, so it goes through sh, with the
// path a separate argument never spliced into the script.
func envCommand(v, value, path string, lookPath func(string) (string, error)) (*exec.Cmd, error) {
	if sh, err := lookPath("sh"); err == nil {
		return exec.Command(sh, "-c", value+` "$@"`, value, path), nil
	}
	f := strings.Fields(value) // no shell: split on spaces
	bin, err := lookPath(f[0])
	if err != nil {
		return nil, errors.New("$" + v + "=" + value + ": " + f[0] + " not found in PATH")
	}
	return exec.Command(bin, append(f[1:], path)...), nil
}
