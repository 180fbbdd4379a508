package prompts

import (
	"io/fs"
	"testing"
)

// Embedded panics when a built-in template is broken; this test is what
// makes that panic unreachable in a released binary.
func TestEmbeddedTemplatesAreValid(t *testing.T) {
	s, err := embeddedSet()
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range s.List() {
		if info.Source != SourceEmbedded || info.Path != "" || info.SHA256 == "" {
			t.Errorf("%s.%s: bad info %+v", info.Task, info.Lang, info)
		}
	}
	// A stray file in templates/ would be embedded yet never used.
	names, err := fs.Glob(embedded, "templates/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, _, ok := parseFileName(n[len("templates/"):]); !ok {
			t.Errorf("%s is embedded but is not a template of any task", n)
		}
	}
	if len(names) != len(Tasks)*len(Langs) {
		t.Errorf("%d embedded files, want %d", len(names), len(Tasks)*len(Langs))
	}
}
