package outfile

import (
	"io"
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

// A destination that is not a regular file is written in place: renaming
// over /dev/null would replace the device with a file for the whole
// machine, and over a named pipe would leave its reader waiting.
func TestDevicesAndPipesAreWrittenInPlace(t *testing.T) {
	// A named pipe takes the path a device does (not a regular file), so
	// it stands in for /dev/null here: a regression must not break the
	// machine's /dev/null for every test after this one.
	fifo := filepath.Join(t.TempDir(), "report.pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	// The reading end is open before the report is (a pipe's writer
	// waits for one); if the pipe were renamed over, it would read nothing.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := Create(fifo)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte(`{"version": 1}`))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	if s := string(b); s != `{"version": 1}` {
		t.Fatalf("the pipe's reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the pipe was replaced: %v %v", fi.Mode(), err)
	}
}

// A symbolic link is followed: the file it points to gets the report, the
// link stays a link.
func TestSymlinkIsFollowed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "reports", "latest.json")
	os.MkdirAll(filepath.Dir(target), 0o700)
	os.WriteFile(target, []byte("old"), 0o600)
	link := filepath.Join(dir, "report.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	f, err := Create(link)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("the target holds %q", b)
	}
}

// A reservation checks the destination and leaves nothing until it is
// created: a process killed in between leaves no temporary file.
func TestReserveLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	r, err := Reserve(path)
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a reservation left %v", entries)
	}
	if _, err := Reserve(filepath.Join(dir, "missing", "report.json")); err == nil {
		t.Error("a destination in a missing directory was reserved")
	}
	if _, err := Reserve(dir); err == nil {
		t.Error("a directory was reserved")
	}
	f, err := r.Create()
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("the report")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "the report" {
		t.Fatalf("after Commit: %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}
