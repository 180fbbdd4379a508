package cache

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// The pre-open check walks every page of the file: 1.6 s at 2 GB, about
// 7 s at 14 GB, paid by every `runs`, `report` and `open`. A file that no
// one has written since it was last found sound cannot have grown a bad
// page through bbolt, so the state of a sound file is recorded beside it
// (.<name>.verified) and the walk is skipped while the file is exactly in
// that state: same inode, size, modification time and bbolt meta (txid,
// page count, root). Any write to the file, ours, another process's, or a
// `dd` over it, changes its modification time, and the walk runs again.
//
// A record is trusted only when it was written in a later clock tick than
// the file was last modified (its own mtime is greater): a write in the
// same tick as the record would leave the file's mtime unchanged.
type verifiedState struct {
	V       int    `json:"v"`
	Size    int64  `json:"size"`
	MtimeNS int64  `json:"mtime_ns"`
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	Txid    uint64 `json:"txid"`
	Pgid    uint64 `json:"pgid"`
	Root    uint64 `json:"root"`
}

const verifiedVersion = 1

func verifiedPath(path string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, "."+base+".verified")
}

// stateOf is the state of the open file f whose bytes are data (nil: read
// the meta pages through f).
func stateOf(f *os.File, data []byte) (verifiedState, bool) {
	fi, err := f.Stat()
	if err != nil {
		return verifiedState{}, false
	}
	dev, ino, ok := fileIdentity(fi)
	if !ok {
		return verifiedState{}, false
	}
	if data == nil {
		// Both meta pages live in the first two pages; 64 KiB covers the
		// largest page size bbolt picks on common systems.
		buf := make([]byte, min(fi.Size(), 1<<17))
		n, err := f.ReadAt(buf, 0)
		if err != nil && n < len(buf) {
			return verifiedState{}, false
		}
		data = buf[:n]
	}
	bf := readMetas(data)
	if bf.cur < 0 {
		return verifiedState{}, false
	}
	m := bf.meta()
	return verifiedState{V: verifiedVersion, Size: fi.Size(), MtimeNS: fi.ModTime().UnixNano(),
		Dev: dev, Ino: ino, Txid: m.txid, Pgid: m.pgid, Root: m.root}, true
}

// alreadyVerified says whether the file is in the state last recorded as
// sound. Any doubt (no record, an unreadable one, a mismatch) is a no.
func alreadyVerified(path string, f *os.File, data []byte) bool {
	vp := verifiedPath(path)
	b, err := os.ReadFile(vp)
	if err != nil {
		return false
	}
	var rec verifiedState
	if json.Unmarshal(b, &rec) != nil || rec.V != verifiedVersion {
		return false
	}
	vi, err := os.Stat(vp)
	if err != nil || vi.ModTime().UnixNano() <= rec.MtimeNS {
		return false
	}
	now, ok := stateOf(f, data)
	return ok && now == rec
}

// recordVerified writes the state of the sound file f, locked by the
// caller so that nobody writes it meanwhile. wait says to make the record
// trustworthy even when the file was modified in this very clock tick, by
// writing again once the tick has passed (a few milliseconds; worth it
// only for a file whose walk costs more). Failing to record is harmless:
// the next open walks.
func recordVerified(path string, f *os.File, data []byte, wait bool) {
	st, ok := stateOf(f, data)
	if !ok {
		return
	}
	b, _ := json.Marshal(st)
	vp := verifiedPath(path)
	for try := 0; try < 5; try++ {
		if err := writeFileAtomic(vp, b); err != nil {
			return
		}
		vi, err := os.Stat(vp)
		if err != nil || vi.ModTime().UnixNano() > st.MtimeNS || !wait {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// forgetVerified removes the record: the file was found damaged.
func forgetVerified(path string) {
	if err := os.Remove(verifiedPath(path)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return
	}
}

// writeFileAtomic replaces path by a file holding b, so a reader never
// sees half a record.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(tmp.Name())
		return errors.Join(werr, cerr)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}

// fileWatch notices writes to the database file by anyone but this
// process's writer: it knows the file's modification time after each of
// our commits, and a commit that finds another time, or a Close that
// does, means someone else wrote meanwhile (a second writer ignoring the
// lock, a `dd` over the file). Then Close records nothing, and the next
// open walks the file.
type fileWatch struct {
	f       *os.File
	last    int64 // mtime (ns) after our last commit; guarded by the writer goroutine
	tainted atomic.Bool
}

func newFileWatch(f *os.File) *fileWatch {
	w := &fileWatch{f: f}
	if f == nil {
		w.tainted.Store(true)
		return w
	}
	w.last = w.mtime()
	return w
}

func (w *fileWatch) mtime() int64 {
	fi, err := w.f.Stat()
	if err != nil {
		w.tainted.Store(true)
		return -1
	}
	return fi.ModTime().UnixNano()
}

// commit runs one of our commits, checking the file before and after.
func (w *fileWatch) commit(update func() error) error {
	if w.f != nil && w.mtime() != w.last {
		w.tainted.Store(true)
	}
	err := update()
	if w.f != nil {
		w.last = w.mtime()
	}
	return err
}

// unchanged says whether the file is as our last commit (or the open)
// left it.
func (w *fileWatch) unchanged() bool {
	return w.f != nil && !w.tainted.Load() && w.mtime() == w.last
}
