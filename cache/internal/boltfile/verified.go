package boltfile

import (
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/ragscope/ragscope/internal/outfile"
)

// State is what is recorded, beside the file (.<name>.verified), of a
// file found sound, so that the pre-open walk of every page (seconds on
// gigabytes, paid by every `runs`, `report` and `open`) is skipped while
// the file is exactly in that state: same inode, size and modification
// time; same inode change time, which every write sets and no program can
// set back; same bbolt meta and the same CRC-32C of the pages whose damage
// spreads furthest (both metas, the freelist, the root), which bbolt reads
// at every open anyway. A bit flipped under the file system sets no time:
// bbolt's page assertions and the cache's guard meet it (and remove the
// record), and `ragscope db check` always walks. A record is trusted only
// when written in a later clock tick than the file's last change.
type State struct {
	V       int    `json:"v"`
	Size    int64  `json:"size"`
	MtimeNS int64  `json:"mtime_ns"`
	CtimeNS int64  `json:"ctime_ns"`
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	Txid    uint64 `json:"txid"`
	Pgid    uint64 `json:"pgid"`
	Root    uint64 `json:"root"`
	Sum     uint32 `json:"sum"`
}

// latest is the later of the file's modification and change times.
func (s State) latest() int64 { return max(s.MtimeNS, s.CtimeNS) }

const verifiedVersion = 2

// VerifiedPath is where the state of the database at path is recorded.
func VerifiedPath(path string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, "."+base+".verified")
}

// StateOf is the state of the open file f.
func StateOf(f *os.File) (State, bool) {
	fi, err := f.Stat()
	if err != nil {
		return State{}, false
	}
	dev, ino, ctime, ok := Identity(fi)
	if !ok {
		return State{}, false
	}
	size := fi.Size()
	read := func(off, n int64) ([]byte, bool) {
		if off < 0 || n < 0 || n > size-off {
			return nil, false
		}
		buf := make([]byte, n)
		_, err := f.ReadAt(buf, off)
		return buf, err == nil
	}
	// Both meta pages live in the first two pages; 128 KiB covers the
	// largest page size bbolt picks on common systems.
	head, ok := read(0, min(size, 1<<17))
	if !ok {
		return State{}, false
	}
	bf := Read(head)
	if bf.Cur < 0 {
		return State{}, false
	}
	m := bf.Meta()
	ps := int64(bf.PageSize)
	sum := crc32.New(castagnoli)
	metas, ok := read(0, min(2*ps, size))
	if !ok {
		return State{}, false
	}
	sum.Write(metas)
	for _, id := range []uint64{m.Freelist, m.Root} {
		if id == NoFreelist || id < 2 || id >= m.Pgid {
			continue
		}
		hdr, ok := read(int64(id)*ps, PageHeaderSize)
		if !ok {
			return State{}, false
		}
		// The page with its overflow, as far as the file goes: a bad
		// overflow count is the walk's to report, here it only changes
		// the sum.
		n := min((int64(ne.Uint32(hdr[12:]))+1)*ps, size-int64(id)*ps)
		page, ok := read(int64(id)*ps, n)
		if !ok {
			return State{}, false
		}
		sum.Write(page)
	}
	return State{V: verifiedVersion, Size: size, MtimeNS: fi.ModTime().UnixNano(), CtimeNS: ctime,
		Dev: dev, Ino: ino, Txid: m.Txid, Pgid: m.Pgid, Root: m.Root, Sum: sum.Sum32()}, true
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Verified says whether the file is in the state last recorded as
// sound. Any doubt (no record, an unreadable one, a mismatch) is a no.
func Verified(path string, f *os.File) bool {
	vp := VerifiedPath(path)
	b, err := os.ReadFile(vp)
	if err != nil {
		return false
	}
	var rec State
	if json.Unmarshal(b, &rec) != nil || rec.V != verifiedVersion {
		return false
	}
	vi, err := os.Stat(vp)
	if err != nil || vi.ModTime().UnixNano() <= rec.latest() {
		return false
	}
	now, ok := StateOf(f)
	return ok && now == rec
}

// RecordVerified writes the state of the sound file f, which the caller
// keeps locked. wait says to write again once the clock tick of the file's
// last change has passed, so that the record is trusted (worth it only for
// a file whose walk costs more). Failing to record only costs a walk.
func RecordVerified(path string, f *os.File, wait bool) {
	st, ok := StateOf(f)
	if !ok {
		return
	}
	b, _ := json.Marshal(st)
	vp := VerifiedPath(path)
	for try := 0; try < 5; try++ {
		// Whole or not at all: a reader never sees half a record.
		if err := outfile.Write(vp, b); err != nil {
			return
		}
		vi, err := os.Stat(vp)
		if err != nil || vi.ModTime().UnixNano() > st.latest() || !wait {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ForgetVerified removes the record: the file was found damaged.
func ForgetVerified(path string) { _ = os.Remove(VerifiedPath(path)) }

// FileWatch notices writes to the database file by anyone but this
// process's writer (a writer ignoring the lock, a `dd` over the file): the
// file's times differ from those after our last commit. Then Close records
// nothing, and the next open walks the file.
type FileWatch struct {
	f       *os.File
	last    fileStamp // after our last commit; guarded by the writer goroutine
	tainted atomic.Bool
}

// fileStamp is a file's modification and inode change times (ns).
type fileStamp struct{ mtime, ctime int64 }

// NewFileWatch starts watching f (nil: a file that cannot be watched,
// never recorded).
func NewFileWatch(f *os.File) *FileWatch {
	w := &FileWatch{f: f}
	if f == nil {
		w.tainted.Store(true)
		return w
	}
	w.last = w.stamp()
	return w
}

func (w *FileWatch) stamp() fileStamp {
	fi, err := w.f.Stat()
	if err != nil {
		w.tainted.Store(true)
		return fileStamp{-1, -1}
	}
	_, _, ctime, _ := Identity(fi)
	return fileStamp{fi.ModTime().UnixNano(), ctime}
}

// Commit runs one of our commits, checking the file before and after.
func (w *FileWatch) Commit(update func() error) error {
	if w.f != nil && w.stamp() != w.last {
		w.tainted.Store(true)
	}
	err := update()
	if w.f != nil {
		w.last = w.stamp()
	}
	return err
}

// Unchanged says whether the file is as our last commit (or the open)
// left it.
func (w *FileWatch) Unchanged() bool {
	return w.f != nil && !w.tainted.Load() && w.stamp() == w.last
}
