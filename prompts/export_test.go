package prompts

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "prompts")
	if err := Export(dir); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.tmpl"))
	if len(names) != len(Tasks)*len(Langs) {
		t.Fatalf("exported %d files, want %d", len(names), len(Tasks)*len(Langs))
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := Embedded().Hashes()
	got := s.Hashes()
	if n := len(Tasks) * len(Langs); len(got) != n {
		t.Fatalf("Hashes has %d entries, want %d", len(got), n)
	}
	for k, h := range want {
		if got[k] != h {
			t.Errorf("%s: hash after export+load %s, want %s", k, got[k], h)
		}
	}
	for _, info := range s.List() {
		if info.Source != SourceOverride {
			t.Errorf("%s.%s: source %q after loading the exported dir", info.Task, info.Lang, info.Source)
		}
	}
	// Exporting again over identical files is not a conflict.
	if err := Export(dir); err != nil {
		t.Errorf("re-export over identical files: %v", err)
	}
}

func TestExportKeepsEdits(t *testing.T) {
	dir := t.TempDir()
	edited := filepath.Join(dir, FileName(TaskContextRecallClassifications, "zh"))
	if err := os.WriteFile(edited, []byte("my edit {{.Reference}} {{chunks .Contexts}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Export(dir)
	if err == nil || !strings.Contains(err.Error(), edited) {
		t.Fatalf("Export over an edited file: error %v does not name %s", err, edited)
	}
	b, _ := os.ReadFile(edited)
	if string(b) != "my edit {{.Reference}} {{chunks .Contexts}}" {
		t.Error("Export overwrote the user's edit")
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*.tmpl")); len(names) != 1 {
		t.Errorf("Export wrote %d files despite the conflict, want none", len(names)-1)
	}
}

func TestHashes(t *testing.T) {
	s := Embedded()
	list := s.List()
	if len(list) != len(Tasks)*len(Langs) {
		t.Fatalf("List has %d entries", len(list))
	}
	i := 0
	seen := map[string]bool{}
	for _, task := range Tasks {
		for _, lang := range Langs {
			info := list[i]
			i++
			if info.Task != task || info.Lang != lang {
				t.Errorf("List[%d] = %s.%s, want %s.%s", i-1, info.Task, info.Lang, task, lang)
			}
			src, _ := s.Source(task, lang)
			sum := sha256.Sum256([]byte(src))
			if h := hex.EncodeToString(sum[:]); info.SHA256 != h || s.Hashes()[task+"."+lang] != h {
				t.Errorf("%s.%s: hash does not match the source text", task, lang)
			}
			if seen[info.SHA256] {
				t.Errorf("%s.%s: two templates share a hash", task, lang)
			}
			seen[info.SHA256] = true
		}
	}
}

func TestHashFollowsText(t *testing.T) {
	src := embeddedSource(t, TaskAnswerRelevancyQuestion, "en")
	tests := []struct {
		name, text string
		same       bool
	}{
		{"identical", src, true},
		{"one character", strings.Replace(src, "Read the answer", "Read the answer:", 1), false},
		{"trailing newline", src + "\n", false},
	}
	for _, tt := range tests {
		dir := writeFiles(t, map[string]string{FileName(TaskAnswerRelevancyQuestion, "en"): tt.text})
		s, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		same := s.Hashes()[key(TaskAnswerRelevancyQuestion, "en")] == Embedded().Hashes()[key(TaskAnswerRelevancyQuestion, "en")]
		if same != tt.same {
			t.Errorf("%s: hash unchanged = %v, want %v", tt.name, same, tt.same)
		}
		if s.Hashes()[key(TaskAnswerRelevancyQuestion, "zh")] != Embedded().Hashes()[key(TaskAnswerRelevancyQuestion, "zh")] {
			t.Errorf("%s: an untouched template's hash changed", tt.name)
		}
	}
}
