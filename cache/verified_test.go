package cache

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache/internal/boltfile"
	"github.com/ragscope/ragscope/eval/report"
)

// aged makes the file look last written an hour ago, as a database is
// when it is opened again: a record of its state made now is then in a
// later clock tick than its last write. Setting the times sets the inode
// change time to now, which no program can put back, so it also waits
// for the file system's clock to tick past it (a probe file's mtime
// tells), as an hour would have.
func aged(t *testing.T, p string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	_, _, ctime, ok := boltfile.Identity(fi)
	if !ok {
		return
	}
	probe := p + ".tick"
	defer os.Remove(probe)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if err := os.WriteFile(probe, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if pi, err := os.Stat(probe); err == nil && pi.ModTime().UnixNano() > ctime {
			return
		}
		runtime.Gosched()
	}
	t.Fatal("the file system's clock did not tick in 10 s")
}

func openClose(t *testing.T, p string, ro bool) error {
	t.Helper()
	db, err := Open(p, Options{ReadOnly: ro})
	if err != nil {
		return err
	}
	if _, err := db.Runs(); err != nil {
		t.Fatal(err)
	}
	return db.Close()
}

// walked says whether fn walked the file before opening it.
func walked(t *testing.T, fn func() error) (bool, error) {
	t.Helper()
	before := walks.Load()
	err := fn()
	return walks.Load() != before, err
}

