package main

import (
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"

	"github.com/ragscope/ragscope/internal/exit"
)

// at80 makes every output a terminal of 80 columns for the test.
func at80(t *testing.T) {
	t.Helper()
	was := termWidth
	termWidth = func(io.Writer) int { return 80 }
	t.Cleanup(func() { termWidth = was })
}

// fits reports the lines of out wider than 80 columns that are more than
// one word: a terminal would wrap them mid-word.
func overlong(out string) []string {
	var bad []string
	for _, l := range strings.Split(out, "\n") {
		if runewidth.StringWidth(l) > 80 && len(strings.Fields(l)) > 1 {
			bad = append(bad, l)
		}
	}
	return bad
}

// TestOutputFits80Columns: on an 80-column terminal the output of runs,
// prompts list and the exit summary of a run keeps to 80 columns (a
// terminal wraps a longer line mid-word), and says everything it says
// to a pipe: the same words, in the same order, only laid out again.
func TestOutputFits80Columns(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	db := filepath.Join(t.TempDir(), "r.db")
	demo := repoFile("testdata/demo.jsonl")
	piped := runInProcess("run", "--headless", "--db", db, demo)
	if piped.code != exit.OK {
		t.Fatalf("run: exit %d\n%s", piped.code, piped.stderr)
	}
	at80(t)
	for _, tc := range []struct {
		name   string
		args   []string
		stderr bool // the output to check is stderr's
	}{
		{"runs", []string{"runs", "--db", db}, false},
		{"prompts list", []string{"prompts", "list"}, false},
		{"the exit summary", []string{"run", "--headless", "--db", db, demo}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runInProcess(tc.args...)
			termWidth = func(io.Writer) int { return 0 }
			whole := runInProcess(tc.args...)
			termWidth = func(io.Writer) int { return 80 }
			if r.code != exit.OK || whole.code != exit.OK {
				t.Fatalf("exit %d, %d\n%s", r.code, whole.code, r.stderr)
			}
			out, all := r.stdout, whole.stdout
			if tc.stderr {
				// From the summary on: the lines before name the run and
				// time it.
				cut := func(s string) string { return s[strings.Index(s, "\nmetric"):] }
				out, all = cut(r.stderr), cut(whole.stderr)
			}
			if bad := overlong(out); len(bad) > 0 {
				t.Errorf("lines past 80 columns:\n%s\n\nall of it:\n%s", strings.Join(bad, "\n"), out)
			}
			// The same words in the same order; a table's moved cells are
			// named by their column.
			words := func(s string) []string {
				var w []string
				for _, f := range strings.Fields(s) {
					if l := strings.ToLower(f); l != "sha256" && l != "judge" && l != "dataset" && l != "parent" && l != "why" {
						w = append(w, f)
					}
				}
				return w
			}
			if tc.stderr && !slices.Equal(words(out), words(all)) {
				t.Errorf("the wrapped summary says something else:\n%s\n\nwhole:\n%s", out, all)
			}
			if !tc.stderr {
				got, want := words(out), words(all)
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("the fitted table lost or changed cells:\n%s\n\nwhole:\n%s", out, all)
				}
			}
		})
	}
}
