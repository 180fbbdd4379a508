package cache

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/cache/internal/boltfile"
)

// ErrDamaged is wrapped by the error of any operation that found the
// database file damaged (see DamageError).
var ErrDamaged = errors.New("database file is damaged")

// DamageError says that a database file is damaged and what to do about it:
// check it, salvage what can be read into a new file, or move it aside.
type DamageError struct {
	Path   string
	Reason string // what was found wrong
}

func (e *DamageError) Error() string {
	p := shellQuote(e.Path)
	return fmt.Sprintf("database %s is damaged (%s); `ragscope db check --db %s` shows what is wrong, "+
		"`ragscope db salvage --db %s --out NEW.db` copies what can still be read into a new file (then pass --db NEW.db, or move it into place), "+
		"or move %s aside to start afresh", e.Path, e.Reason, p, p, p)
}

func (e *DamageError) Unwrap() error { return ErrDamaged }

func damaged(path, format string, args ...any) error {
	return &DamageError{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// shellQuote quotes a path for a command line the user may paste.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// panicError turns the panic of a damaged file (see isDamagePanic) into a
// DamageError, and any other panic (a bug's) into nil.
func panicError(path string, p any) error {
	if !isDamagePanic(p) {
		return nil
	}
	if err, ok := p.(runtime.Error); ok {
		if fe, ok := p.(interface{ Addr() uintptr }); ok && fe.Addr() != 0 {
			return damaged(path, "reading it faulted: a page lies outside the file, which is probably truncated")
		}
		return damaged(path, "reading it failed: %v", err)
	}
	return damaged(path, "%v", p)
}

// isDamagePanic tells the panics of a damaged file from those of a bug: a
// fault at a non-nil address (reading the mmap past the end of the file),
// or a panic raised inside bbolt. Call it from the deferred function that
// recovered p (or one it calls), while the panicking frames are on the stack.
func isDamagePanic(p any) bool {
	if fe, ok := p.(interface{ Addr() uintptr }); ok && fe.Addr() != 0 {
		return true
	}
	pcs := make([]uintptr, 64)
	n := runtime.Callers(1, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case panicking && !strings.HasPrefix(f.Function, "runtime."):
			return strings.HasPrefix(f.Function, "go.etcd.io/bbolt")
		}
		if !more {
			return false
		}
	}
}

// guard runs fn with memory faults turned into panics, and turns the
// panics of a damaged file into a DamageError, any other into a bug's
// error. It covers the calling goroutine only: bbolt's own are protected
// by precheck.
func guard(path string, fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if p := recover(); p != nil {
			if err = panicError(path, p); err == nil {
				err = fmt.Errorf("database %s: internal error (please report it): %v", path, p)
			}
		}
	}()
	return fn()
}

// view is bolt's View under guard: every read of the database goes
// through it.
func (db *DB) view(fn func(*bolt.Tx) error) error {
	return db.noteDamage(guard(db.path, func() error { return db.bolt.View(fn) }))
}

// guardedUpdate is bolt's Update under guard, for the writer goroutine: a
// panic there would otherwise kill the process.
func guardedUpdate(path string, bdb *bolt.DB, fn func(*bolt.Tx) error) error {
	return guard(path, func() error { return bdb.Update(fn) })
}

// emptyGrace: an empty file younger than this may be another process's
// database being created, so Open looks again for a while before calling
// it not a database.
const (
	emptyGrace = 2 * time.Second
	emptyWait  = time.Second
)

// openChecked is bbolt's OpenFile hook: it opens and locks the file as
// bbolt is about to, and refuses a file that would make bbolt crash (an
// empty, truncated or badly paged one) in a goroutine of its own, where
// nothing can recover the panic: the walk has to be ours first.
func openChecked(path string, readOnly bool, timeout time.Duration, name string, flag int, perm os.FileMode) (*os.File, error) {
	_, serr := os.Lstat(name)
	existed := serr == nil
	start := time.Now()
	for {
		f, err := os.OpenFile(name, flag, perm)
		if err != nil {
			return nil, err
		}
		if err := boltfile.Lock(f, !readOnly, timeout-time.Since(start)); err != nil {
			_ = f.Close()
			return nil, err
		}
		fi, err := f.Stat()
		if err != nil {
			_ = f.Close()
			return nil, err
		}
		if fi.Size() == 0 {
			if !existed && !readOnly {
				return f, nil // ours to create: bbolt writes its first pages
			}
			if time.Since(fi.ModTime()) < emptyGrace && time.Since(start) < emptyWait {
				_ = f.Close() // let its creator lock it
				time.Sleep(boltfile.LockRetry)
				continue
			}
			_ = f.Close()
			return nil, notDatabase(fmt.Sprintf("empty database file %s (0 bytes): not a ragscope database; remove it or pass another --db FILE", path))
		}
		if err := precheck(path, f, fi.Size()); err != nil {
			_ = f.Close()
			return nil, err
		}
		return f, nil
	}
}

// errNotDatabase is matched by errors about files that are not ragscope
// databases at all (empty, or not bbolt files).
var errNotDatabase = errors.New("not a ragscope database")

type notDatabase string

func (e notDatabase) Error() string        { return string(e) }
func (e notDatabase) Is(target error) bool { return target == errNotDatabase }

// walks counts pre-open walks, for the tests of verifiedState.
var walks atomic.Int64

// precheck walks the file's bbolt structure (see walker) and returns a
// DamageError for the first problem, or an error wrapping errNotDatabase
// for a file that is not a bbolt database.
func precheck(path string, f *os.File, size int64) (err error) {
	m, err := boltfile.Map(f, size)
	if err != nil {
		return fmt.Errorf("database %s: %w", path, err)
	}
	defer m.Unmap()
	return guard(path, func() error {
		bf := boltfile.Read(m.Data)
		if bf.Cur < 0 {
			return notBoltError(path, bf)
		}
		if boltfile.Verified(path, f) {
			return nil
		}
		walks.Add(1)
		w := boltfile.NewWalker(bf)
		w.Trim = func() { boltfile.DontNeed(m.Data) }
		w.CheckAll()
		if w.Problems.N > 0 {
			boltfile.ForgetVerified(path)
			reason := w.Problems.List[0].String()
			if w.Problems.N > 1 {
				reason += fmt.Sprintf("; %d problems in all", w.Problems.N)
			}
			return &DamageError{Path: path, Reason: reason}
		}
		boltfile.RecordVerified(path, f, false)
		return nil
	})
}

// notBoltError: no valid meta page. When pages further in still look like
// bbolt's, the file is a database whose header is damaged: then salvage
// may get something back.
func notBoltError(path string, bf *boltfile.File) error {
	reason := bf.Metas[0].Err
	if boltfile.LooksLikeBolt(bf.Data) {
		return &DamageError{Path: path, Reason: fmt.Sprintf("both of its header (meta) pages are unreadable: %v", reason)}
	}
	return notDatabase(fmt.Sprintf("database %s is not a ragscope database or is corrupt (%v); move it aside or pass --db FILE to use another database", path, reason))
}