func TestVerifiedStateSkipsTheWalk(t *testing.T) {
	p := corpusCopy(t)
	aged(t, p)
	for i, want := range []bool{true, false, false} {
		w, err := walked(t, func() error { return openClose(t, p, true) })
		if err != nil {
			t.Fatal(err)
		}
		if w != want {
			t.Fatalf("read-only open %d walked=%v, want %v (the record of a sound file must spare the walk)", i+1, w, want)
		}
	}

	// A writer's session: what it wrote is recorded at Close.
	old := waitFromBytes
	waitFromBytes = 0
	t.Cleanup(func() { waitFromBytes = old })
	db, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutRun(report.RunInfo{ID: "20261201-000000-abcd", Dataset: "d.jsonl"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if w, err := walked(t, func() error { return openClose(t, p, true) }); err != nil || w {
		t.Fatalf("after a writer closed cleanly: walked=%v, err %v; want no walk", w, err)
	}
}

// Every way the file can change after its state was recorded makes the
// next open walk it, and damage is found there as it was without records.
func TestVerifiedStateIsNotTrustedAfterAChange(t *testing.T) {
	trusted := func(t *testing.T) string {
		p := corpusCopy(t)
		aged(t, p)
		if err := openClose(t, p, true); err != nil {
			t.Fatal(err)
		}
		if w, err := walked(t, func() error { return openClose(t, p, true) }); err != nil || w {
			t.Fatalf("setup: walked=%v, err %v", w, err)
		}
		return p
	}
	for _, dc := range damageCases() {
		if !dc.damaged {
			continue
		}
		t.Run(dc.name, func(t *testing.T) {
			p := trusted(t)
			dc.make(t, p)
			w, err := walked(t, func() error { return openClose(t, p, true) })
			if !w || !errors.Is(err, ErrDamaged) {
				t.Fatalf("walked=%v, err %v; want a walk that finds the damage", w, err)
			}
			if _, err := os.Stat(boltfile.VerifiedPath(p)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the record of a damaged file is still there: %v", err)
			}
		})
	}
	t.Run("same bytes, mtime restored, another inode", func(t *testing.T) {
		p := trusted(t)
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(filepath.Dir(p), "copy")
		if err := os.WriteFile(tmp, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
		if w, err := walked(t, func() error { return openClose(t, p, true) }); err != nil || !w {
			t.Fatalf("walked=%v, err %v; want a walk of the replaced file", w, err)
		}
	})
	for _, restore := range []bool{false, true} {
		name := "written under an open writer by someone else"
		if restore {
			name += ", its mtime put back"
		}
		t.Run(name, func(t *testing.T) {
			p := trusted(t)
			db, err := Open(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// A byte of a free or unused spot rewritten with itself: no damage,
			// but a write nobody can vouch for.
			fi, _ := os.Stat(p)
			b := make([]byte, 1)
			f, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.ReadAt(b, fi.Size()-1); err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt(b, fi.Size()-1); err != nil {
				t.Fatal(err)
			}
			f.Close()
			// Surely another time than the open saw (the aged one), even on a
			// coarse clock; or the very time it saw.
			other := time.Now().Add(-2 * time.Hour)
			if restore {
				other = fi.ModTime()
			}
			if err := os.Chtimes(p, other, other); err != nil {
				t.Fatal(err)
			}
			// Were the foreign write missed, this Close would record a
			// trusted state.
			old := waitFromBytes
			waitFromBytes = 0
			t.Cleanup(func() { waitFromBytes = old })
			if err := db.PutRun(report.RunInfo{ID: "20261201-000000-abcd", Dataset: "d.jsonl"}); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if w, err := walked(t, func() error { return openClose(t, p, true) }); err != nil || !w {
				t.Fatalf("walked=%v, err %v; want a walk after a foreign write", w, err)
			}
		})
	}
	t.Run("a page rewritten in place, its mtime put back", func(t *testing.T) {
		p := trusted(t)
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		overwrite(t, p, int64(pageOf(t, p, "results", 0.5))*4096, make([]byte, 4096))
		if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		w, err := walked(t, func() error { return openClose(t, p, true) })
		if !w || !errors.Is(err, ErrDamaged) {
			t.Fatalf("walked=%v, err %v; want a walk that finds the damage", w, err)
		}
	})
	// A disk that flips bits under the file system sets no time at all: the
	// checksum of the pages a writer trusts first sees what the times miss.
	t.Run("the freelist changed with no time changed", func(t *testing.T) {
		p := trusted(t)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m := boltfile.Read(data).Meta()
		if m.Freelist == boltfile.NoFreelist {
			t.Skip("the corpus has no freelist page")
		}
		// The freelist now says the tree's root page is free: a writer
		// would hand it out and overwrite it.
		page := make([]byte, 4096)
		copy(page, data[m.Freelist*4096:])
		ne.PutUint16(page[10:], 1)
		ne.PutUint64(page[boltfile.PageHeaderSize:], m.Root)
		overwrite(t, p, int64(m.Freelist)*4096, page)
		unseen(t, p)
		w, err := walked(t, func() error { return openClose(t, p, true) })
		if !w || !errors.Is(err, ErrDamaged) {
			t.Fatalf("walked=%v, err %v; want a walk that finds the freelist damaged", w, err)
		}
	})
	t.Run("a data page changed with no time changed", func(t *testing.T) {
		p := trusted(t)
		overwrite(t, p, int64(pageOf(t, p, "results", 0.5))*4096, make([]byte, 4096))
		unseen(t, p)
		db, err := Open(p, Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("the stamps cannot see this: the open skips the walk, got %v", err)
		}
		runs, err := db.Runs()
		for _, r := range runs {
			if err != nil {
				break
			}
			_, _, err = db.Run(r.ID)
		}
		if !errors.Is(err, ErrDamaged) {
			t.Fatalf("reading every run: %v, want the damage found", err)
		}
		db.Close()
		if _, err := os.Stat(boltfile.VerifiedPath(p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the record is kept after a read met damage: %v", err)
		}
	})
	t.Run("a record of another version or garbage", func(t *testing.T) {
		p := trusted(t)
		if err := os.WriteFile(boltfile.VerifiedPath(p), []byte(`{"v": 99}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if w, err := walked(t, func() error { return openClose(t, p, true) }); err != nil || !w {
			t.Fatalf("walked=%v, err %v", w, err)
		}
	})
}

// A writable open of a database at this layout commits nothing: the file
// is left as recorded, so a session that dies before its Close costs the
// next open no walk.
func TestOpenWritesNothingToACurrentDatabase(t *testing.T) {
	p := corpusCopy(t)
	db, err := Open(p, Options{}) // may upgrade the corpus once
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	aged(t, p)
	before, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	db, err = Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Runs(); err != nil {
		t.Fatal(err)
	}
	// No Close: as if the process were killed here. The file is as it was.
	after, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	now, _ := os.Stat(p)
	if !bytes.Equal(before, after) || !now.ModTime().Equal(fi.ModTime()) {
		t.Fatalf("a writable open that wrote nothing changed the file (mtime %v -> %v)", fi.ModTime(), now.ModTime())
	}
	db.Close()
}

// unseen makes the record of p match p's times now, as if the change just
// made to p had set none: a disk flipping bits under the file system.
func unseen(t *testing.T, p string) {
	t.Helper()
	var rec boltfile.State
	b, err := os.ReadFile(boltfile.VerifiedPath(p))
	if err != nil || json.Unmarshal(b, &rec) != nil {
		t.Fatalf("record: %v", err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	now, ok := boltfile.StateOf(f)
	f.Close()
	if !ok {
		t.Fatal("no state")
	}
	rec.MtimeNS, rec.CtimeNS = now.MtimeNS, now.CtimeNS
	b, _ = json.Marshal(rec)
	if err := os.WriteFile(boltfile.VerifiedPath(p), b, 0o600); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(boltfile.VerifiedPath(p), later, later); err != nil {
		t.Fatal(err)
	}
}
