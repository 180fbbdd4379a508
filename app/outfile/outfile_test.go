package outfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestCompleteOrAbsent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	if err := os.WriteFile(path, []byte("the previous report"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half a rep")
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "the previous report" {
		t.Fatalf("an aborted write changed the destination: %q", b)
	}
	f, err = Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("the new report")
	if b, _ := os.ReadFile(path); string(b) != "the previous report" {
		t.Fatal("the destination changed before Commit")
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: nothing
	if b, _ := os.ReadFile(path); string(b) != "the new report" {
		t.Fatalf("after Commit: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

func TestCreatedOwnerOnly(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "export.jsonl")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{dir, filepath.Join(dir, "no", "such", "dir", "r.json")} {
		if _, err := Create(p); err == nil {
			t.Errorf("Create(%s) succeeded", p)
		}
	}
}
